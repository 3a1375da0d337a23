package exporter

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"runtime"
	"sync"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzhttp/writer"
)

// A scrape of 100 applications × 100 executors is 39 MB of text, and gzip
// at level 1 takes ~55 ms of one core for it: most of what a scrape of
// unchanged applications costs the exporter. parallelGzip compresses the
// response in blocks on all cores, as pigz does, and writes them in order
// as one ordinary gzip member: each block is a raw deflate stream ended by
// a sync flush (byte-aligned, not final), the last one by the final block,
// and the trailer holds the CRC-32 and length of all the text. A client
// sees a single gzip stream; only the compressor's history restarts at
// every block, which costs a little ratio (see TestParallelGzip…).

// gzipBlockSize is how much text one block compresses: large enough that
// restarting the history costs little ratio, small enough to keep both
// cores busy on a few MB.
const gzipBlockSize = 1 << 20

// parallelGzipFactory plugs parallelGzip into gzhttp, which keeps
// negotiating the encoding and setting the headers.
var parallelGzipFactory = writer.GzipWriterFactory{
	Levels: func() (int, int) { return flate.HuffmanOnly, flate.BestCompression },
	New: func(w io.Writer, level int) writer.GzipWriter {
		return &parallelGzip{w: w, level: level, maxInFlight: runtime.GOMAXPROCS(0) + 1}
	},
}

// parallelGzip is a gzip writer whose blocks are compressed concurrently.
// It is used by one goroutine (an HTTP handler), like gzip.Writer.
type parallelGzip struct {
	w           io.Writer
	level       int
	maxInFlight int

	started bool
	block   *[]byte      // text not yet handed to a compressor
	pending []*gzipBlock // handed over, written to w in this order
	crc     uint32       // of all text written so far
	size    uint32       // its length, modulo 2^32 as gzip keeps it
	err     error        // the first error writing to w; sticks
	closed  bool
}

// gzipBlock is one block on its way: done is closed once out holds its
// compressed form.
type gzipBlock struct {
	text *[]byte
	out  *[]byte
	err  error
	done chan struct{}
}

var (
	textBlocks       = sync.Pool{New: func() any { b := make([]byte, 0, gzipBlockSize); return &b }}
	compressedBlocks = sync.Pool{New: func() any { b := make([]byte, 0, gzipBlockSize/8); return &b }}
	flateWriters     sync.Map // level → *sync.Pool of *flate.Writer
)

func flateWriterPool(level int) *sync.Pool {
	if p, ok := flateWriters.Load(level); ok {
		return p.(*sync.Pool)
	}
	p, _ := flateWriters.LoadOrStore(level, &sync.Pool{New: func() any {
		fw, err := flate.NewWriter(nil, level)
		if err != nil {
			panic(err) // the factory's Levels bound the level
		}
		return fw
	}})
	return p.(*sync.Pool)
}

// Write buffers p into blocks and hands every full one to a compressor.
func (z *parallelGzip) Write(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	if z.closed {
		return 0, errors.New("gzip: write after close")
	}
	z.crc = crc32.Update(z.crc, crc32.IEEETable, p)
	z.size += uint32(len(p))
	n := len(p)
	for len(p) > 0 {
		if z.block == nil {
			z.block = textBlocks.Get().(*[]byte)
			*z.block = (*z.block)[:0]
		}
		room := gzipBlockSize - len(*z.block)
		take := min(room, len(p))
		*z.block = append(*z.block, p[:take]...)
		p = p[take:]
		if len(*z.block) == gzipBlockSize {
			if err := z.submit(false); err != nil {
				return n - len(p), err
			}
		}
	}
	return n, nil
}

// submit hands the current block (possibly empty) to a new compressor,
// first writing out finished blocks and waiting for the oldest if as many
// as the cores are busy. final ends the deflate stream.
func (z *parallelGzip) submit(final bool) error {
	text := z.block
	if text == nil {
		text = textBlocks.Get().(*[]byte)
		*text = (*text)[:0]
	}
	z.block = nil
	b := &gzipBlock{text: text, out: compressedBlocks.Get().(*[]byte), done: make(chan struct{})}
	*b.out = (*b.out)[:0]
	level := z.level
	go func() {
		defer close(b.done)
		fw := flateWriterPool(level).Get().(*flate.Writer)
		out := bytesAppender{b.out}
		fw.Reset(&out)
		_, b.err = fw.Write(*b.text)
		if b.err == nil {
			if final {
				b.err = fw.Close()
			} else {
				b.err = fw.Flush()
			}
		}
		flateWriterPool(level).Put(fw)
		textBlocks.Put(b.text)
		b.text = nil
	}()
	z.pending = append(z.pending, b)
	return z.drain(len(z.pending) >= z.maxInFlight, false)
}

// drain writes the finished blocks at the head of the queue. It waits for
// the oldest if wait, for every block if all.
func (z *parallelGzip) drain(wait, all bool) error {
	for len(z.pending) > 0 {
		b := z.pending[0]
		if wait || all {
			<-b.done
			wait = false
		} else {
			select {
			case <-b.done:
			default:
				return z.err
			}
		}
		z.pending = z.pending[1:]
		if z.err == nil {
			z.err = b.err
		}
		if z.err == nil {
			z.err = z.writeOut(*b.out)
		}
		compressedBlocks.Put(b.out)
	}
	return z.err
}

// writeOut writes compressed bytes after the gzip header.
func (z *parallelGzip) writeOut(p []byte) error {
	if !z.started {
		z.started = true
		// Magic, deflate, no flags, no time, "fastest" for level 1, unknown OS.
		xfl := byte(0)
		if z.level == flate.BestSpeed {
			xfl = 4
		}
		if _, err := z.w.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, xfl, 255}); err != nil {
			return err
		}
	}
	_, err := z.w.Write(p)
	return err
}

// Flush compresses and writes everything written so far.
func (z *parallelGzip) Flush() error {
	if z.err != nil || z.closed {
		return z.err
	}
	if err := z.submit(false); err != nil {
		return err
	}
	return z.drain(true, true)
}

// Close ends the stream: the last block, then CRC-32 and length.
func (z *parallelGzip) Close() error {
	if z.closed {
		return z.err
	}
	if z.err == nil {
		_ = z.submit(true)
	}
	_ = z.drain(true, true) // every compressor has finished when Close returns
	if z.block != nil {
		textBlocks.Put(z.block)
		z.block = nil
	}
	z.closed = true
	if z.err != nil {
		return z.err
	}
	var trailer [8]byte
	binary.LittleEndian.PutUint32(trailer[:4], z.crc)
	binary.LittleEndian.PutUint32(trailer[4:], z.size)
	_, z.err = z.w.Write(trailer[:])
	return z.err
}

// bytesAppender is an io.Writer appending to a pooled slice.
type bytesAppender struct{ b *[]byte }

func (a *bytesAppender) Write(p []byte) (int, error) {
	*a.b = append(*a.b, p...)
	return len(p), nil
}
