package analysis

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

const (
	evStarted    = `org.apache.spark.sql.streaming.StreamingQueryListener$QueryStartedEvent`
	evProgress   = `org.apache.spark.sql.streaming.StreamingQueryListener$QueryProgressEvent`
	evTerminated = `org.apache.spark.sql.streaming.StreamingQueryListener$QueryTerminatedEvent`
)

// streamBatch is one hand-built progress event.
type streamBatch struct {
	id             string
	batch          int64
	at             int64 // epoch ms
	durationMs     int64
	in, processed  float64
	rows           int64
	watermark      int64 // epoch ms, 0 for none
	end, latest    int64 // Kafka offsets of partition 0, 0 for none
	stateRows, mem int64
}

func (b streamBatch) line() string {
	iso := func(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z") }
	event := "{}"
	if b.watermark > 0 {
		event = fmt.Sprintf(`{"watermark":%q}`, iso(b.watermark))
	}
	latest := "null"
	if b.latest > 0 {
		latest = fmt.Sprintf(`"{\"t\":{\"0\":%d}}"`, b.latest)
	}
	return fmt.Sprintf(`{"Event":%q,"progress":{"id":%q,"runId":"run-%s","name":"q-%s","timestamp":%q,"batchId":%d,"batchDuration":%d,`+
		`"durationMs":{"addBatch":%d,"latestOffset":2,"triggerExecution":%d},"eventTime":%s,`+
		`"stateOperators":[{"numRowsTotal":%d,"numRowsUpdated":1,"memoryUsedBytes":%d}],`+
		`"sources":[{"description":"KafkaV2[Subscribe[t]]","startOffset":null,"endOffset":"{\"t\":{\"0\":%d}}","latestOffset":%s,`+
		`"numInputRows":%d,"inputRowsPerSecond":%g,"processedRowsPerSecond":%g}],"sink":{"numOutputRows":1}}}`,
		evProgress, b.id, b.id, b.id, iso(b.at), b.batch, b.durationMs, b.durationMs-10, b.durationMs, event,
		b.stateRows, b.mem, b.end, latest, b.rows, b.in, b.processed)
}

func streamingApp(extra []string, batches ...streamBatch) []string {
	lines := []string{
		`{"Event":"SparkListenerApplicationStart","App Name":"s","App ID":"app-s","Timestamp":1700000000000,"User":"u"}`,
		`{"Event":"SparkListenerEnvironmentUpdate","Spark Properties":{"spark.master":"local[2]"` + strings.Join(extra, "") + `}}`,
	}
	seen := map[string]bool{}
	for _, b := range batches {
		if !seen[b.id] {
			seen[b.id] = true
			lines = append(lines, fmt.Sprintf(`{"Event":%q,"id":%q,"runId":"run-%s","name":"q-%s","timestamp":"2023-11-14T22:13:20.000Z"}`, evStarted, b.id, b.id, b.id))
		}
		lines = append(lines, b.line())
	}
	return lines
}

// behind returns n batches of query id starting at batch from whose
// processed rate is below the input rate (90 vs 100 rows/s).
func behind(id string, from, n int64) []streamBatch {
	var out []streamBatch
	for i := range n {
		out = append(out, streamBatch{id: id, batch: from + i, at: 1700000001000 + (from+i)*1000, durationMs: 900, in: 100, processed: 90, rows: 100})
	}
	return out
}

func healthy(id string, from, n int64) []streamBatch {
	var out []streamBatch
	for i := range n {
		out = append(out, streamBatch{id: id, batch: from + i, at: 1700000001000 + (from+i)*1000, durationMs: 400, in: 100, processed: 250, rows: 100})
	}
	return out
}

func findingsOf(r Report, kind string) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Kind == kind {
			out = append(out, f)
		}
	}
	return out
}

