package codec

import (
	"encoding/binary"
	"errors"
	"io"

	"github.com/golang/snappy"
)

// xerial snappy-java SnappyOutputStream framing (not the Snappy framing
// format): a 16-byte header (magic, BE version, BE compatible version),
// then chunks of a BE int32 length and a raw Snappy block. A header may
// reappear where a length is expected (concatenated streams). No checksums.
const (
	snappyHeaderLen = 16
	// snappyMaxChunk bounds one chunk's decoded size. Spark writes 32 KiB
	// chunks (spark.io.compression.snappy.blockSize); snappy-java allows up
	// to 512 MiB, but a larger chunk here is far more likely damage than a
	// real configuration, and each chunk is held in memory whole.
	snappyMaxChunk = 64 << 20
)

var snappyMaxEncoded = int64(snappy.MaxEncodedLen(snappyMaxChunk))

type snappyDecoder struct {
	src          *source
	expectHeader bool // at the start of the file a header must come first
	payload      []byte
	out          []byte
}

func (d *snappyDecoder) step() ([]byte, bool, error) {
	start := d.src.off
	if d.expectHeader {
		return d.header(start)
	}
	b, err := d.src.peek(4)
	switch {
	case err != nil:
		return nil, false, err
	case len(b) == 0:
		return nil, false, io.EOF
	case startsLike(b, snappyMagic):
		return d.header(start)
	case len(b) < 4:
		return nil, false, truncated(Snappy, start, "a chunk length")
	}
	n := int64(int32(binary.BigEndian.Uint32(b)))
	if n < 0 || n > snappyMaxEncoded {
		// No way to find the next chunk: only a new header can resynchronise.
		return nil, true, d.resync(start, "impossible chunk length")
	}
	d.src.discard(4)
	d.payload, err = d.src.readN(d.payload, int(n))
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, false, truncated(Snappy, start, "a chunk")
	}
	if err != nil {
		return nil, false, err
	}
	if n == 0 {
		return nil, true, nil
	}
	size, err := snappy.DecodedLen(d.payload)
	if err == nil && size > snappyMaxChunk {
		return nil, true, corrupt(Snappy, start, "chunk decodes to %d bytes, more than the %d allowed", size, snappyMaxChunk)
	}
	if err == nil {
		d.out, err = snappy.Decode(d.out[:cap(d.out)], d.payload)
	}
	if err != nil {
		return nil, true, corrupt(Snappy, start, "undecodable snappy chunk: %v", err)
	}
	return d.out, true, nil
}

// header checks a stream header and consumes it.
func (d *snappyDecoder) header(start int64) ([]byte, bool, error) {
	h, err := d.src.peek(snappyHeaderLen)
	switch {
	case err != nil:
		return nil, false, err
	case len(h) == 0:
		return nil, false, io.EOF
	case !startsLike(h, snappyMagic):
		return nil, true, d.resync(start, "no snappy-java stream header")
	case len(h) < snappyHeaderLen:
		return nil, false, truncated(Snappy, start, "the stream header")
	case int32(binary.BigEndian.Uint32(h[8:])) < 1:
		return nil, true, d.resync(start, "unsupported snappy-java stream version")
	}
	d.src.discard(snappyHeaderLen)
	d.expectHeader = false
	return nil, true, nil
}

// resync reports damage at off and moves to the next stream header.
func (d *snappyDecoder) resync(off int64, reason string) error {
	d.src.discard(1)
	d.expectHeader = true
	if err := d.src.resync(len(snappyMagic), func(b []byte) bool { return startsLike(b, snappyMagic) }); err != nil {
		return err
	}
	return corrupt(Snappy, off, "%s", reason)
}
