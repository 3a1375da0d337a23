package simulate

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/sparklog"
)

// analyse runs a simulated log through the real decoder and analysis.
func analyse(t *testing.T, cfg Config) (analysis.Report, map[string]int) {
	t.Helper()
	var buf bytes.Buffer
	if _, err := Write(&buf, cfg); err != nil {
		t.Fatal(err)
	}
	app := analysis.New(analysis.DefaultConfig())
	counts := map[string]int{}
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		ev, err := sparklog.DecodeLine(sc.Bytes())
		if err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		counts[ev.EventType()]++
		app.Add(ev)
	}
	return app.Report(), counts
}

// The streaming mode writes both queries' lifecycles; the analysis finds
// the slow one falling behind from its fourth batch, and only that one.
func TestStreamingMode(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Executors, cfg.CoresPerExecutor, cfg.TasksPerStage, cfg.StreamingBatches = 2, 2, 8, 12
	r, counts := analyse(t, cfg)
	if counts[sparklog.TypeStreamingQueryStarted] != 2 || counts[sparklog.TypeStreamingQueryProgress] != 24 || counts[sparklog.TypeStreamingQueryTerminated] != 2 {
		t.Fatalf("streaming events %v", counts)
	}
	if len(r.Streaming) != 2 {
		t.Fatalf("%d queries", len(r.Streaming))
	}
	for _, q := range r.Streaming {
		if q.Batches != 12 || q.Status != analysis.StreamingStopped || q.TriggerIntervalSeconds != StreamingTrigger.Seconds() ||
			q.Last.WatermarkLagSeconds == nil || q.Last.OffsetLag == nil || q.Last.StateRows <= 0 {
			t.Errorf("query %s: batches %d status %s trigger %v last %+v", q.Name, q.Batches, q.Status, q.TriggerIntervalSeconds, q.Last)
		}
	}
	slow, fine := r.Streaming[0], r.Streaming[1]
	if slow.Name != StreamingSlowQuery || slow.BehindBatches != 12-streamingBehindFrom || fine.BehindBatches != 0 {
		t.Errorf("%s behind %d, %s behind %d", slow.Name, slow.BehindBatches, fine.Name, fine.BehindBatches)
	}
	// The slow query's backlog and watermark lag grow; the healthy one's
	// watermark stays 10 s behind.
	if first, last := slow.Recent[streamingBehindFrom], slow.Last; !(*last.OffsetLag > *first.OffsetLag && *last.WatermarkLagSeconds > *first.WatermarkLagSeconds) {
		t.Errorf("slow query lags: batch %d offsets %v watermark %v, last offsets %v watermark %v", first.BatchID,
			*first.OffsetLag, *first.WatermarkLagSeconds, *last.OffsetLag, *last.WatermarkLagSeconds)
	}
	if *fine.Last.WatermarkLagSeconds != 10 {
		t.Errorf("healthy watermark lag %v", *fine.Last.WatermarkLagSeconds)
	}
	var fs []analysis.Finding
	for _, f := range r.Findings {
		if f.Kind == analysis.KindStreamingFallingBehind {
			fs = append(fs, f)
		}
	}
	if len(fs) != 1 || fs[0].QueryName != StreamingSlowQuery || fs[0].Numbers["firstBatch"] != streamingBehindFrom || fs[0].Numbers["batches"] != 12-streamingBehindFrom {
		t.Errorf("findings %+v", fs)
	}

	// Live: still running, no termination.
	cfg.Live = true
	r, counts = analyse(t, cfg)
	if counts[sparklog.TypeStreamingQueryTerminated] != 0 || r.Streaming[0].Status != analysis.StreamingRunning {
		t.Errorf("live: %d terminated, status %s", counts[sparklog.TypeStreamingQueryTerminated], r.Streaming[0].Status)
	}
	// Without the mode nothing changes: no streaming events, no property.
	var plain bytes.Buffer
	cfg = DefaultConfig()
	cfg.Executors, cfg.CoresPerExecutor, cfg.TasksPerStage = 2, 2, 8
	if _, err := Write(&plain, cfg); err != nil {
		t.Fatal(err)
	}
	if s := plain.String(); strings.Contains(s, "StreamingQueryListener") || strings.Contains(s, "triggerInterval") {
		t.Error("a log without streaming mode has streaming events or the trigger property")
	}
	cfg.StreamingBatches = MaxStreamingBatches + 1
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "--streaming-batches") {
		t.Errorf("validate: %v", err)
	}
}
