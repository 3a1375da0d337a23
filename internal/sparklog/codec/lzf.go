package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// ning compress-lzf chunks: "ZV", a type byte, then for a stored chunk a BE
// uint16 length, for a compressed one BE uint16 compressed and original
// lengths; then the data. Chunks hold at most 65535 bytes.
const (
	lzfStored     = 0x00
	lzfCompressed = 0x01
)

type lzfDecoder struct {
	src     *source
	payload []byte
	out     []byte
}

func (d *lzfDecoder) step() ([]byte, bool, error) {
	start := d.src.off
	h, err := d.src.peek(7)
	switch {
	case err != nil:
		return nil, false, err
	case len(h) == 0:
		return nil, false, io.EOF
	case !isLZFStart(h):
		return nil, true, d.resync(start)
	case len(h) < 3:
		return nil, false, truncated(LZF, start, "a chunk header")
	}
	// Everything needed from the header is copied out of h now: h points
	// into the source's buffer, which reading the payload may refill.
	stored := h[2] == lzfStored
	hlen := 5
	if !stored {
		hlen = 7
	}
	if len(h) < hlen {
		return nil, false, truncated(LZF, start, "a chunk header")
	}
	clen := int(binary.BigEndian.Uint16(h[3:]))
	olen := clen
	if !stored {
		olen = int(binary.BigEndian.Uint16(h[5:]))
	}
	d.src.discard(hlen)
	d.payload, err = d.src.readN(d.payload, clen)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, false, truncated(LZF, start, "a chunk")
	}
	if err != nil {
		return nil, false, err
	}
	if stored {
		return d.payload, true, nil
	}
	if cap(d.out) < olen {
		d.out = make([]byte, olen)
	}
	d.out = d.out[:olen]
	if err := lzfDecode(d.payload, d.out); err != nil {
		// The lengths framed the chunk, so the next one follows it.
		return nil, true, corrupt(LZF, start, "undecodable LZF chunk: %v", err)
	}
	return d.out, true, nil
}

func isLZFStart(b []byte) bool {
	return startsLike(b, lzfMagic) && (len(b) < 3 || b[2] <= lzfCompressed)
}

// resync reports damage at off and moves to the next chunk header.
func (d *lzfDecoder) resync(off int64) error {
	d.src.discard(1)
	if err := d.src.resync(3, isLZFStart); err != nil {
		return err
	}
	return corrupt(LZF, off, "no LZF chunk header (\"ZV\" and type 0 or 1)")
}

// lzfDecode expands LZF data (Marc Lehmann's format, as ning writes it)
// into out, which must come out exactly full. A control byte below 32
// starts a literal run of ctrl+1 bytes; otherwise its top 3 bits are a
// match length (7 means "add the next byte") minus 2 and its low 5 bits,
// with the next byte, a back-reference distance minus 1.
func lzfDecode(in, out []byte) error {
	ip, op := 0, 0
	for ip < len(in) {
		ctrl := int(in[ip])
		ip++
		if ctrl < 32 {
			n := ctrl + 1
			if ip+n > len(in) {
				return fmt.Errorf("literal run of %d bytes passes the end of the input", n)
			}
			if op+n > len(out) {
				return errors.New("output longer than the header says")
			}
			op += copy(out[op:], in[ip:ip+n])
			ip += n
			continue
		}
		n := ctrl >> 5
		if n == 7 {
			if ip >= len(in) {
				return errors.New("match length passes the end of the input")
			}
			n += int(in[ip])
			ip++
		}
		if ip >= len(in) {
			return errors.New("match distance passes the end of the input")
		}
		ref := op - ((ctrl&0x1f)<<8 + int(in[ip]) + 1)
		ip++
		n += 2
		if ref < 0 {
			return errors.New("back-reference before the start of the chunk")
		}
		if op+n > len(out) {
			return errors.New("output longer than the header says")
		}
		if op-ref >= n {
			copy(out[op:op+n], out[ref:ref+n])
		} else {
			for i := range n { // overlapping: a repeating pattern
				out[op+i] = out[ref+i]
			}
		}
		op += n
	}
	if op != len(out) {
		return fmt.Errorf("decodes to %d bytes, header says %d", op, len(out))
	}
	return nil
}
