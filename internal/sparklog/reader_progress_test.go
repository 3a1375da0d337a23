package sparklog

import (
	"testing"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// TestProgressReachesTotal: progress is reported in compressed bytes, at
// least at the end of each file, never goes back, and ends at the total
// size of the rolling log's two files (496917 + 48700 bytes, README).
func TestProgressReachesTotal(t *testing.T) {
	dir := testkit.Events(t, "extra", "spark-rapids-tools", "spark-events-qualification", "eventlog_v2_local-1623876083964")
	var seen []Progress
	st, rec := readLog(t, discoverOne(t, dir), Options{OnProgress: func(p Progress) { seen = append(seen, p) }})
	if len(rec.problems) != 0 {
		t.Fatalf("problems %v", rec.problems)
	}
	const total = 496917 + 48700
	if len(seen) < 2 {
		t.Fatalf("progress reported %d times, want at least once per file", len(seen))
	}
	for i, p := range seen {
		if p.Total != total || p.Done > p.Total || (i > 0 && p.Done < seen[i-1].Done) {
			t.Errorf("progress %d: %+v", i, p)
		}
	}
	if last := seen[len(seen)-1]; last.Done != total || st.BytesIn != total {
		t.Errorf("last progress %+v, bytes in %d, want %d", last, st.BytesIn, total)
	}
}
