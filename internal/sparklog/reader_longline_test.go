package sparklog

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog/codec"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// longLineLog writes a plain log whose second line holds an application
// name of nameLen bytes, and returns it.
func longLineLog(t testing.TB, nameLen int) Log {
	t.Helper()
	var sb strings.Builder
	sb.WriteString(`{"Event":"SparkListenerLogStart","Spark Version":"3.5.0"}` + "\n")
	sb.WriteString(`{"Event":"SparkListenerApplicationStart","App Name":"` + strings.Repeat("a", nameLen) +
		`","App ID":"app-1","Timestamp":1,"User":"u"}` + "\n")
	sb.WriteString(`{"Event":"SparkListenerApplicationEnd","Timestamp":2}` + "\n")
	path := filepath.Join(t.TempDir(), "app-1")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return Log{Path: path, Layout: LayoutFile, Files: []LogFile{{Path: path, Codec: codec.Plain}}}
}

// TestLongLineReadIsLinear: a line many chunks long is read with a bounded
// number of byte copies per input byte, on one goroutine and on several.
// Carrying the growing start of such a line from chunk to chunk copied
// about len²/(2·chunk) bytes: 4 MiB in 64 KiB chunks made 136 MB of copies,
// and a 40 MB line took ten seconds.
func TestLongLineReadIsLinear(t *testing.T) {
	const chunk = 64 << 10
	for _, size := range []int{1 << 20, 4 << 20} {
		for _, workers := range []int{1, 2} {
			t.Run(fmt.Sprintf("%dMiB/workers=%d", size>>20, workers), func(t *testing.T) {
				log := longLineLog(t, size)
				var names []int
				h := HandlerFuncs{OnEvent: func(_ Position, ev sparkevent.Event) error {
					if s, ok := ev.(*sparkevent.ApplicationStart); ok {
						names = append(names, len(s.AppName))
					}
					return nil
				}}
				fo := NewFollower(log, h, Options{workers: workers, chunkBytes: chunk})
				if _, err := fo.Poll(); err != nil {
					t.Fatal(err)
				}
				if st := fo.Stats(); st.Problems != 0 || len(names) != 1 || names[0] != size {
					t.Fatalf("%d problems, application names of lengths %v, want one of %d", st.Problems, names, size)
				}
				// Doubling the line buffer copies under 2× the line; a
				// chunk's carry is at most one chunk per chunk.
				if limit := int64(3*size + 4*chunk); fo.bytesCopied > limit {
					t.Errorf("%d bytes copied reading a %d-byte line, want at most %d (linear)", fo.bytesCopied, size, limit)
				}
			})
		}
	}
}

// TestOverLongLineReadIsLinear: a line over the limit is skipped with a
// bounded number of copies too (it was carried, growing, up to the limit).
func TestOverLongLineReadIsLinear(t *testing.T) {
	const chunk, limit, size = 64 << 10, 1 << 20, 6 << 20
	for _, workers := range []int{1, 2} {
		log := longLineLog(t, size)
		rec := &recorder{}
		fo := NewFollower(log, rec, Options{workers: workers, chunkBytes: chunk, MaxLineBytes: limit})
		if _, err := fo.Poll(); err != nil {
			t.Fatal(err)
		}
		if n := len(rec.problemsOf(ProblemLineTooLong)); n != 1 || len(rec.events) != 2 {
			t.Fatalf("workers %d: %d line-too-long problems and %d events, want 1 and 2", workers, n, len(rec.events))
		}
		if max := int64(3*limit + 4*chunk); fo.bytesCopied > max {
			t.Errorf("workers %d: %d bytes copied skipping a %d-byte line (limit %d), want at most %d",
				workers, fo.bytesCopied, size, limit, max)
		}
	}
}

// BenchmarkReadLongLine reads a log whose one line is 40 MB (the issue's
// 10/20/40 MB lines took 1/2.9/9.9 s when reading was quadratic).
func BenchmarkReadLongLine(b *testing.B) {
	for _, mb := range []int{10, 40} {
		b.Run(fmt.Sprintf("%dMB", mb), func(b *testing.B) {
			log := longLineLog(b, mb<<20)
			b.SetBytes(int64(mb) << 20)
			b.ReportAllocs()
			for b.Loop() {
				st, err := Read(log, HandlerFuncs{}, Options{})
				if err != nil || st.Problems != 0 {
					b.Fatalf("read: %v, %d problems", err, st.Problems)
				}
			}
		})
	}
}
