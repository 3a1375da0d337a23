package codec

import (
	"bufio"
	"errors"
	"io"
	"slices"
)

// source is the compressed input. It counts the bytes the decoders consume,
// so every boundary knows its offset in the file.
type source struct {
	br  *bufio.Reader
	off int64 // file offset of the next unconsumed byte
}

// sourceBufSize is the compressed-input buffer. A plain log needs none
// (its decoder reads 32 KiB at a time, which bufio passes straight
// through), so it gets a small one: reading thousands of tiny logs then
// costs no 64 KiB each.
const (
	sourceBufSize      = 64 << 10
	plainSourceBufSize = 4 << 10
)

func newSource(r io.Reader, off int64, size int) *source {
	return &source{br: bufio.NewReaderSize(r, size), off: off}
}

func (s *source) Read(p []byte) (int, error) {
	n, err := s.br.Read(p)
	s.off += int64(n)
	return n, err
}

func (s *source) ReadByte() (byte, error) {
	b, err := s.br.ReadByte()
	if err == nil {
		s.off++
	}
	return b, err
}

// peek returns up to n upcoming bytes without consuming them; fewer only at
// the end of the input (or on a read error, which is returned). The slice
// points into the buffer: it is valid only until the next read, discard or
// skip, so callers take what they need from it first.
func (s *source) peek(n int) ([]byte, error) {
	b, err := s.br.Peek(n)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return b, err
}

func (s *source) discard(n int) {
	d, _ := s.br.Discard(n)
	s.off += int64(d)
}

// skip consumes n bytes; it returns io.ErrUnexpectedEOF when fewer remain.
func (s *source) skip(n int64) error {
	d, err := io.CopyN(io.Discard, s, n)
	if d < n && (err == nil || errors.Is(err, io.EOF)) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// readChunkLimit is the largest piece readN allocates before the data has
// arrived, so a huge declared length in a short (or hostile) file costs
// memory only in proportion to the bytes actually present.
const readChunkLimit = 1 << 20

// readN reads exactly n bytes into buf (reused). It returns
// io.ErrUnexpectedEOF when the input ends first, with what was read.
func (s *source) readN(buf []byte, n int) ([]byte, error) {
	buf = buf[:0]
	for len(buf) < n {
		chunk := min(n-len(buf), readChunkLimit)
		buf = slices.Grow(buf, chunk)
		m, err := io.ReadFull(s, buf[len(buf):len(buf)+chunk])
		buf = buf[:len(buf)+m]
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return buf, err
		}
	}
	return buf, nil
}

// resync skips bytes until the upcoming ones look like the start of a
// block (isStart is given at most want bytes; fewer at the end of the
// input, which it should accept when they are a prefix of a magic so the
// next read reports truncation). It returns nil positioned there, or at the
// end of the input.
func (s *source) resync(want int, isStart func([]byte) bool) error {
	for {
		b, err := s.peek(want)
		if err != nil {
			return err
		}
		if len(b) == 0 || isStart(b) {
			return nil
		}
		s.discard(1)
	}
}
