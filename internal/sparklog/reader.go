package sparklog

import (
	"context"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// Handler receives a log's events and problems, in file order, on the
// goroutine that calls Read or Poll.
type Handler interface {
	// Event gets every line that decoded. Returning an error stops reading;
	// Read or Poll then returns that error.
	Event(pos Position, ev sparkevent.Event) error
	// Problem gets each piece of damage; reading goes on after it.
	Problem(p Problem)
}

// HandlerFuncs adapts two functions to a Handler; nil ones ignore their input.
type HandlerFuncs struct {
	OnEvent   func(Position, sparkevent.Event) error
	OnProblem func(Problem)
}

// Event implements Handler.
func (h HandlerFuncs) Event(pos Position, ev sparkevent.Event) error {
	if h.OnEvent == nil {
		return nil
	}
	return h.OnEvent(pos, ev)
}

// Problem implements Handler.
func (h HandlerFuncs) Problem(p Problem) {
	if h.OnProblem != nil {
		h.OnProblem(p)
	}
}

// DefaultMaxLineBytes bounds one line. Real lines reach a few MiB (SQL plans,
// environment updates); anything near this is damage.
const DefaultMaxLineBytes = 64 << 20

// Options tune reading. The zero value is ready to use.
type Options struct {
	// MaxLineBytes bounds one line and so the reader's memory; a longer
	// line is reported once and skipped. 0 means DefaultMaxLineBytes.
	MaxLineBytes int
	// OnProgress, if set, is called every few MiB of input and at the end
	// of each file, for progress bars over big logs.
	OnProgress func(Progress)
	// SQLUpdatesOnly gives each Accumulables list as its SQL updates
	// (TaskInfo.SQLUpdates, StageInfo.SQLUpdates; Accumulables stays nil):
	// the entries still are all read and validated, but only what the SQL
	// metrics use is kept, in a list without pointers. A reader feeding the
	// analysis sets it: Databricks writes over a hundred accumulables per
	// TaskEnd, and their names and flags would be half the garbage of a
	// read.
	SQLUpdatesOnly bool
	// DecodeWorkers is how many goroutines may decode a finished file's
	// lines: 0 chooses (GOMAXPROCS for a big file, else 1), 1 decodes on
	// the reading goroutine. A caller reading several logs at once sets 1:
	// its other logs keep the cores busy, and handing lines over to
	// workers would cost more than it saves.
	DecodeWorkers int

	ctx context.Context // set by ReadContext; checked between blocks
	// workers decode a finished file's lines: 0 chooses (GOMAXPROCS for a
	// big file, else 1), 1 decodes on the reading goroutine. Tests set it
	// to compare the two paths.
	workers int
	// chunkBytes overrides parallelChunk, so tests cross chunk borders often.
	chunkBytes int
}

func (o Options) maxLine() int {
	if o.MaxLineBytes <= 0 {
		return DefaultMaxLineBytes
	}
	return o.MaxLineBytes
}

// Progress is how far reading has got, in bytes as stored (compressed).
type Progress struct {
	Done  int64 // bytes consumed from the log's files
	Total int64 // the files' current total size
}

// Stats sums up what was read.
type Stats struct {
	Files    int              // files opened
	Lines    int64            // non-blank lines, decodable or not
	Events   int64            // lines that decoded
	ByType   map[string]int64 // events per "Event" type
	Problems int64            // problems delivered
	BytesIn  int64            // bytes consumed as stored (compressed)
	BytesOut int64            // decompressed bytes consumed, excluding a held-back tail
	Pending  int64            // decompressed bytes of an incomplete last line held back (live logs only)
	Finished bool             // the application ended and every file was read to its end
}

func (s *Stats) countEvent(typ string) {
	if s.ByType == nil {
		s.ByType = map[string]int64{}
	}
	s.ByType[typ]++
	s.Events++
}

// Read reads a log once, delivering every complete event to h in order. A
// finished log is read to its end; of a live one, what has been written so
// far (an incomplete last line or block is held back, not reported). It is
// a Follower polled once, so live and finished logs behave the same.
//
// Damage is delivered to h as Problems and reading goes on. The error is
// non-nil only when a file cannot be opened at all or h stopped reading.
func Read(log Log, h Handler, opts Options) (Stats, error) {
	return ReadContext(context.Background(), log, h, opts)
}

// ReadContext is Read that stops when ctx is done: it is checked before
// each file and after each decompressed block, so even one huge file is
// left promptly. The error is then ctx.Err(), and the Stats say how far
// reading got.
func ReadContext(ctx context.Context, log Log, h Handler, opts Options) (Stats, error) {
	opts.ctx = ctx
	f := NewFollower(log, h, opts)
	_, err := f.Poll()
	return f.Stats(), err
}

// stopped returns the context's error once reading should stop.
// context is the reading's context: an object-store read in flight is
// cancelled with it.
func (o Options) context() context.Context {
	if o.ctx == nil {
		return context.Background()
	}
	return o.ctx
}

func (o Options) stopped() error {
	if o.ctx == nil {
		return nil
	}
	return o.ctx.Err()
}
