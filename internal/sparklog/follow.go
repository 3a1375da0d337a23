package sparklog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
)

// Follower reads a log incrementally: each Poll delivers the complete events
// written since the previous one. It has no goroutine of its own; callers
// decide when to poll. Between polls it holds no open file, only offsets,
// so one process can follow many logs.
//
// A growing file is resumed at the last compressed block boundary before
// the held-back tail, never re-read from its start. The rename that ends a
// single-file log (x.inprogress → x) continues the same stream; a rolling
// log's new events_<n+1>_ files and its appstatus rename are picked up by
// listing its directory again. Zip and Databricks logs are read as they are.
//
// A Follower is not safe for concurrent use.
type Follower struct {
	log    Log
	h      Handler
	opts   Options
	states []*fileState // aligned with log.Files
	idx    int          // first file not read to its end
	// lastDone is the index (events_<n>_) of the last rolling file read to
	// its end: after a re-listing, reading goes on after it.
	lastDone int
	stats    Stats
	total    int64
	reported map[string]bool // log-level problems already delivered
	err      error           // the handler's: reading has stopped
	// identity is the single-file log's file as first read; rewritten is
	// set once that file was truncated or replaced by another.
	identity  os.FileInfo
	rewritten string
	// ahead is the input of the file being read, which may hold its lines
	// decoded ahead by other goroutines; set only inside decompress.
	ahead lineInput
	// versions is the ETag of each live object as last read
	// (readObjectVersion).
	versions map[*fileState]string
	// linesAhead counts the lines whose event came decoded ahead (tests
	// check that the parallel path was taken).
	linesAhead int64
	// linesInPlace counts the lines handled where a chunk holds them,
	// without a copy into the line buffer (tests check the copy is gone).
	linesInPlace int64
	// bytesCopied counts the bytes moved inside the reader (line buffer
	// compactions and growths, lines carried from chunk to chunk): tests
	// check it stays linear in the input.
	bytesCopied int64
}

// PollResult tells what one Poll did.
type PollResult struct {
	Events   int64 // events delivered by this poll
	Problems int64 // problems delivered by this poll
	Finished bool  // the application ended and its log has been read to the end
	// Rewritten says why a single-file log no longer continues what was
	// read (it shrank, or another file took its name): nothing more is
	// read, and the caller starts over with NewFollower(fo.Log()), taking
	// the log as a new generation of the application, or another one.
	Rewritten string
}

// NewFollower prepares to read log; nothing is read before the first Poll.
func NewFollower(log Log, h Handler, opts Options) *Follower {
	fo := &Follower{log: log, h: h, opts: opts, reported: map[string]bool{}}
	fo.log.Files = append([]LogFile(nil), log.Files...)
	for _, f := range fo.log.Files {
		fo.states = append(fo.states, newFileState(f))
	}
	return fo
}

// PollContext is Poll stopping, with ctx's error, once ctx is done: it is
// checked between reads, and an object-store read in flight is cancelled.
// What was read before is kept; the next poll goes on from there.
func (fo *Follower) PollContext(ctx context.Context) (PollResult, error) {
	saved := fo.opts.ctx
	fo.opts.ctx = ctx
	defer func() { fo.opts.ctx = saved }()
	return fo.Poll()
}

