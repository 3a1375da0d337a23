package sparklog

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/sparkglance/sparkglance/internal/sparklog/codec"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// Reading one big finished file on several cores.
//
// Decoding lines is most of the cost of reading a log, and it is a pure
// function of a line's bytes. So a file that will not grow any more is read
// by a pipeline: one goroutine decompresses into large chunks, split at
// newlines; workers decode the complete lines of each chunk; the goroutine
// that called Read or Poll runs the very same line loop as always (line
// numbers, offsets, damage, the handler) on the same bytes, taking each
// line's event from the workers instead of decoding it itself. A decoded
// line is used only when it is exactly the line the loop is at (same
// stream offset, same length), so the results cannot differ from reading
// on one goroutine; anything else (a line cut by damage, an over-long one)
// is decoded on the spot. The loop takes a chunk's complete lines where the
// chunk holds them (nextLine); only the line straddling two chunks, and
// what the producer did not list (over-long lines, the stream's tail, data
// cut by damage), is copied into its line buffer.
//
// Live files keep the one-goroutine path: they are resumed at compressed
// block boundaries between polls, which the decompressing goroutine does
// not track while it runs ahead.

const (
	// parallelChunk is the decompressed bytes one decoding job holds: big
	// enough that hand-overs cost nothing next to decoding, small enough
	// that a few in flight stay a few MiB.
	parallelChunk = 512 << 10
	// parallelMinInput is the stored size from which a finished file is
	// worth a pipeline; a smaller one is read as fast on one goroutine.
	parallelMinInput = 256 << 10
)

// decodeWorkers returns how many goroutines decode a finished file of size
// stored bytes still to read; 1 means the one-goroutine path.
func (o Options) decodeWorkers(size int64) int {
	if o.workers > 0 {
		return o.workers
	}
	if o.DecodeWorkers > 0 {
		return o.DecodeWorkers
	}
	if size < parallelMinInput {
		return 1
	}
	return runtime.GOMAXPROCS(0)
}

func (o Options) chunkSize() int {
	if o.chunkBytes > 0 {
		return o.chunkBytes
	}
	return parallelChunk
}

// lineInput is where the line loop gets its decompressed bytes, and
// possibly its lines already decoded.
type lineInput interface {
	Read(p []byte) (int, error)
	// consumed is how many stored bytes lie behind the data Read returned.
	consumed() int64
	// boundary is the checkpoint to resume at for decompressed offset out.
	boundary(out int64) codec.Checkpoint
	// decoded returns the event or error of line, which starts at
	// decompressed offset off, if it was decoded ahead.
	decoded(off int64, line []byte) (sparkevent.Event, error, bool)
}

// serialInput reads the codec directly: nothing is decoded ahead.
type serialInput struct {
	zr  *codec.Reader
	cnt *countingReader
}

func (s serialInput) Read(p []byte) (int, error)                          { return s.zr.Read(p) }
func (s serialInput) consumed() int64                                     { return s.cnt.n }
func (s serialInput) boundary(out int64) codec.Checkpoint                 { return s.zr.Boundary(out) }
func (serialInput) decoded(int64, []byte) (sparkevent.Event, error, bool) { return nil, nil, false }

// chunk is one piece of the decompressed stream: the start of a line left
// over from the chunk before, then new data. Its complete lines are
// decoded by a worker.
type chunk struct {
	buf    []byte
	newAt  int   // buf[newAt:] is new data, handed to the line loop
	off    int64 // stream offset of buf[0]
	in     int64 // stored bytes consumed once this chunk was read
	err    error // what ended the chunk, after its data (nil: it was full)
	lines  []aheadLine
	ready  chan struct{} // closed once lines are decoded
	worker bool          // sent to a worker (else ready is closed already)
}

// aheadLine is one line of a chunk and what decoding it gave.
type aheadLine struct {
	off int64 // stream offset
	n   int
	ev  sparkevent.Event
	err error
}

// parallelInput runs the decompressing goroutine and the workers. Its
// methods are called by the line loop's goroutine only.
type parallelInput struct {
	zr       *codec.Reader
	startOut int64 // decompressed offset of the first byte the producer reads
	startIn  int64 // stored bytes consumed before it started
	fallback codec.Checkpoint

	chunks chan *chunk // in stream order, to the line loop
	jobs   chan *chunk // to the workers
	free   chan *chunk // recycled by the line loop
	quit   chan struct{}
	wg     sync.WaitGroup

	sqlUpdatesOnly bool // Options.SQLUpdatesOnly, for the workers

	carried atomic.Int64 // bytes the producer copied from one chunk into the next

	cur      *chunk // chunk Read hands out
	curAt    int    // next byte of cur.buf to hand out
	lineAt   int    // next of cur.lines to look at
	finished bool   // the producer sent its last chunk and touches zr no more
}

