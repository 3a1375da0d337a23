package sparklog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/sparkglance/sparkglance/internal/sparklog/codec"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// Thresholds of the "is this an event log at all" checks.
const (
	// notLogAfter bad lines before any good one make the file "not an event
	// log": one problem instead of one per line, and the rest is skipped.
	notLogAfter = 3
	// binarySniffLen bytes at the start of a file are checked for control
	// characters, which JSON text never holds unescaped.
	binarySniffLen = 512
	// headLen bytes are read to detect the codec; every magic is shorter.
	headLen = 16
	// progressEvery bytes of input between two OnProgress calls.
	progressEvery = 4 << 20
	// maxEmptyReads guards against a decoder that returns nothing forever.
	maxEmptyReads = 1000
)

// fileState is the reading state of one file, kept between polls so a live
// file is resumed where it stopped instead of re-read.
type fileState struct {
	file     LogFile
	codec    codec.Codec
	detected bool
	cp       codec.Checkpoint // reopen here…
	outDone  int64            // …and skip to this decompressed offset: every byte before it was handled
	inPos    int64            // compressed bytes consumed (progress)
	readIn   int64            // compressed bytes read over all polls, re-reads included
	size     int64            // size seen by the last read, -1 before it
	wasFinal bool
	pending  int64 // bytes of the incomplete tail held back

	line         int64     // physical lines handled
	lines        int64     // non-blank lines
	goodLine     bool      // some line decoded: this is an event log
	leadingBad   []Problem // bad lines before the first good one, held back
	firstBad     string    // what was wrong with the first of them, in words that quote no content
	skippingLong bool      // inside an over-long line, discarding to its newline
	afterCorrupt bool      // the next line follows damaged data and may be a fragment
	sniffed      bool
	problems     int
	done         bool
}

func newFileState(f LogFile) *fileState { return &fileState{file: f, size: -1} }

// readFile reads what is new in one file. final says the file will not grow
// any more: its end is the end (a cut last line is a problem); otherwise an
// incomplete tail is held back for the next poll. The error is an open
// failure or the handler's.
func (fo *Follower) readFile(st *fileState, final bool) error {
	if err := fo.opts.stopped(); err != nil {
		return err
	}
	size, err := statFile(st.file)
	if err != nil {
		return err
	}
	if size < st.inPos {
		fo.problem(st, Problem{File: st.file.Ref(), Kind: ProblemFileShrank,
			Reason: fmt.Sprintf("file shrank to %d bytes after %d were read; the rest of it is skipped", size, st.inPos)})
		st.done = true
		return nil
	}
	if size == st.size && final == st.wasFinal {
		return nil // nothing new
	}
	if !final && size == 0 {
		return nil // a live file not written yet
	}
	src, err := openFile(fo.opts.context(), st.file, st.cp.In)
	if err != nil {
		return err
	}
	defer src.Close()
	st.size, st.wasFinal = size, final
	var r io.Reader = src
	if !st.detected {
		head := make([]byte, headLen)
		n, err := io.ReadFull(src, head)
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			return err
		}
		head = head[:n]
		if !fo.detectCodec(st, head, final) {
			return nil
		}
		r = io.MultiReader(bytes.NewReader(head), src)
	}
	return fo.decompress(st, r, final)
}

// detectCodec settles the file's codec from its name and first bytes,
// reporting disagreements. false means: skip the file (st.done) or, for a
// live file too short to tell, wait.
func (fo *Follower) detectCodec(st *fileState, head []byte, final bool) bool {
	name := st.file.Name()
	if len(head) == 0 {
		if final {
			fo.problem(st, Problem{File: st.file.Ref(), Kind: ProblemEmptyFile, Reason: "the file is empty"})
			st.done = true
		}
		return false
	}
	c, err := codec.Detect(name, head)
	if err == nil {
		st.codec, st.detected = c, true
		return true
	}
	byName, nameErr := codec.FromName(name)
	byContent, sniffed := codec.Sniff(head)
	switch {
	case sniffed && nameErr != nil:
		fo.problem(st, Problem{File: st.file.Ref(), Kind: ProblemUnknownCodec,
			Reason: fmt.Sprintf("%v; the content is %s, read as such", nameErr, byContent)})
		st.codec, st.detected = byContent, true
		return true
	case sniffed:
		fo.problem(st, Problem{File: st.file.Ref(), Kind: ProblemCodecMismatch,
			Reason: fmt.Sprintf("%v; read as %s", err, byContent)})
		st.codec, st.detected = byContent, true
		return true
	case !final && len(head) < headLen:
		return false // too little of a live file to judge
	case nameErr != nil || byName == codec.Plain:
		fo.problem(st, Problem{File: st.file.Ref(), Kind: ProblemNotEventLog,
			Reason: "not a Spark event log: it starts neither with JSON nor with a known compression format; skipped"})
	default:
		fo.problem(st, Problem{File: st.file.Ref(), Kind: ProblemCodecMismatch,
			Reason: fmt.Sprintf("%v; the file is skipped", err)})
	}
	st.done = true
	return false
}