// The finding fires at the threshold's batch count in a row and stays
// quiet one batch below it, and only for the query that fell behind.
func TestStreamingFallingBehindThreshold(t *testing.T) {
	cfg := DefaultConfig()
	n := int64(cfg.Thresholds.StreamingBehindBatches)
	var fires []streamBatch
	fires = append(fires, healthy("slow", 0, 2)...)
	fires = append(fires, behind("slow", 2, n)...)
	fires = append(fires, healthy("slow", 2+n, 2)...)
	fires = append(fires, healthy("fine", 0, 10)...)
	r := analyzeLines(t, streamingApp(nil, fires...), cfg)
	fs := findingsOf(r, KindStreamingFallingBehind)
	if len(fs) != 1 {
		t.Fatalf("%d findings, want 1: %+v", len(fs), fs)
	}
	f := fs[0]
	if f.QueryID != "slow" || f.QueryName != "q-slow" || f.Numbers["batches"] != float64(n) || f.Numbers["firstBatch"] != 2 ||
		f.Numbers["lastBatch"] != float64(1+n) || !near(f.Numbers["minProcessedToInputRatio"], 0.9) || f.Numbers["ongoing"] != 0 {
		t.Errorf("finding %+v", f)
	}
	if f.Start != 1700000003000 || f.End != 1700000001000+(1+n)*1000+900 {
		t.Errorf("finding spans %d–%d", f.Start, f.End)
	}
	var text bytes.Buffer
	if err := WriteText(&text, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), `streaming_falling_behind: streaming query "q-slow"`) {
		t.Errorf("text report lacks the finding:\n%s", text.String())
	}

	// One batch fewer in a row: quiet.
	var quiet []streamBatch
	quiet = append(quiet, behind("slow", 0, n-1)...)
	quiet = append(quiet, healthy("slow", n-1, 1)...)
	quiet = append(quiet, behind("slow", n, n-1)...)
	r = analyzeLines(t, streamingApp(nil, quiet...), cfg)
	if fs := findingsOf(r, KindStreamingFallingBehind); len(fs) != 0 {
		t.Errorf("%d batches behind in a row gave findings %+v", n-1, fs)
	}
	if q := r.Streaming[0]; q.BehindBatches != 2*(n-1) || q.BehindStreak != n-1 || len(q.Streaks) != 0 {
		t.Errorf("behind %d, streak %d, streaks %+v", q.BehindBatches, q.BehindStreak, q.Streaks)
	}

	// Still going at the log's end: an ongoing finding (a live query).
	r = analyzeLines(t, streamingApp(nil, behind("slow", 0, n)...), cfg)
	if fs := findingsOf(r, KindStreamingFallingBehind); len(fs) != 1 || fs[0].Numbers["ongoing"] != 1 {
		t.Errorf("ongoing streak: %+v", fs)
	}
}

// Batches longer than the trigger interval fall behind even when the rate
// keeps up; the interval comes from the application's property, a query's
// own property overriding it; a bad value is a problem, not a guess.
func TestStreamingTriggerInterval(t *testing.T) {
	cfg := DefaultConfig()
	slow := func(id string) []streamBatch {
		var out []streamBatch
		for i := range int64(4) {
			out = append(out, streamBatch{id: id, batch: i, at: 1700000001000 + i*2000, durationMs: 1500, in: 10, processed: 50, rows: 10})
		}
		return out
	}
	batches := append(slow("a"), slow("b")...)
	props := []string{`,"` + TriggerIntervalProperty + `":"1 second"`, `,"` + TriggerIntervalProperty + `.q-b":"2s"`}
	r := analyzeLines(t, streamingApp(props, batches...), cfg)
	fs := findingsOf(r, KindStreamingFallingBehind)
	if len(fs) != 1 || fs[0].QueryID != "a" || fs[0].Numbers["triggerIntervalSeconds"] != 1 || fs[0].Numbers["maxBatchSeconds"] != 1.5 {
		t.Fatalf("findings %+v", fs)
	}
	if a, b := r.Streaming[0], r.Streaming[1]; a.TriggerIntervalSeconds != 1 || b.TriggerIntervalSeconds != 2 || b.BehindBatches != 0 {
		t.Errorf("trigger a %v b %v, b behind %d", a.TriggerIntervalSeconds, b.TriggerIntervalSeconds, b.BehindBatches)
	}
	// Without the property the same batches are fine: their rate keeps up.
	r = analyzeLines(t, streamingApp(nil, batches...), cfg)
	if fs := findingsOf(r, KindStreamingFallingBehind); len(fs) != 0 {
		t.Errorf("no trigger interval, findings %+v", fs)
	}
	r = analyzeLines(t, streamingApp([]string{`,"` + TriggerIntervalProperty + `":"soon"`}, batches...), cfg)
	if r.ProblemCount != 1 || r.Problems[0].Kind != ProblemBadTriggerInterval || !strings.Contains(r.Problems[0].Reason, `"soon"`) {
		t.Errorf("problems %+v", r.Problems)
	}
}

func TestParseSparkDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"10s": 10 * time.Second, "10 seconds": 10 * time.Second, "500ms": 500 * time.Millisecond, "1min": time.Minute,
		"2 minutes": 2 * time.Minute, "1h": time.Hour, "250": 250 * time.Millisecond, "interval 5 seconds": 5 * time.Second, "1.5s": 1500 * time.Millisecond,
	} {
		if got, err := parseSparkDuration(in); err != nil || got != want {
			t.Errorf("%q: %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "s", "ten seconds", "-1s", "5 fortnights", "1e400s", "400 days"} {
		if got, err := parseSparkDuration(in); err == nil {
			t.Errorf("%q: %v, want an error", in, got)
		}
	}
}

// Watermark lag, offset lag, state and the bounds.
func TestStreamingBatchValues(t *testing.T) {
	b := streamBatch{id: "w", batch: 3, at: 1700000010000, durationMs: 800, in: 10, processed: 20, rows: 8,
		watermark: 1700000000000, end: 100, latest: 160, stateRows: 42, mem: 4096}
	r := analyzeLines(t, streamingApp(nil, b), DefaultConfig())
	l := r.Streaming[0].Last
	if l == nil || *l.WatermarkLagSeconds != 10 || *l.OffsetLag != 60 || l.StateRows != 42 || l.StateMemoryBytes != 4096 ||
		l.DurationSeconds != 0.8 || l.DurationMs["addBatch"] != 790 || *l.InputRowsPerSecond != 10 || *l.ProcessedRowsPerSecond != 20 {
		t.Fatalf("last batch %+v", l)
	}
	// JSON: pointers left out when Spark gave nothing; no NaN anywhere.
	b2 := streamBatch{id: "w", batch: 4, at: 1700000011000, durationMs: 800, in: 10, processed: 20}
	lines := streamingApp(nil, b, b2)
	lines[len(lines)-1] = strings.Replace(lines[len(lines)-1], `"inputRowsPerSecond":10`, `"inputRowsPerSecond":"NaN"`, 1)
	r = analyzeLines(t, lines, DefaultConfig())
	out, err := json.Marshal(r.Streaming)
	if err != nil {
		t.Fatal(err)
	}
	var back []map[string]any
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	last := back[0]["last"].(map[string]any)
	for _, k := range []string{"inputRowsPerSecond", "watermarkLagSeconds", "offsetLag"} {
		if _, ok := last[k]; ok {
			t.Errorf("last batch has %s although Spark gave none: %v", k, last)
		}
	}

	// At most StreamingMaxQueries queries; the next is one problem.
	cfg := DefaultConfig()
	cfg.StreamingMaxQueries = 2
	var many []streamBatch
	for _, id := range []string{"a", "b", "c", "c"} {
		many = append(many, healthy(id, 0, 1)...)
	}
	r = analyzeLines(t, streamingApp(nil, many...), cfg)
	if len(r.Streaming) != 2 || r.ProblemCount != 1 || r.Problems[0].Kind != ProblemTooManyQueries {
		t.Errorf("%d queries, problems %+v", len(r.Streaming), r.Problems)
	}
	// The recent batches are bounded too.
	r = analyzeLines(t, streamingApp(nil, healthy("long", 0, streamingRecentBatches+5)...), DefaultConfig())
	if q := r.Streaming[0]; len(q.Recent) != streamingRecentBatches || q.OmittedBatches != 5 || q.Recent[0].BatchID != 5 || q.Batches != streamingRecentBatches+5 {
		t.Errorf("recent %d omitted %d first %d batches %d", len(q.Recent), q.OmittedBatches, q.Recent[0].BatchID, q.Batches)
	}
}

// A report shares nothing with the App: later batches do not change it.
func TestStreamingReportIsACopy(t *testing.T) {
	a := New(DefaultConfig())
	lines := streamingApp(nil, behind("x", 0, 5)...)
	for _, l := range lines[:len(lines)-1] {
		a.Add(mustDecode(t, l))
	}
	r := a.Report()
	before, _ := json.Marshal(r.Streaming)
	a.Add(mustDecode(t, lines[len(lines)-1]))
	a.Add(mustDecode(t, healthy("x", 5, 1)[0].line()))
	after, _ := json.Marshal(r.Streaming)
	if !bytes.Equal(before, after) {
		t.Errorf("report changed after more events:\n%s\n%s", before, after)
	}
}

// The two real streaming logs, values checked by hand against their raw
// JSON (python's json module).
func TestStreamingRealLogs(t *testing.T) {
	r := analyzePath(t, testkit.Events(t, "extra/apache-spark/sql-core-spark-events/local-1596020211915"), DefaultConfig())
	if len(r.Streaming) != 1 {
		t.Fatalf("%d queries, want 1", len(r.Streaming))
	}
	q := r.Streaming[0]
	// 8 progress events (batches 0–7); numInputRows 3+363+63+52+42+38+44+36
	// = 641; batchDuration 7110+622+522+415+387+437+351+341 = 10185 ms;
	// addBatch 3011+478+421+332+306+361+273+271 = 5453 ms.
	if q.ID != "8d268dc2-bc9c-4be8-97a9-b135d2943028" || q.Status != StreamingRunning || q.Batches != 8 || q.InputRows != 641 ||
		!near(q.BatchSeconds, 10.185) || !near(q.PhaseSeconds["addBatch"], 5.453) {
		t.Errorf("query %+v", q)
	}
	// Batch 5 is the one batch whose processed rate (86.95652173913044)
	// is below its input rate (97.68637532133675): one batch, no finding.
	if q.BehindBatches != 1 || !q.Recent[5].Behind || len(findingsOf(r, KindStreamingFallingBehind)) != 0 {
		t.Errorf("behind %d, batch 5 behind %v, findings %+v", q.BehindBatches, q.Recent[5].Behind, r.Findings)
	}
	// Batch 0 has "inputRowsPerSecond":"NaN": no input rate.
	if q.Recent[0].InputRowsPerSecond != nil || *q.Recent[0].ProcessedRowsPerSecond != 0.42194092827004215 {
		t.Errorf("batch 0 %+v", q.Recent[0])
	}
	// Batch 7: 36 rows, state numRowsTotal 1 in memoryUsedBytes 1184.
	if l := q.Last; l.BatchID != 7 || l.InputRows != 36 || l.StateRows != 1 || l.StateMemoryBytes != 1184 || l.OffsetLag != nil {
		t.Errorf("last %+v", l)
	}

	r = analyzePath(t, testkit.Events(t, "extra/spark-rapids-tools/user_tools/tests/spark_rapids_tools_e2e/resources/event_logs/streaming_eventlog.zstd"), DefaultConfig())
	if len(r.Streaming) != 1 {
		t.Fatalf("%d queries, want 1", len(r.Streaming))
	}
	// One batch, 133944: batchDuration 159155 ms, 4210 rows, processed
	// 26.452200684866952 ≥ input 7.10949294623467 rows/s; terminated
	// with "exception":null.
	q = r.Streaming[0]
	if q.Status != StreamingStopped || q.Batches != 1 || q.InputRows != 4210 || q.BatchSeconds != 159.155 || q.BehindBatches != 0 ||
		q.Last.BatchID != 133944 || q.Last.StateOperators != 0 {
		t.Errorf("query %+v last %+v", q, q.Last)
	}
}
