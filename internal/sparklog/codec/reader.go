package codec

import (
	"errors"
	"fmt"
	"io"
	"sort"
)

// Checkpoint is a block or frame boundary: In is the offset in the
// compressed file, Out the offset in the decompressed stream.
type Checkpoint struct{ In, Out int64 }

// stepper decodes one codec's format a piece at a time.
type stepper interface {
	// step returns the next decoded bytes, valid until the next call.
	// boundary reports that the source's current offset is a block or frame
	// boundary lying just after data. err is io.EOF at a clean end, wraps
	// ErrTruncated, is a *CorruptError (after which step continues with the
	// next intact block) or an I/O error.
	step() (data []byte, boundary bool, err error)
}

// intoStepper is a stepper that can also decode straight into the
// caller's buffer: Read then spares the copy through the decoder's own.
type intoStepper interface {
	// stepInto is step writing its data into p; n bytes of it.
	stepInto(p []byte) (n int, boundary bool, err error)
}

// releaser is a stepper holding resources another Reader can use once its
// stream has ended.
type releaser interface{ release() }

// maxCheckpoints bounds the boundaries a Reader remembers between two
// Boundary calls; see Reader.
const maxCheckpoints = 512

// Reader decompresses an event log and remembers block boundaries so that a
// live file can be reopened where reading stopped.
//
// Memory does not grow with the file: a Reader keeps only the boundaries
// whose Out is at or after the one the last Boundary call returned (callers
// must ask with non-decreasing offsets), and at most maxCheckpoints of them;
// when more pile up between two calls every second one is dropped. Boundary
// may then return an earlier boundary than the latest, which is still
// correct: the caller just discards more bytes after reopening.
type Reader struct {
	codec    Codec
	src      *source
	dec      stepper
	pending  []byte // decoded bytes not yet returned by Read
	produced int64  // decompressed offset just after pending
	queued   error  // a CorruptError to return once pending is drained
	final    error  // io.EOF, truncation or an I/O error: returned for good
	marks    []Checkpoint
	start    Checkpoint
}

// NewReader decompresses src, which must be positioned at at.In: a boundary
// an earlier Reader's Boundary returned, or {0, 0}.
func NewReader(c Codec, src io.Reader, at Checkpoint) (*Reader, error) {
	if at.In < 0 || at.Out < 0 {
		return nil, fmt.Errorf("codec: invalid checkpoint %+v", at)
	}
	bufSize := sourceBufSize
	if c == Plain {
		bufSize = plainSourceBufSize
	}
	s := newSource(src, at.In, bufSize)
	r := &Reader{codec: c, src: s, produced: at.Out, start: at, marks: []Checkpoint{at}}
	var err error
	switch c {
	case Plain:
		r.dec = &plainDecoder{src: s}
	case Gzip:
		r.dec = newGzipDecoder(s)
	case Zstd:
		r.dec, err = newZstdDecoder(s)
	case LZ4:
		r.dec = &lz4Decoder{src: s}
	case Snappy:
		r.dec = &snappyDecoder{src: s, expectHeader: at.In == 0}
	case LZF:
		r.dec = &lzfDecoder{src: s}
	default:
		return nil, fmt.Errorf("codec: unknown codec %q", c)
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Read returns decompressed bytes. Its errors are io.EOF (the input ended
// at a boundary), an error wrapping ErrTruncated (it ended inside a block:
// for a live log, not written yet), a *CorruptError (returned once per
// damaged region; the next Read continues with the next intact block), or
// an I/O error from the source. io.EOF, truncation and I/O errors are
// final: to follow a growing file, reopen it at Boundary.
func (r *Reader) Read(p []byte) (int, error) {
	for len(r.pending) == 0 {
		if r.queued != nil {
			err := r.queued
			r.queued = nil
			return 0, err
		}
		if r.final != nil {
			return 0, r.final
		}
		if len(p) == 0 {
			return 0, nil
		}
		if into, ok := r.dec.(intoStepper); ok {
			n, boundary, err := into.stepInto(p)
			r.stepped(int64(n), boundary, err)
			if n > 0 {
				return n, nil
			}
			continue
		}
		data, boundary, err := r.dec.step()
		r.pending = data
		r.stepped(int64(len(data)), boundary, err)
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

// stepped accounts for one step that produced n bytes.
func (r *Reader) stepped(n int64, boundary bool, err error) {
	r.produced += n
	if boundary {
		r.mark(Checkpoint{In: r.src.off, Out: r.produced})
	}
	var ce *CorruptError
	switch {
	case err == nil:
	case errors.As(err, &ce):
		r.queued = err
	default:
		r.final = err
		if rel, ok := r.dec.(releaser); ok {
			rel.release()
		}
	}
}

// Boundary returns the latest boundary whose Out is <= out, where out is a
// decompressed offset Read has already reached (typically just after the
// last complete line). Reopening the file at cp.In with
// NewReader(codec, f, cp) and discarding out-cp.Out bytes continues the
// stream exactly. Calls must use non-decreasing out; earlier boundaries are
// forgotten. For Plain, Boundary(out) is {out, out} shifted by the start
// checkpoint.
func (r *Reader) Boundary(out int64) Checkpoint {
	if r.codec == Plain {
		return Checkpoint{In: r.start.In + out - r.start.Out, Out: out}
	}
	i := sort.Search(len(r.marks), func(i int) bool { return r.marks[i].Out > out }) - 1
	if i < 0 {
		// out lies before every boundary kept: the caller broke the
		// non-decreasing rule. The earliest kept one is the best left.
		return r.marks[0]
	}
	cp := r.marks[i]
	r.marks = append(r.marks[:0], r.marks[i:]...)
	return cp
}

func (r *Reader) mark(cp Checkpoint) {
	if r.codec == Plain {
		return
	}
	r.marks = append(r.marks, cp)
	if len(r.marks) <= maxCheckpoints {
		return
	}
	last := r.marks[len(r.marks)-1]
	kept := r.marks[:1]
	for i := 2; i < len(r.marks)-1; i += 2 {
		kept = append(kept, r.marks[i])
	}
	r.marks = append(kept, last)
}