// decompress runs the codec over src (positioned at st.cp.In) and hands
// complete lines on.
func (fo *Follower) decompress(st *fileState, src io.Reader, final bool) error {
	base := st.cp.In
	cnt := &countingReader{r: src}
	zr, err := codec.NewReader(st.codec, cnt, st.cp)
	if err != nil {
		fo.problem(st, Problem{File: st.file.Ref(), Kind: ProblemIO, Reason: err.Error()})
		st.done = true
		return nil
	}
	expect := int64(-1) // unknown: compressed
	if st.codec == codec.Plain {
		expect = st.size - st.cp.In + 1
	}
	lb := newLineBuffer(fo.opts.maxLine()+1, expect)
	skip := st.outDone - st.cp.Out // handled in an earlier poll
	var in lineInput = serialInput{zr: zr, cnt: cnt}
	workers := 1
	if final {
		workers = fo.opts.decodeWorkers(st.size - st.cp.In)
	}
	var par *parallelInput
	defer func() {
		if par != nil {
			par.stop()
			fo.bytesCopied += par.carried.Load()
		}
		fo.bytesCopied += lb.copied
		fo.ahead = nil
	}()
	empty := 0
	lastProgress, counted := in.consumed(), in.consumed()
	for {
		if par != nil && !st.skippingLong && len(lb.pending()) == 0 {
			if err := fo.drainInPlace(st, par); err != nil || st.done {
				return err
			}
		}
		space := lb.space()
		if space == nil {
			if err := fo.lineTooLong(st, lb); err != nil || st.done {
				return err
			}
			continue
		}
		if err := fo.opts.stopped(); err != nil {
			return err
		}
		if par == nil && workers > 1 {
			// Small first reads: decoding ahead starts once the file has
			// shown it is an event log.
			space = space[:min(len(space), fo.opts.chunkSize())]
		}
		n, rerr := in.Read(space)
		lb.wrote(n)
		if skip > 0 {
			skip -= int64(lb.dropFront(int(min(skip, int64(n)))))
		}
		consumed := in.consumed()
		st.readIn += consumed - counted
		counted = consumed
		st.inPos = max(st.inPos, base+consumed)
		if err := fo.drainLines(st, lb, false); err != nil || st.done {
			return err
		}
		st.cp = in.boundary(st.outDone)
		if consumed-lastProgress >= progressEvery {
			lastProgress = consumed
			fo.reportProgress()
		}
		var corrupt *codec.CorruptError
		switch {
		case rerr == nil:
			if par == nil && workers > 1 && skip == 0 && st.sniffed && st.goodLine {
				// The file is an event log, what an earlier poll handled is
				// skipped: from here on, decode ahead. Deciding only now
				// keeps a file given up early (not a log) read exactly as
				// on one goroutine, down to the bytes it consumed.
				par = fo.startParallel(st, zr, cnt, st.outDone+int64(len(lb.pending())), workers)
				in, fo.ahead = par, par
			}
			if n == 0 {
				if empty++; empty > maxEmptyReads {
					return fo.ioFailure(st, io.ErrNoProgress)
				}
			} else {
				empty = 0
			}
		case errors.Is(rerr, io.EOF):
			return fo.endOfData(st, in, lb, final, nil)
		case errors.Is(rerr, codec.ErrTruncated):
			return fo.endOfData(st, in, lb, final, rerr)
		case errors.As(rerr, &corrupt):
			fo.problem(st, Problem{File: st.file.Ref(), Line: st.line + 1, Offset: corrupt.Offset, Kind: ProblemCorruptData,
				Reason: corrupt.Error() + "; the damaged data is skipped"})
			// The partial line before the damage cannot be completed.
			st.outDone += int64(lb.dropAll())
			st.afterCorrupt = true
		default:
			if err := fo.opts.stopped(); err != nil {
				return err // a read cut by the context: the file is not damaged
			}
			return fo.ioFailure(st, rerr)
		}
	}
}

