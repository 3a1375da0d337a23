package sparklog

import "bytes"

// lineBuffer splits a byte stream into lines without copying them out. It
// grows up to max bytes (one line plus its newline); a longer line is the
// caller's to discard with dropAll.
type lineBuffer struct {
	buf        []byte
	start, end int // unread bytes are buf[start:end]
	scanned    int // buf[start:scanned] has no newline
	max        int
	first      int   // size of the first allocation
	copied     int64 // bytes moved by compactions and growths (tests check it stays linear)
}

const initialLineBuffer = 256 << 10

// newLineBuffer returns a buffer for lines of up to maxLen bytes. expect is
// how many bytes are coming, if known (else <= 0): a small file gets a
// small first buffer, so reading thousands of tiny logs (a zip export)
// does not allocate and clear a full-size buffer for each.
func newLineBuffer(maxLen int, expect int64) *lineBuffer {
	first := min(initialLineBuffer, maxLen)
	if expect > 0 && expect < int64(first) {
		first = int(max(expect, 4<<10))
	}
	return &lineBuffer{max: maxLen, first: first}
}

// space returns the free tail to read into, making room first; it returns
// nil when the buffer is full of one line longer than max.
func (b *lineBuffer) space() []byte {
	if b.end < len(b.buf) {
		return b.buf[b.end:]
	}
	if b.start > 0 {
		n := copy(b.buf, b.buf[b.start:b.end])
		b.copied += int64(n)
		b.scanned -= b.start
		b.start, b.end = 0, n
		if b.end < len(b.buf) {
			return b.buf[b.end:]
		}
	}
	if len(b.buf) >= b.max {
		return nil
	}
	size := max(2*len(b.buf), b.first)
	size = min(size, b.max)
	nb := make([]byte, size)
	b.copied += int64(copy(nb, b.buf[b.start:b.end]))
	b.buf = nb
	return b.buf[b.end:]
}

func (b *lineBuffer) wrote(n int) { b.end += n }

// next returns the next complete line without its newline; ok is false when
// only part of a line is buffered. The slice is valid until the next call
// to space.
func (b *lineBuffer) next() (line []byte, ok bool) {
	i := bytes.IndexByte(b.buf[b.scanned:b.end], '\n')
	if i < 0 {
		b.scanned = b.end
		return nil, false
	}
	nl := b.scanned + i
	line = b.buf[b.start:nl]
	b.start = nl + 1
	b.scanned = b.start
	return line, true
}

// skipLine discards through the next newline; found reports whether one
// was buffered and n how many bytes were dropped (newline included).
func (b *lineBuffer) skipLine() (n int, found bool) {
	i := bytes.IndexByte(b.buf[b.start:b.end], '\n')
	if i < 0 {
		return b.dropAll(), false
	}
	n = i + 1
	b.start += n
	b.scanned = b.start
	return n, true
}

// dropAll discards everything buffered and returns how much that was.
func (b *lineBuffer) dropAll() int {
	n := b.end - b.start
	b.start, b.end, b.scanned = 0, 0, 0
	return n
}

// pending is the buffered start of an incomplete line.
func (b *lineBuffer) pending() []byte { return b.buf[b.start:b.end] }

// dropFront discards up to n bytes from the start of the buffered data and
// returns how many were dropped.
func (b *lineBuffer) dropFront(n int) int {
	n = min(n, b.end-b.start)
	b.start += n
	b.scanned = max(b.scanned, b.start)
	return n
}
