package exporter

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/klauspost/compress/flate"
	kgzip "github.com/klauspost/compress/gzip"
)

// exposition makes n bytes of text like a big scrape's: many similar
// lines, each value its own.
func exposition(n int) []byte {
	rng := rand.New(rand.NewPCG(3, 4))
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "spark_executor_task_time_seconds_total{app_id=\"app-20261130190000-%04d\",app_name=\"Simulated app\",category=\"cpu\",executor_id=\"%d\"} %g\n",
			i/400, i%400, rng.Float64()*1e4)
	}
	return b.Bytes()[:n]
}

// gunzip reads one gzip member and checks that nothing follows it: the
// writer must produce a single ordinary stream.
func gunzip(t *testing.T, compressed []byte) []byte {
	t.Helper()
	br := bytes.NewReader(compressed)
	r, err := gzip.NewReader(br)
	if err != nil {
		t.Fatalf("gzip header: %v", err)
	}
	r.Multistream(false)
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("gunzip: %v", err)
	}
	if br.Len() != 0 {
		t.Fatalf("%d bytes after the gzip member", br.Len())
	}
	return out
}

func newParallelGzip(w io.Writer) *parallelGzip {
	return parallelGzipFactory.New(w, kgzip.BestSpeed).(*parallelGzip)
}

// Text of any length, written in pieces of any size with flushes between
// them, comes back whole from a standard gzip reader (which checks the
// CRC-32 and length), as one stream.
func TestParallelGzipRoundTrip(t *testing.T) {
	text := exposition(3*gzipBlockSize + 12345)
	for _, n := range []int{0, 1, 100, gzipBlockSize - 1, gzipBlockSize, gzipBlockSize + 1, len(text)} {
		for _, piece := range []int{64 << 10, 4093} {
			if (n < 1000 || n == len(text)) && piece == 4093 {
				continue
			}
			var out bytes.Buffer
			z := newParallelGzip(&out)
			for i := 0; i < n; i += piece {
				if _, err := z.Write(text[i:min(i+piece, n)]); err != nil {
					t.Fatal(err)
				}
				if i/piece == 3 {
					if err := z.Flush(); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := z.Close(); err != nil {
				t.Fatal(err)
			}
			if got := gunzip(t, out.Bytes()); !bytes.Equal(got, text[:n]) {
				t.Fatalf("%d bytes in pieces of %d: got back %d bytes, not the same", n, piece, len(got))
			}
		}
	}
}

// What a client holds after a flush is all the text so far.
func TestParallelGzipFlushDelivers(t *testing.T) {
	text := exposition(3*gzipBlockSize + 77)
	var out bytes.Buffer
	z := newParallelGzip(&out)
	if _, err := z.Write(text); err != nil {
		t.Fatal(err)
	}
	if err := z.Flush(); err != nil {
		t.Fatal(err)
	}
	r, err := gzip.NewReader(bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(text))
	if _, err := io.ReadFull(r, got); err != nil || !bytes.Equal(got, text) {
		t.Fatalf("after Flush: read %v, same text %v", err, bytes.Equal(got, text))
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
}

// Restarting the history every block costs little: within 3 % of one
// level-1 stream over the same text.
func TestParallelGzipRatio(t *testing.T) {
	text := exposition(4 * gzipBlockSize)
	var serial, parallel bytes.Buffer
	zs, _ := kgzip.NewWriterLevel(&serial, kgzip.BestSpeed)
	zs.Write(text)
	zs.Close()
	zp := newParallelGzip(&parallel)
	if _, err := zp.Write(text); err != nil {
		t.Fatal(err)
	}
	if err := zp.Close(); err != nil {
		t.Fatal(err)
	}
	if p, s := parallel.Len(), serial.Len(); float64(p) > 1.03*float64(s) {
		t.Errorf("parallel gzip %d bytes, one stream %d: more than 3 %% larger", p, s)
	}
	t.Logf("%d bytes: one stream %d, parallel %d", len(text), serial.Len(), parallel.Len())
}

// failingWriter fails once it has taken limit bytes.
type failingWriter struct{ limit int }

var errGone = errors.New("client went away")

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) > f.limit {
		n := f.limit
		f.limit = 0
		return n, errGone
	}
	f.limit -= len(p)
	return len(p), nil
}

// A client that goes away mid-response: the error comes back from Write or
// Close, every compressor finishes, and later calls keep returning it.
func TestParallelGzipWriteError(t *testing.T) {
	text := exposition(4 * gzipBlockSize)
	for _, limit := range []int{0, 5, 100, 100 << 10} {
		z := newParallelGzip(&failingWriter{limit: limit})
		var err error
		for i := 0; i < len(text) && err == nil; i += 64 << 10 {
			_, err = z.Write(text[i : i+64<<10])
		}
		if cerr := z.Close(); !errors.Is(cerr, errGone) || (err != nil && !errors.Is(err, errGone)) {
			t.Errorf("limit %d: Write error %v, Close error %v; want %v", limit, err, cerr, errGone)
		}
		if len(z.pending) != 0 {
			t.Errorf("limit %d: %d blocks still pending after Close", limit, len(z.pending))
		}
		if _, err := z.Write([]byte("more")); err == nil {
			t.Errorf("limit %d: write after a failed close succeeded", limit)
		}
	}
	z := newParallelGzip(io.Discard)
	z.Close()
	if _, err := z.Write([]byte("x")); err == nil || !strings.Contains(err.Error(), "after close") {
		t.Errorf("write after close: %v", err)
	}
}

// BenchmarkDeflateBlocks: one core's deflate of 8 MB of exposition text cut
// into blocks as parallelGzip cuts it, by compressor and block size, with
// the compressed size per text byte: which compressor and block size the
// writer should use.
func BenchmarkDeflateBlocks(b *testing.B) {
	text := exposition(8 << 20)
	for _, c := range []struct {
		name      string
		block     int
		stateless bool
	}{
		{"level1-1MB", 1 << 20, false},
		{"stateless-1MB", 1 << 20, true},
		{"level1-4MB", 4 << 20, false},
		{"level1-256KB", 256 << 10, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			fw, err := flate.NewWriter(nil, flate.BestSpeed)
			if err != nil {
				b.Fatal(err)
			}
			var out countingSink
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				out = 0
				for off := 0; off < len(text); off += c.block {
					block := text[off:min(off+c.block, len(text))]
					if c.stateless {
						if err := flate.StatelessDeflate(&out, block, false, nil); err != nil {
							b.Fatal(err)
						}
						continue
					}
					fw.Reset(&out)
					if _, err := fw.Write(block); err != nil {
						b.Fatal(err)
					}
					if err := fw.Flush(); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(out)/float64(len(text)), "compressed/text")
		})
	}
}

// countingSink counts what is written to it.
type countingSink int

func (c *countingSink) Write(p []byte) (int, error) {
	*c += countingSink(len(p))
	return len(p), nil
}