func (fo *Follower) ioFailure(st *fileState, err error) error {
	fo.problem(st, Problem{File: st.file.Ref(), Line: st.line + 1, Kind: ProblemIO,
		Reason: fmt.Sprintf("reading failed after line %d: %v; the rest of the file is skipped", st.line, err)})
	st.done = true
	return nil
}

// lineTooLong reports a line that filled the whole buffer and starts
// discarding it.
func (fo *Follower) lineTooLong(st *fileState, lb *lineBuffer) error {
	p := Problem{File: st.file.Ref(), Line: st.line + 1, Offset: st.outDone, Kind: ProblemLineTooLong,
		Reason: fmt.Sprintf("line longer than %d bytes (Options.MaxLineBytes); skipped to the next newline", fo.opts.maxLine())}
	st.outDone += int64(lb.dropAll())
	st.skippingLong = true
	return fo.badLine(st, p, fmt.Sprintf("line %d is longer than %d bytes", p.Line, fo.opts.maxLine()))
}

// drainLines handles every complete line buffered. eof says no more data
// will come in this poll.
func (fo *Follower) drainLines(st *fileState, lb *lineBuffer, eof bool) error {
	if !st.sniffed && st.outDone == 0 {
		head := lb.pending()
		if len(head) < binarySniffLen && !eof {
			return nil // judge the file on a fuller start
		}
		st.sniffed = true
		if at, ok := binaryAt(head[:min(len(head), binarySniffLen)]); ok {
			fo.problem(st, Problem{File: st.file.Ref(), Kind: ProblemNotEventLog, Offset: int64(at),
				Reason: fmt.Sprintf("not a Spark event log: binary data (a control character JSON text cannot hold) at decompressed offset %d; skipped", at)})
			st.done = true
			return nil
		}
	}
	for {
		if st.skippingLong {
			n, found := lb.skipLine()
			st.outDone += int64(n)
			if !found {
				return nil
			}
			st.skippingLong = false
			st.line++
			continue
		}
		line, ok := lb.next()
		if !ok {
			return nil
		}
		off := st.outDone
		st.outDone += int64(len(line)) + 1
		st.line++
		if err := fo.handleLine(st, line, off, false); err != nil || st.done {
			return err
		}
	}
}

// drainInPlace handles the complete lines of the chunk par holds where
// they lie, as drainLines would after copying them into the line buffer.
func (fo *Follower) drainInPlace(st *fileState, par *parallelInput) error {
	for {
		line, ok := par.nextLine(st.outDone)
		if !ok {
			return nil
		}
		off := st.outDone
		st.outDone += int64(len(line)) + 1
		st.line++
		fo.linesInPlace++
		if err := fo.handleLine(st, line, off, false); err != nil || st.done {
			return err
		}
	}
}

// endOfData handles the end of the data available now. truncErr is non-nil
// when the input ended inside a compressed block.
func (fo *Follower) endOfData(st *fileState, in lineInput, lb *lineBuffer, final bool, truncErr error) error {
	if err := fo.drainLines(st, lb, true); err != nil || st.done {
		return err
	}
	if !final {
		st.cp = in.boundary(st.outDone)
		st.pending = int64(len(lb.pending()))
		return nil // live: the tail is re-read from st.cp next time
	}
	st.pending = 0
	if truncErr != nil {
		// The unfinished block starts at the last boundary Read reached.
		blockStart := in.boundary(st.outDone + int64(len(lb.pending()))).In
		fo.problem(st, Problem{File: st.file.Ref(), Line: st.line + 1, Offset: blockStart, Kind: ProblemTruncatedData,
			Reason: fmt.Sprintf("%v; the file is finished, so its last block is lost", truncErr)})
	}
	tail := lb.pending()
	if !st.skippingLong && len(bytes.TrimSpace(tail)) > 0 {
		off := st.outDone
		st.outDone += int64(len(tail))
		st.line++
		if err := fo.handleLine(st, tail, off, truncErr == nil); err != nil {
			return err
		}
	}
	lb.dropAll()
	st.done = true
	if !st.goodLine && len(st.leadingBad) > 0 {
		fo.notEventLog(st)
	}
	if st.lines == 0 && st.problems == 0 {
		fo.problem(st, Problem{File: st.file.Ref(), Kind: ProblemEmptyFile, Reason: "the file holds no event"})
	}
	return nil
}

