package codec

import (
	"errors"
	"io"
)

// zstd frame layout (RFC 8878): magic, frame header descriptor, optional
// window descriptor, dictionary id and content size; then blocks, each a
// 3-byte LE header (last flag, type, size) and its body; then an optional
// 4-byte content checksum.
const (
	zstdMaxBlock   = 128 << 10
	zstdBlockRLE   = 1
	zstdBlockResvd = 3
)

type frameState int

const (
	frameHeader frameState = iota
	blockHeader
	blockBody
	frameChecksum
	frameDone
)

// frameReader passes exactly one zstd frame from src to the decoder,
// parsing just enough of it (header and block lengths) to know where it
// ends, where each block starts, and whether the input stopped inside it.
type frameReader struct {
	src        *source
	state      frameState
	frameStart int64
	blockStart int64
	body       int64  // bytes of the current block body still to pass on
	pending    []byte // parsed header bytes not yet passed on
	hdr        [18]byte
	last       bool
	checksum   bool

	truncated bool          // src ended inside the frame
	bad       *CorruptError // the frame's structure is impossible
	ioErr     error         // src failed
}

func (f *frameReader) reset(start int64) {
	*f = frameReader{src: f.src, frameStart: start, blockStart: start}
}

func (f *frameReader) done() bool { return f.state == frameDone && len(f.pending) == 0 }

func (f *frameReader) Read(p []byte) (int, error) {
	for {
		if len(f.pending) > 0 {
			n := copy(p, f.pending)
			f.pending = f.pending[n:]
			return n, nil
		}
		if f.body > 0 {
			n, err := f.src.Read(p[:min(int64(len(p)), f.body)])
			f.body -= int64(n)
			if n > 0 {
				return n, nil
			}
			return 0, f.failed(err)
		}
		var err error
		switch f.state {
		case frameHeader:
			err = f.readFrameHeader()
		case blockHeader:
			err = f.readBlockHeader()
		case blockBody: // body fully passed on
			f.state = blockHeader
			if f.last {
				f.state = frameDone
				if f.checksum {
					f.state = frameChecksum
				}
			}
		case frameChecksum:
			err = f.readInto(4)
			f.state = frameDone
		case frameDone:
			return 0, io.EOF
		}
		if err != nil {
			return 0, err
		}
	}
}

func (f *frameReader) readFrameHeader() error {
	if err := f.readInto(5); err != nil {
		return err
	}
	fhd := f.hdr[4]
	if fhd&0x08 != 0 {
		return f.corrupt(f.frameStart, "reserved bit set in the frame header")
	}
	single := fhd&0x20 != 0
	f.checksum = fhd&0x04 != 0
	extra := [4]int{0, 1, 2, 4}[fhd&3]  // dictionary id
	extra += [4]int{0, 2, 4, 8}[fhd>>6] // content size
	if single {
		if fhd>>6 == 0 {
			extra++ // 1-byte content size
		}
	} else {
		extra++ // window descriptor
	}
	if err := f.readMore(5, extra); err != nil {
		return err
	}
	f.state = blockHeader
	return nil
}

func (f *frameReader) readBlockHeader() error {
	f.blockStart = f.src.off
	if err := f.readInto(3); err != nil {
		return err
	}
	h := uint32(f.hdr[0]) | uint32(f.hdr[1])<<8 | uint32(f.hdr[2])<<16
	f.last = h&1 != 0
	typ := (h >> 1) & 3
	size := int64(h >> 3)
	switch {
	case typ == zstdBlockResvd:
		return f.corrupt(f.blockStart, "reserved block type")
	case size > zstdMaxBlock:
		return f.corrupt(f.blockStart, "block larger than 128 KiB")
	case typ == zstdBlockRLE:
		size = 1
	}
	f.body = size
	f.state = blockBody
	return nil
}

// readInto reads n header bytes into hdr and queues them for the decoder.
func (f *frameReader) readInto(n int) error { return f.readMore(0, n) }

func (f *frameReader) readMore(have, n int) error {
	if _, err := io.ReadFull(f.src, f.hdr[have:have+n]); err != nil {
		return f.failed(err)
	}
	f.pending = f.hdr[:have+n]
	return nil
}

func (f *frameReader) failed(err error) error {
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		f.truncated = true
		return io.ErrUnexpectedEOF
	}
	f.ioErr = err
	return err
}

func (f *frameReader) corrupt(off int64, reason string) error {
	f.bad = corrupt(Zstd, off, "%s", reason)
	return f.bad
}