// startParallel goes on decompressing zr, whose next byte is at
// decompressed offset startOut, on its own goroutine, with workers
// decoding the lines. Stop must be called before zr's source is closed.
func (fo *Follower) startParallel(st *fileState, zr *codec.Reader, cnt *countingReader, startOut int64, workers int) *parallelInput {
	chunkSize := fo.opts.chunkSize()
	maxLine := fo.opts.maxLine()
	inFlight := 2*workers + 2
	p := &parallelInput{
		zr: zr, startOut: startOut, fallback: st.cp, startIn: cnt.n,
		chunks: make(chan *chunk, inFlight),
		jobs:   make(chan *chunk, inFlight),
		free:   make(chan *chunk, inFlight),
		quit:   make(chan struct{}),

		sqlUpdatesOnly: fo.opts.SQLUpdatesOnly,
	}
	p.wg.Add(1 + workers)
	go p.produce(cnt, maxLine, chunkSize, inFlight)
	for range workers {
		go p.decode()
	}
	return p
}

// stop ends the goroutines and waits for them.
func (p *parallelInput) stop() {
	close(p.quit)
	p.wg.Wait()
}

// produce decompresses into chunks and hands them to the workers and, in
// order, to the line loop.
func (p *parallelInput) produce(cnt *countingReader, maxLine, chunkSize, inFlight int) {
	defer p.wg.Done()
	defer close(p.chunks)
	// A line longer than a chunk is not carried into the next one: copying
	// its growing start into every chunk it spans made reading it
	// quadratic in its length. The line loop assembles and decodes it.
	maxCarry := min(maxLine, chunkSize)
	allocated := 0
	var carry []byte  // start of a line not complete yet
	skipping := false // inside a line too long to decode ahead
	var off int64     // stream offset of the next chunk's buf[0]
	for {
		var c *chunk
		select {
		case c = <-p.free:
		default:
			if allocated < inFlight {
				allocated++
				c = &chunk{}
				break
			}
			select {
			case c = <-p.free:
			case <-p.quit:
				return
			}
		}
		if need := len(carry) + chunkSize; cap(c.buf) < need {
			// Room for a longer carry next time, so a recycled chunk is
			// seldom allocated again.
			c.buf = make([]byte, 0, need+chunkSize/4)
		}
		c.buf = append(c.buf[:0], carry...)
		p.carried.Add(int64(len(carry)))
		c.newAt, c.off, c.err, c.lines = len(carry), off, nil, c.lines[:0]
		empty := 0
		for len(c.buf) < cap(c.buf) && c.err == nil {
			n, err := p.zr.Read(c.buf[len(c.buf):cap(c.buf)])
			c.buf = c.buf[:len(c.buf)+n]
			switch {
			case err != nil:
				c.err = err
			case n == 0:
				if empty++; empty > maxEmptyReads {
					c.err = io.ErrNoProgress
				}
			default:
				empty = 0
			}
		}
		c.in = cnt.n
		var corrupt *codec.CorruptError
		terminal := c.err != nil && !errors.As(c.err, &corrupt)
		carry, skipping = c.split(maxLine, maxCarry, skipping, terminal, carry[:0])
		if errors.As(c.err, &corrupt) {
			// The line loop drops the start of the line cut by damage.
			carry, skipping = carry[:0], false
		}
		off = c.off + int64(len(c.buf)) - int64(len(carry))
		c.worker = len(c.lines) > 0
		c.ready = make(chan struct{})
		if c.worker {
			select {
			case p.jobs <- c:
			case <-p.quit:
				return
			}
		} else {
			close(c.ready)
		}
		select {
		case p.chunks <- c:
		case <-p.quit:
			return
		}
		if terminal {
			return
		}
	}
}

// split lists the chunk's complete lines (the last one too when the stream
// ends with it) and returns the incomplete rest, copied into carry, unless
// it is longer than maxCarry. skipping says the chunk starts inside a line
// that is not decoded ahead (longer than maxCarry); the returned flag says
// the next one does.
func (c *chunk) split(maxLine, maxCarry int, skipping, terminal bool, carry []byte) ([]byte, bool) {
	start := 0
	for start < len(c.buf) {
		i := bytes.IndexByte(c.buf[start:], '\n')
		if i < 0 {
			break
		}
		if !skipping && i <= maxLine {
			c.lines = append(c.lines, aheadLine{off: c.off + int64(start), n: i})
		}
		skipping = false
		start += i + 1
	}
	rest := c.buf[start:]
	switch {
	case skipping || len(rest) > maxCarry:
		return carry, true
	case terminal:
		if len(rest) > 0 {
			c.lines = append(c.lines, aheadLine{off: c.off + int64(start), n: len(rest)})
		}
		return carry, false
	}
	return append(carry, rest...), false
}

