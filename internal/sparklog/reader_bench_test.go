package sparklog

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent/eventtest"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// BenchmarkReadPlain runs the whole reader — file, codec layer, bounded line
// splitting, typed decoding, event delivery — over the 142 MB real log,
// decompressed once into the temp directory: the figure `analyze` pays per
// uncompressed byte before any analysis.
func BenchmarkReadPlain(b *testing.B) {
	// Spark's own name for a plain log has no extension; the cached copy's
	// ".json" would (rightly) be reported as an unknown codec extension.
	path := filepath.Join(b.TempDir(), "app-20240919162642-0000")
	if err := os.Symlink(eventtest.BigLogFile(b), path); err != nil {
		b.Fatal(err)
	}
	logs, err := Discover(path)
	if err != nil || len(logs) != 1 {
		b.Fatalf("discover %s: %v (%d logs)", path, err, len(logs))
	}
	benchRead(b, logs[0], eventtest.BigLogBytes)
}

// BenchmarkReadZstd is the same log as stored: zstd-compressed.
func BenchmarkReadZstd(b *testing.B) {
	path := testkit.Events(b, "extra", "spark-rapids-tools", "spark-events-qualification", "nds_q88_photon_db_13_3.zstd")
	logs, err := Discover(path)
	if err != nil || len(logs) != 1 {
		b.Fatalf("discover %s: %v", filepath.Base(path), err)
	}
	benchRead(b, logs[0], eventtest.BigLogBytes)
}

func benchRead(b *testing.B, log Log, size int64) {
	b.SetBytes(size)
	b.ReportAllocs()
	var events int64
	h := HandlerFuncs{OnEvent: func(Position, sparkevent.Event) error { events++; return nil }}
	var heap float64
	for i := 0; i < b.N; i++ {
		events = 0
		st, err := Read(log, h, Options{})
		if err != nil || st.Problems != 0 {
			b.Fatalf("read: %v, %d problems", err, st.Problems)
		}
		if i == 0 {
			heap = eventtest.LiveHeapMB(b)
		}
	}
	if events != 10141 {
		b.Fatalf("%d events, want 10141 (shared README)", events)
	}
	b.ReportMetric(heap, "heapMB-after")
}
