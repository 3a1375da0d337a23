package codec

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// sourceShape is a way the compressed input may arrive: whole, a byte at a
// time, in halves, with the final io.EOF on the last data, or as the file
// reader delivers it: the 16 bytes it sniffed, then the rest. Every decoder must give the same result
// for each; a decoder that keeps a peeked slice after the source moved does
// not.
type sourceShape struct {
	name string
	wrap func(io.Reader) io.Reader
}

var sourceShapes = []sourceShape{
	{"plain", func(r io.Reader) io.Reader { return r }},
	{"one-byte", iotest.OneByteReader},
	{"half", iotest.HalfReader},
	{"data-err", iotest.DataErrReader},
	{"sniffed-prefix", func(r io.Reader) io.Reader { return io.MultiReader(io.LimitReader(r, 16), r) }},
}

var plainShape = sourceShapes[0]

// drained is everything a Reader produced until a final error.
type drained struct {
	data     []byte
	corrupts []*CorruptError
	final    error // io.EOF, a truncation or another error
}

// drain reads r to its final error, collecting CorruptErrors on the way.
// The loop is bounded by maxReads so a Reader that never ends fails the test.
func drain(t testing.TB, r *Reader, bufSize int) drained {
	t.Helper()
	var d drained
	buf := make([]byte, bufSize)
	const maxReads = 50_000_000
	for range maxReads {
		n, err := r.Read(buf)
		d.data = append(d.data, buf[:n]...)
		var ce *CorruptError
		switch {
		case err == nil:
		case errors.As(err, &ce):
			d.corrupts = append(d.corrupts, ce)
		default:
			d.final = err
			return d
		}
	}
	t.Fatalf("reader still producing after %d reads", maxReads)
	return d
}

// decodeBytes decodes a whole in-memory file from its start.
func decodeBytes(t testing.TB, c Codec, file []byte) drained {
	t.Helper()
	return decodeShaped(t, c, file, plainShape)
}

// decodeShaped decodes a whole in-memory file delivered in the given shape.
func decodeShaped(t testing.TB, c Codec, file []byte, shape sourceShape) drained {
	t.Helper()
	r, err := NewReader(c, shape.wrap(bytes.NewReader(file)), Checkpoint{})
	if err != nil {
		t.Fatal(err)
	}
	return drain(t, r, 7919)
}

// isTruncated reports whether err says the input ended inside a block.
func isTruncated(err error) bool { return errors.Is(err, ErrTruncated) }