// decode is one worker: it decodes the lines of each chunk it is given.
func (p *parallelInput) decode() {
	defer p.wg.Done()
	d := sparkevent.NewDecoder()
	d.SQLUpdatesOnly = p.sqlUpdatesOnly
	for {
		select {
		case c := <-p.jobs:
			for i := range c.lines {
				l := &c.lines[i]
				line := c.buf[l.off-c.off:][:l.n]
				if len(bytes.TrimSpace(line)) == 0 {
					continue // blank lines are not decoded
				}
				l.ev, l.err = d.Decode(line)
			}
			close(c.ready)
		case <-p.quit:
			return
		}
	}
}

// Read hands out the new data of the chunks, in order, then the error that
// ended each (a CorruptError, and at the end of the stream io.EOF or the
// terminal one).
func (p *parallelInput) Read(b []byte) (int, error) {
	for p.cur == nil || p.curAt == len(p.cur.buf) {
		if p.cur != nil && p.cur.err != nil {
			err := p.cur.err
			var corrupt *codec.CorruptError
			if errors.As(err, &corrupt) {
				p.cur.err = nil // reported once; the stream goes on
			} else {
				p.finished = true
			}
			return 0, err
		}
		c, ok := <-p.chunks
		if !ok {
			// Unreachable: the last chunk carries its error. Say so
			// rather than blocking.
			p.finished = true
			return 0, io.ErrUnexpectedEOF
		}
		p.release(p.cur)
		p.cur, p.curAt, p.lineAt = c, c.newAt, 0
	}
	rest := p.cur.buf[p.curAt:]
	if p.curAt == p.cur.newAt {
		// Only the line the chunk before left open is copied; the
		// complete lines after it are handed out in place by nextLine.
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			rest = rest[:i+1]
		}
	}
	n := copy(b, rest)
	p.curAt += n
	return n, nil
}

// nextLine hands out the next complete line of the current chunk in place,
// without copying it into the line loop's buffer, when the loop has nothing
// buffered and stands at decompressed offset at. ok is false when the loop
// must Read instead: no chunk yet, its lines are used up, or the next bytes
// are not a complete, newline-terminated line the producer listed (the
// start of an over-long line, the tail of the stream). The line is valid
// until the next Read.
func (p *parallelInput) nextLine(at int64) (line []byte, ok bool) {
	c := p.cur
	if c == nil {
		return nil, false
	}
	rel := c.off + int64(p.curAt)
	if at-p.startOut != rel {
		return nil, false
	}
	for p.lineAt < len(c.lines) && c.lines[p.lineAt].off < rel {
		p.lineAt++
	}
	if p.lineAt == len(c.lines) {
		return nil, false
	}
	l := &c.lines[p.lineAt]
	end := p.curAt + l.n
	if l.off != rel || end >= len(c.buf) {
		return nil, false
	}
	line = c.buf[p.curAt:end]
	p.curAt = end + 1 // the newline, which split found there
	return line, true
}

// release recycles a chunk once its worker is done with it.
func (p *parallelInput) release(c *chunk) {
	if c == nil {
		return
	}
	<-c.ready
	clear(c.lines) // drop the events
	p.free <- c    // never blocks: at most inFlight chunks exist
}

func (p *parallelInput) consumed() int64 {
	if p.cur == nil {
		return p.startIn
	}
	return p.cur.in
}

// boundary is the checkpoint only once the producer is done with the codec
// reader; before, the file is finished and read to its end in this poll,
// so the checkpoint kept is never resumed from.
func (p *parallelInput) boundary(out int64) codec.Checkpoint {
	if p.finished {
		return p.zr.Boundary(out)
	}
	return p.fallback
}

// decoded looks the line up in the chunk Read last handed out: the line
// loop handles every line as soon as Read completed it, so a line decoded
// ahead is in that chunk.
func (p *parallelInput) decoded(off int64, line []byte) (sparkevent.Event, error, bool) {
	c := p.cur
	if c == nil {
		return nil, nil, false
	}
	rel := off - p.startOut
	<-c.ready
	for p.lineAt < len(c.lines) && c.lines[p.lineAt].off < rel {
		p.lineAt++
	}
	if p.lineAt == len(c.lines) {
		return nil, nil, false
	}
	l := &c.lines[p.lineAt]
	if l.off != rel || l.n != len(line) || (l.ev == nil && l.err == nil) {
		return nil, nil, false
	}
	ev, err := l.ev, l.err
	l.ev, l.err = nil, nil
	p.lineAt++
	return ev, err, true
}