// handleLine decodes one line. unterminated marks the last line of a
// finished file that lacks its newline: if it does not decode, it was cut.
func (fo *Follower) handleLine(st *fileState, line []byte, off int64, unterminated bool) error {
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	st.lines++
	fo.stats.Lines++
	var ev sparkevent.Event
	var err error
	ok := false
	if fo.ahead != nil {
		ev, err, ok = fo.ahead.decoded(off, line)
	}
	if ok {
		fo.linesAhead++
	} else if fo.opts.SQLUpdatesOnly {
		ev, err = sparkevent.DecodeLineSQLUpdates(line)
	} else {
		ev, err = sparkevent.DecodeLine(line)
	}
	if err != nil {
		if st.afterCorrupt {
			st.afterCorrupt = false // a fragment of the damaged region, already reported
			return nil
		}
		p := Problem{File: st.file.Ref(), Line: st.line, Offset: off, Kind: ProblemMalformedJSON,
			Reason: fmt.Sprintf("%v (line starts %q)", err, printable(line))}
		what := fmt.Sprintf("line %d is JSON but not a Spark event", st.line)
		if de := (*sparkevent.DecodeError)(nil); errors.As(err, &de) && de.Syntax {
			what = fmt.Sprintf("line %d is not JSON", st.line)
		}
		if unterminated {
			p.Kind = ProblemTruncatedLine
			p.Reason = fmt.Sprintf("last line is cut short (%d bytes, no newline): %v", len(line), err)
			what = fmt.Sprintf("its last line, %d, is cut short", st.line)
		}
		return fo.badLine(st, p, what)
	}
	st.afterCorrupt = false
	if !st.goodLine {
		st.goodLine = true
		for _, p := range st.leadingBad {
			fo.problem(st, p)
		}
		st.leadingBad = nil
	}
	fo.stats.countEvent(ev.EventType())
	if err := fo.h.Event(Position{File: st.file.Ref(), Line: st.line, Offset: off}, ev); err != nil {
		return handlerErr{err}
	}
	return nil
}

// badLine reports a line that is not an event, unless the file has not yet
// shown a single event: then the problem waits, and notLogAfter of them
// make the whole file "not an event log". what describes the line without
// quoting it: a file that turns out not to be an event log may hold
// anything, and none of it belongs in a problem.
func (fo *Follower) badLine(st *fileState, p Problem, what string) error {
	if st.goodLine {
		fo.problem(st, p)
		return nil
	}
	if len(st.leadingBad) == 0 {
		st.firstBad = what
	}
	st.leadingBad = append(st.leadingBad, p)
	if len(st.leadingBad) >= notLogAfter {
		fo.notEventLog(st)
		st.done = true
	}
	return nil
}

func (fo *Follower) notEventLog(st *fileState) {
	first := st.leadingBad[0]
	fo.problem(st, Problem{File: st.file.Ref(), Line: first.Line, Offset: first.Offset, Kind: ProblemNotEventLog,
		Reason: fmt.Sprintf("not a Spark event log: its first %d line(s) are not Spark events (%s); the rest of the file is skipped",
			len(st.leadingBad), st.firstBad)})
	st.leadingBad = nil
}

// binaryAt finds a control character that JSON text cannot hold.
func binaryAt(b []byte) (int, bool) {
	for i, c := range b {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' {
			return i, true
		}
	}
	return 0, false
}

// printable shortens b for a problem message.
func printable(b []byte) string {
	const n = 40
	if len(b) > n {
		b = b[:n]
	}
	for !utf8.Valid(b) && len(b) > 0 {
		b = b[:len(b)-1]
	}
	return string(b)
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