// Poll reads whatever complete events have appeared since the last call and
// returns. The error is non-nil when a file of the log cannot be opened (the
// next Poll tries again) or when the handler stopped reading (for good).
func (fo *Follower) Poll() (PollResult, error) {
	if fo.err != nil {
		return PollResult{}, fo.err
	}
	before := fo.stats
	for _, p := range fo.log.Problems {
		fo.logProblem(p)
	}
	if fo.rewritten != "" {
		return fo.result(before), nil
	}
	if fo.log.InProgress {
		if err := fo.refresh(); err != nil {
			return fo.result(before), err
		}
	}
	if fo.checkRewritten() {
		return fo.result(before), nil
	}
	fo.total = fo.currentTotal()
	relisted := false
	for fo.idx < len(fo.states) {
		st := fo.states[fo.idx]
		final := !fo.log.InProgress || fo.idx < len(fo.states)-1
		err := fo.readObjectVersion(st, final)
		if errors.Is(err, fs.ErrNotExist) && fo.log.InProgress && !relisted && fo.refreshable() {
			// Renamed between the listing and the open: look again, once
			// per Poll — a file that stays missing (a dangling link) is
			// returned as an error and tried again at the next Poll.
			relisted = true
			if rerr := fo.refresh(); rerr != nil {
				return fo.result(before), rerr
			}
			continue
		}
		if err != nil {
			var he handlerErr
			if errors.As(err, &he) {
				fo.err = he.err
				err = he.err
			}
			return fo.result(before), err
		}
		fo.noteIdentity(st)
		if !st.done {
			break
		}
		st.pending = 0
		fo.lastDone = max(fo.lastDone, st.file.Index)
		fo.idx++
		fo.reportProgress()
	}
	return fo.result(before), nil
}

// handlerErr marks errors that came from the Handler.
type handlerErr struct{ err error }

func (e handlerErr) Error() string { return e.err.Error() }
func (e handlerErr) Unwrap() error { return e.err }

func (fo *Follower) result(before Stats) PollResult {
	return PollResult{
		Events:    fo.stats.Events - before.Events,
		Problems:  fo.stats.Problems - before.Problems,
		Finished:  fo.Finished() && fo.rewritten == "",
		Rewritten: fo.rewritten,
	}
}

// noteIdentity remembers which file a single-file log is, once something
// of it was read.
func (fo *Follower) noteIdentity(st *fileState) {
	if fo.identity != nil || fo.log.Layout != LayoutFile || st.inPos == 0 {
		return
	}
	if info, err := statPath(st.file.Path); err == nil {
		fo.identity = info
	}
}

// checkRewritten notices a live single-file log that no longer continues
// what was read: shorter than what was read (truncated, or rewritten from
// the start), or another file under its name (the final rename keeps the
// file, so it is not one). Reading it on would mix two generations.
func (fo *Follower) checkRewritten() bool {
	if fo.log.Layout != LayoutFile || len(fo.states) != 1 || fo.identity == nil {
		return false
	}
	st := fo.states[0]
	info, err := statPath(st.file.Path)
	if err != nil {
		return false // reading reports it
	}
	switch {
	case !sameFile(info, fo.identity):
		fo.rewritten = fmt.Sprintf("%s was replaced by another file after %d bytes were read", st.file.Path, st.inPos)
	case info.Size() < st.inPos:
		fo.rewritten = fmt.Sprintf("%s shrank to %d bytes after %d were read", st.file.Path, info.Size(), st.inPos)
	default:
		return false
	}
	return true
}

// Finished reports whether the application has ended and every file of its
// log has been read to the end.
func (fo *Follower) Finished() bool {
	return !fo.log.InProgress && fo.idx >= len(fo.states)
}

// Log returns the log as last seen: after the final rename its path and
// InProgress change, and a rolling log gains files.
func (fo *Follower) Log() Log { return fo.log }

// Stats returns the totals so far.
func (fo *Follower) Stats() Stats {
	s := fo.stats
	s.ByType = maps.Clone(fo.stats.ByType)
	s.BytesIn, s.BytesOut, s.Pending, s.Files = 0, 0, 0, 0
	for _, st := range fo.states {
		s.BytesIn += st.inPos
		s.BytesOut += st.outDone
		s.Pending += st.pending
		if st.size >= 0 {
			s.Files++
		}
	}
	s.Finished = fo.Finished()
	return s
}

