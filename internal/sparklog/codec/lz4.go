package codec

import (
	"encoding/binary"
	"errors"
	"io"

	"github.com/pierrec/lz4/v4"
)

// lz4-java LZ4BlockOutputStream framing (not the LZ4 frame format): each
// block is a 21-byte header — "LZ4Block", token (method | level), LE
// compressed length, LE decompressed length, LE checksum — then the payload.
const (
	lz4HeaderLen    = 21
	lz4MethodRaw    = 0x10
	lz4MethodLZ4    = 0x20
	lz4LevelBase    = 10
	lz4ChecksumSeed = 0x9747B28C
	lz4ChecksumMask = 0x0FFFFFFF // lz4-java's asChecksum() keeps 28 bits
)

type lz4Decoder struct {
	src     *source
	payload []byte
	out     []byte
}

type lz4Header struct {
	method, level int
	clen, olen    int64
	check         uint32
}

func (d *lz4Decoder) step() ([]byte, bool, error) {
	start := d.src.off
	h, err := d.src.peek(lz4HeaderLen)
	switch {
	case err != nil:
		return nil, false, err
	case len(h) == 0:
		return nil, false, io.EOF
	case !startsLike(h, lz4Magic):
		return nil, true, d.resync(start, "no LZ4Block magic")
	case len(h) < lz4HeaderLen:
		return nil, false, truncated(LZ4, start, "a block header")
	}
	hdr := parseLZ4Header(h)
	if reason := hdr.invalid(); reason != "" {
		return nil, true, d.resync(start, reason)
	}
	d.src.discard(lz4HeaderLen)
	if hdr.olen == 0 {
		// End mark written by close(); Spark reads on past it, so concatenated
		// streams continue.
		return nil, true, nil
	}
	d.payload, err = d.src.readN(d.payload, int(hdr.clen))
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, false, truncated(LZ4, start, "a block")
	}
	if err != nil {
		return nil, false, err
	}
	data, reason := d.decode(hdr)
	if reason != "" {
		// The header was sane, so the next block starts right after this one.
		return nil, true, corrupt(LZ4, start, "%s", reason)
	}
	return data, true, nil
}

func parseLZ4Header(h []byte) lz4Header {
	le := binary.LittleEndian
	return lz4Header{
		method: int(h[8] & 0xF0),
		level:  lz4LevelBase + int(h[8]&0x0F),
		clen:   int64(int32(le.Uint32(h[9:]))),
		olen:   int64(int32(le.Uint32(h[13:]))),
		check:  le.Uint32(h[17:]),
	}
}

// invalid repeats LZ4BlockInputStream's checks, plus a bound on the
// compressed length so a damaged header cannot make us read a huge payload.
func (h lz4Header) invalid() string {
	switch {
	case h.method != lz4MethodRaw && h.method != lz4MethodLZ4:
		return "unknown compression method"
	case h.clen < 0 || h.olen < 0:
		return "negative block length"
	case h.olen > 1<<h.level:
		return "decompressed length exceeds the block size the header declares"
	case (h.olen == 0) != (h.clen == 0):
		return "only one of the block lengths is zero"
	case h.olen == 0 && h.check != 0:
		return "end mark with a non-zero checksum"
	case h.method == lz4MethodRaw && h.clen != h.olen:
		return "stored block whose lengths differ"
	case h.clen > h.olen+h.olen/255+16:
		return "compressed length larger than LZ4 can produce"
	}
	return ""
}

func (d *lz4Decoder) decode(h lz4Header) ([]byte, string) {
	data := d.payload
	if h.method == lz4MethodLZ4 {
		if cap(d.out) < int(h.olen) {
			d.out = make([]byte, h.olen)
		}
		d.out = d.out[:h.olen]
		n, err := lz4.UncompressBlock(d.payload, d.out)
		if err != nil {
			return nil, "undecodable LZ4 block: " + err.Error()
		}
		if n != int(h.olen) {
			return nil, "LZ4 block decodes to a different length than its header says"
		}
		data = d.out
	}
	if xxh32(data, lz4ChecksumSeed)&lz4ChecksumMask != h.check {
		return nil, "checksum mismatch"
	}
	return data, ""
}

// resync reports damage at off and moves to the next "LZ4Block" magic.
func (d *lz4Decoder) resync(off int64, reason string) error {
	d.src.discard(1)
	if err := d.src.resync(len(lz4Magic), func(b []byte) bool { return startsLike(b, lz4Magic) }); err != nil {
		return err
	}
	return corrupt(LZ4, off, "%s", reason)
}
