package codec

import (
	"encoding/binary"
	"errors"
	"io"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// zstdMaxWindow bounds the history a frame may demand (the zstd CLI's
// default limit); Spark's level-1 frames use far less.
const zstdMaxWindow = 128 << 20

// zstdDecoder decodes a concatenation of zstd frames (Spark closes one per
// flush), one frame at a time: a frameReader hands the decoder exactly one
// frame, so frame starts are boundaries and an unfinished last frame yields
// its complete blocks and then ErrTruncated.
type zstdDecoder struct {
	src     *source
	dec     *zstd.Decoder // pooled.dec, from the first frame on
	pooled  *pooledZstd
	fr      frameReader
	inFrame bool
	next    error  // error that arrived together with data
	buf     []byte // step's output; Reader uses stepInto, which needs none
}

func newZstdDecoder(s *source) (*zstdDecoder, error) {
	return &zstdDecoder{src: s, fr: frameReader{src: s}}, nil
}

// zstdDecoders holds decoders that finished a stream, for the next one. A
// decoder keeps its window (its history ring, window size plus two blocks)
// from frame to frame; a new decoder allocates it again, and a fresh ring
// of a reused heap span is zeroed first: over a directory of logs that was
// 6% of the CPU, with the runtime returning the freed rings to the system
// and faulting them in again (docs/performance.md, "Directories of real
// logs"). A sync.Pool lets the collector drop them when unused. Decoders
// that have held a big window (BigZstdWindow or more, up to 128 MiB) are
// pooled apart and go only to frames of a big window: a small log taking
// one would keep its ring alive for as long as small logs are read (serve
// polls its live logs for ever).
var zstdDecoders [2]sync.Pool

// BigZstdWindow is the smallest zstd window counted as big: its decoders
// are pooled apart, and a command reading a log of such a window raises its
// memory limit by it (cmd/sparkglance, bigWindowOf).
const BigZstdWindow = 16 << 20

// zstdPool is the pool of decoders for frames of window.
func zstdPool(window int64) *sync.Pool {
	if window >= BigZstdWindow {
		return &zstdDecoders[1]
	}
	return &zstdDecoders[0]
}

// pooledZstd is a decoder with the largest window it has decoded.
type pooledZstd struct {
	dec    *zstd.Decoder
	window int64
}

// getZstd returns a decoder for a frame of window, pooled or new.
func getZstd(window int64) (*pooledZstd, error) {
	if p, ok := zstdPool(window).Get().(*pooledZstd); ok {
		return p, nil
	}
	// Concurrency 1 decodes synchronously, block by block, with no goroutines.
	dec, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(zstdMaxWindow),
		zstd.WithDecoderMaxMemory(zstdMaxWindow),
	)
	if err != nil {
		return nil, err
	}
	return &pooledZstd{dec: dec}, nil
}

// release hands the decoder on once the stream has ended for good (the
// Reader steps no more after a final error).
func (d *zstdDecoder) release() {
	p := d.pooled
	if p == nil {
		return
	}
	d.pooled, d.dec = nil, nil
	// Reset(nil) drops the decoder's reference to this stream's source and
	// keeps its buffers.
	if p.dec.Reset(nil) == nil {
		zstdPool(p.window).Put(p)
	}
}

func (d *zstdDecoder) step() ([]byte, bool, error) {
	if d.buf == nil {
		d.buf = make([]byte, 32<<10)
	}
	n, boundary, err := d.stepInto(d.buf)
	return d.buf[:n], boundary, err
}

// stepInto is step decoding straight into p: the decoder copies out of its
// window into the caller's buffer, not into buf and then again into p.
func (d *zstdDecoder) stepInto(p []byte) (int, bool, error) {
	if err := d.next; err != nil {
		d.next = nil
		return d.fail(err)
	}
	if !d.inFrame {
		return d.startFrame()
	}
	n, err := d.dec.Read(p)
	if n > 0 {
		d.next = err
		return n, false, nil
	}
	if err == nil {
		return 0, false, nil
	}
	return d.fail(err)
}

// startFrame positions the decoder on the next frame, or skips a skippable
// frame.
func (d *zstdDecoder) startFrame() (int, bool, error) {
	start := d.src.off
	h, err := d.src.peek(8)
	switch {
	case err != nil:
		return 0, false, err
	case len(h) == 0:
		return 0, false, io.EOF
	case isSkippableMagic(h):
		if len(h) < 8 {
			return 0, false, truncated(Zstd, start, "a skippable frame header")
		}
		size := int64(binary.LittleEndian.Uint32(h[4:])) // before h's buffer moves on
		d.src.discard(8)
		if err := d.src.skip(size); err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				return 0, false, truncated(Zstd, start, "a skippable frame")
			}
			return 0, false, err
		}
		return 0, true, nil
	case !startsLike(h, zstdMagic):
		d.src.discard(1)
		return d.resync(corrupt(Zstd, start, "no zstd frame magic"))
	}
	// The frame's window chooses the decoder (a header is at most 18 bytes).
	head, _ := d.src.peek(18)
	window := ZstdWindow(head)
	if d.pooled == nil {
		p, err := getZstd(window)
		if err != nil {
			return 0, false, err
		}
		d.pooled, d.dec = p, p.dec
	}
	d.pooled.window = max(d.pooled.window, window)
	d.fr.reset(start)
	if err := d.dec.Reset(&d.fr); err != nil {
		return d.fail(err)
	}
	d.inFrame = true
	return 0, false, nil
}

// fail classifies an error from the decoder, using what the frameReader
// saw of the frame's structure.
func (d *zstdDecoder) fail(err error) (int, bool, error) {
	d.inFrame = false
	switch {
	case err == io.EOF && d.fr.done():
		return 0, true, nil
	case d.fr.truncated:
		return 0, false, truncated(Zstd, d.fr.frameStart, "a frame")
	case d.fr.bad != nil:
		return d.resync(d.fr.bad)
	case d.fr.ioErr != nil:
		return 0, false, d.fr.ioErr
	default:
		// The structure was sound but the content was not: skip the rest of
		// the frame by its block lengths.
		ce := corrupt(Zstd, d.fr.blockStart, "undecodable frame starting at offset %d: %v", d.fr.frameStart, err)
		if _, derr := io.Copy(io.Discard, &d.fr); derr != nil {
			if d.fr.truncated {
				d.next = io.ErrUnexpectedEOF // report truncation next time
				return 0, false, ce
			}
			if d.fr.ioErr != nil {
				return 0, false, d.fr.ioErr
			}
			return d.resync(ce)
		}
		return 0, true, ce
	}
}

// resync returns ce after moving to the next frame magic (regular or
// skippable).
func (d *zstdDecoder) resync(ce *CorruptError) (int, bool, error) {
	if err := d.src.resync(4, func(b []byte) bool { return startsLike(b, zstdMagic) || isSkippableMagic(b) }); err != nil {
		return 0, false, err
	}
	return 0, true, ce
}

// ZstdWindow returns the history the zstd frame starting head declares
// (the decoder holds that much while reading it), or 0 when head does not
// start a zstd frame. head needs the frame header: 18 bytes are always
// enough.
func ZstdWindow(head []byte) int64 {
	var h zstd.Header
	if err := h.Decode(head); err != nil || h.Skippable {
		return 0
	}
	w := h.WindowSize
	if h.SingleSegment {
		w = h.FrameContentSize
	}
	return int64(min(w, zstdMaxWindow))
}
