package simulate

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
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
		ev, err := sparkevent.DecodeLine(sc.Bytes())
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
	if counts[sparkevent.TypeStreamingQueryStarted] != 2 || counts[sparkevent.TypeStreamingQueryProgress] != 24 || counts[sparkevent.TypeStreamingQueryTerminated] != 2 {
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
	if counts[sparkevent.TypeStreamingQueryTerminated] != 0 || r.Streaming[0].Status != analysis.StreamingRunning {
		t.Errorf("live: %d terminated, status %s", counts[sparkevent.TypeStreamingQueryTerminated], r.Streaming[0].Status)
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

// timedSink keeps each line with its time.
type timedSink struct {
	lines []string
	at    []int64
}

func (s *timedSink) Line(at int64, line string, _ bool) error {
	s.lines, s.at = append(s.lines, line), append(s.at, at)
	return nil
}

// Beside the batch jobs, the queries start with the executors and trigger
// batches until the jobs end; the jobs' own lines are those of the same
// application without streaming, at the same times; the slow query falls
// behind and is found so.
func TestStreamingAlongside(t *testing.T) {
	cfg := DefaultConfig()
	cfg.StreamingBatches, cfg.StreamingAlongside = 4, true
	var with, without timedSink
	if _, err := Generate(cfg, &with); err != nil {
		t.Fatal(err)
	}
	plain := cfg
	plain.StreamingBatches = 0
	if _, err := Generate(plain, &without); err != nil {
		t.Fatal(err)
	}
	start := cfg.Start.UnixMilli()
	var jobs []string
	var jobsEnd int64
	firstBatch, lastBatch := int64(-1), int64(0)
	batches := map[string]int{}
	for i, l := range with.lines {
		switch {
		case strings.Contains(l, "QueryProgressEvent"):
			if firstBatch < 0 {
				firstBatch = with.at[i] - start
			}
			lastBatch = with.at[i] - start
			for _, q := range []string{StreamingSlowQuery, StreamingHealthyQuery} {
				if strings.Contains(l, `"name":"`+q+`"`) {
					batches[q]++
				}
			}
		case streamingEvent(l), strings.Contains(l, "SparkListenerEnvironmentUpdate"), strings.Contains(l, "SparkListenerApplicationEnd"):
		default:
			jobs = append(jobs, fmt.Sprint(with.at[i], l))
			if strings.Contains(l, "SparkListenerJobEnd") {
				jobsEnd = with.at[i] - start
			}
		}
	}
	var want []string
	for i, l := range without.lines {
		if !strings.Contains(l, "SparkListenerEnvironmentUpdate") && !strings.Contains(l, "SparkListenerApplicationEnd") {
			want = append(want, fmt.Sprint(without.at[i], l))
		}
	}
	if !slices.Equal(jobs, want) {
		t.Error("the batch jobs' lines differ from those of the same application without streaming")
	}
	if firstBatch < 0 || firstBatch > 15_000 {
		t.Errorf("first streaming batch at %d ms, want within the first 15 s", firstBatch)
	}
	if lastBatch < jobsEnd-2*StreamingTrigger.Milliseconds() || lastBatch > jobsEnd+15_000 {
		t.Errorf("last streaming batch at %d ms, the last job ends at %d ms: want the queries to run until the jobs end", lastBatch, jobsEnd)
	}
	if batches[StreamingHealthyQuery] < int(jobsEnd/StreamingTrigger.Milliseconds())-2 || batches[StreamingSlowQuery] < cfg.StreamingBatches {
		t.Errorf("batches %v over %d ms of jobs", batches, jobsEnd)
	}

	r, counts := analyse(t, cfg)
	if counts[sparkevent.TypeStreamingQueryTerminated] != 2 || len(r.Streaming) != 2 || r.Streaming[0].BehindBatches == 0 || r.Streaming[1].BehindBatches != 0 {
		t.Errorf("counts %v, queries %+v", counts, r.Streaming)
	}
}