// Progress returns the compressed bytes consumed and the log's total size
// as of the last Poll.
func (fo *Follower) Progress() Progress {
	var done int64
	for _, st := range fo.states {
		if st.done {
			done += max(st.size, st.inPos) // skipped parts count as dealt with
		} else {
			done += st.inPos
		}
	}
	return Progress{Done: done, Total: max(fo.total, done)}
}

func (fo *Follower) reportProgress() {
	if fo.opts.OnProgress != nil {
		fo.opts.OnProgress(fo.Progress())
	}
}

func (fo *Follower) currentTotal() int64 {
	var total int64
	for _, st := range fo.states {
		if st.done {
			total += max(st.size, st.inPos)
			continue
		}
		if size, err := statFile(st.file); err == nil {
			total += size
		}
	}
	return total
}

// problem delivers damage found in a file.
func (fo *Follower) problem(st *fileState, p Problem) {
	if st != nil {
		st.problems++
	}
	fo.stats.Problems++
	fo.h.Problem(p)
}

// logProblem delivers a problem of the log's layout once, however often a
// re-listing finds it again.
func (fo *Follower) logProblem(p Problem) {
	key := p.String()
	if fo.reported[key] {
		return
	}
	fo.reported[key] = true
	fo.problem(nil, p)
}

// refreshable tells whether the log's layout can change while followed:
// Databricks directories and zips are read as they are.
func (fo *Follower) refreshable() bool {
	return fo.log.Layout != LayoutDatabricks && !isZipName(fo.log.Path)
}

// refresh looks at a live log's files again.
func (fo *Follower) refresh() error {
	if !fo.refreshable() {
		return nil // neither grows in a way that can be followed
	}
	switch fo.log.Layout {
	case LayoutFile:
		return fo.refreshSingle()
	case LayoutRolling:
		return fo.refreshRolling()
	}
	return nil
}

// refreshSingle notices the rename x.inprogress → x. The stream goes on in
// the renamed file; readFile checks that it is not shorter than what was
// already read.
func (fo *Follower) refreshSingle() error {
	st := fo.states[0]
	live := st.file.Path
	if _, err := statPath(live); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	final := strings.TrimSuffix(live, inProgressSuffix)
	if _, err := statPath(final); err != nil {
		return fmt.Errorf("live log %s vanished and %s does not exist: %w", live, final, err)
	}
	st.file.Path = final
	fo.log.Files[0].Path = final
	fo.log.Path = final
	fo.log.InProgress = false
	return nil
}

// refreshRolling lists a rolling directory again: new events files, the
// appstatus rename, and compaction that replaced files already read.
func (fo *Follower) refreshRolling() error {
	nl, err := discoverRolling(fo.log.Path)
	if err != nil {
		return err
	}
	for _, p := range nl.Problems {
		fo.logProblem(p)
	}
	old := map[string]*fileState{}
	for _, st := range fo.states {
		old[st.file.Path] = st
	}
	states := make([]*fileState, len(nl.Files))
	idx := len(nl.Files)
	for i, f := range nl.Files {
		st := old[f.Path]
		if st == nil {
			st = newFileState(f)
		}
		states[i] = st
		if idx == len(nl.Files) && !st.done && f.Index > fo.lastDone {
			idx = i
		}
	}
	if fo.idx < len(fo.states) {
		if cur := fo.states[fo.idx]; cur.size >= 0 && !slices.Contains(states, cur) {
			fo.logProblem(Problem{File: cur.file.Ref(), Kind: ProblemMissingFile,
				Reason: "the events file being read vanished (compacted or deleted); its unread events are lost"})
		}
	}
	if idx < len(states) && fo.lastDone > 0 && states[idx].file.Index > fo.lastDone+1 {
		fo.logProblem(Problem{File: fo.log.Path, Kind: ProblemMissingFile, Reason: gapReason(fo.lastDone, states[idx].file.Index)})
	}
	fo.log.Files = nl.Files
	fo.log.InProgress = nl.InProgress
	fo.states = states
	fo.idx = idx
	return nil
}
