package sparkevent

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent/eventtest"
)

// streamingEvent is the reference decoder's reading of the streaming
// listener events; nil for any other type.
func (r *ref) streamingEvent(typ string, m map[string]any) Event {
	switch typ {
	case TypeStreamingQueryStarted:
		return &StreamingQueryStarted{ID: r.str(m["id"]), RunID: r.str(m["runId"]), Name: r.str(m["name"]), Timestamp: r.iso(m["timestamp"])}
	case TypeStreamingQueryTerminated:
		return &StreamingQueryTerminated{ID: r.str(m["id"]), RunID: r.str(m["runId"]), Exception: r.str(m["exception"])}
	case TypeStreamingQueryProgress:
		p := r.obj(m["progress"])
		ev := &StreamingQueryProgress{ID: r.str(p["id"]), RunID: r.str(p["runId"]), Name: r.str(p["name"]),
			Timestamp: r.iso(p["timestamp"]), BatchID: r.int64(p["batchId"]), BatchDuration: r.int64(p["batchDuration"]),
			DurationMs: r.named(p["durationMs"]), SinkOutputRows: r.int64(r.obj(p["sink"])["numOutputRows"])}
		if w, ok := r.obj(p["eventTime"])["watermark"]; ok && w != nil {
			ev.Watermark, ev.HasWatermark = r.iso(w), true
		}
		for _, x := range r.list(p["stateOperators"]) {
			o := r.obj(x)
			ev.StateOperators = append(ev.StateOperators, StateOperatorProgress{OperatorName: r.str(o["operatorName"]),
				NumRowsTotal: r.int64(o["numRowsTotal"]), NumRowsUpdated: r.int64(o["numRowsUpdated"]), MemoryUsedBytes: r.int64(o["memoryUsedBytes"])})
		}
		for _, x := range r.list(p["sources"]) {
			s := r.obj(x)
			ev.Sources = append(ev.Sources, SourceProgress{Description: r.str(s["description"]),
				StartOffset: r.offset(s["startOffset"]), EndOffset: r.offset(s["endOffset"]), LatestOffset: r.offset(s["latestOffset"]),
				NumInputRows: r.int64(s["numInputRows"]), InputRowsPerSecond: r.rate(s["inputRowsPerSecond"]),
				ProcessedRowsPerSecond: r.rate(s["processedRowsPerSecond"])})
		}
		return ev
	}
	return nil
}

func (r *ref) iso(v any) int64 {
	if v == nil {
		return 0
	}
	t, err := time.Parse(time.RFC3339Nano, r.str(v))
	if err != nil {
		r.fail("timestamp", v)
	}
	return t.UnixMilli()
}

func (r *ref) offset(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func (r *ref) rate(v any) float64 {
	switch v {
	case nil, "NaN", "Infinity", "-Infinity":
		return math.NaN()
	}
	return r.float(v)
}

// Hand-written lines setting the fields the two real streaming logs leave
// zero (TestDecodeLineEveryFieldSet).
const (
	streamingStartedNamed = `{"Event":"org.apache.spark.sql.streaming.StreamingQueryListener$QueryStartedEvent",` +
		`"id":"q1","runId":"r1","name":"orders","timestamp":"2024-01-02T03:04:05.678Z"}`
	streamingProgressWatermark = `{"Event":"org.apache.spark.sql.streaming.StreamingQueryListener$QueryProgressEvent","progress":` +
		`{"id":"q1","runId":"r1","name":"orders","timestamp":"2024-01-02T03:04:10.000Z","batchId":7,"batchDuration":1500,` +
		`"durationMs":{"addBatch":1200,"triggerExecution":1500},"eventTime":{"avg":"2024-01-02T03:03:00.000Z","watermark":"2024-01-02T03:02:10.000Z"},` +
		`"stateOperators":[{"operatorName":"stateStoreSave","numRowsTotal":10,"numRowsUpdated":2,"memoryUsedBytes":4096}],` +
		`"sources":[{"description":"KafkaV2[Subscribe[orders]]","startOffset":"{\"orders\":{\"0\":5}}","endOffset":"{\"orders\":{\"0\":9}}",` +
		`"latestOffset":"{\"orders\":{\"0\":20}}","numInputRows":4,"inputRowsPerSecond":2.5,"processedRowsPerSecond":"Infinity"}],` +
		`"sink":{"description":"console","numOutputRows":4}}}`
	streamingTerminatedFailed = `{"Event":"org.apache.spark.sql.streaming.StreamingQueryListener$QueryTerminatedEvent",` +
		`"id":"q1","runId":"r1","exception":"java.lang.RuntimeException: boom"}`
)

func TestDecodeStreamingHandWritten(t *testing.T) {
	p := decodeOK(t, streamingProgressWatermark).(*StreamingQueryProgress)
	if p.BatchID != 7 || p.BatchDuration != 1500 || p.Name != "orders" || p.Timestamp != time.Date(2024, 1, 2, 3, 4, 10, 0, time.UTC).UnixMilli() {
		t.Errorf("batch %d duration %d name %q timestamp %d", p.BatchID, p.BatchDuration, p.Name, p.Timestamp)
	}
	if !p.HasWatermark || p.Watermark != time.Date(2024, 1, 2, 3, 2, 10, 0, time.UTC).UnixMilli() {
		t.Errorf("watermark %d (%v)", p.Watermark, p.HasWatermark)
	}
	if len(p.DurationMs) != 2 || p.DurationMs[0] != (NamedValue{"addBatch", 1200}) {
		t.Errorf("durationMs %v", p.DurationMs)
	}
	if len(p.StateOperators) != 1 || p.StateOperators[0] != (StateOperatorProgress{"stateStoreSave", 10, 2, 4096}) {
		t.Errorf("state operators %+v", p.StateOperators)
	}
	s := p.Sources[0]
	if s.LatestOffset != `{"orders":{"0":20}}` || s.InputRowsPerSecond != 2.5 || !math.IsNaN(s.ProcessedRowsPerSecond) || p.SinkOutputRows != 4 {
		t.Errorf("source %+v sink %d", s, p.SinkOutputRows)
	}
	// An offset written as JSON itself rather than inside a string is kept
	// as its text.
	line := strings.Replace(streamingProgressWatermark, `"latestOffset":"{\"orders\":{\"0\":20}}"`, `"latestOffset":{"orders":{"0":21}}`, 1)
	if got := decodeOK(t, line).(*StreamingQueryProgress).Sources[0].LatestOffset; got != `{"orders":{"0":21}}` {
		t.Errorf("object offset kept as %q", got)
	}
}

// Wrong shapes are errors naming the key, never silent zeros.
func TestDecodeStreamingBadValues(t *testing.T) {
	for _, c := range []struct{ from, to, want string }{
		{`"timestamp":"2024-01-02T03:04:10.000Z"`, `"timestamp":"yesterday"`, `"timestamp": expected ISO-8601 timestamp string`},
		{`"timestamp":"2024-01-02T03:04:10.000Z"`, `"timestamp":17`, `"timestamp": expected ISO-8601 timestamp string`},
		{`"inputRowsPerSecond":2.5`, `"inputRowsPerSecond":"fast"`, `"inputRowsPerSecond": expected number or "NaN"`},
		{`"batchId":7`, `"batchId":7.5`, `"batchId": expected integer`},
		{`"numRowsTotal":10`, `"numRowsTotal":[]`, `"numRowsTotal": expected integer`},
	} {
		line := strings.Replace(streamingProgressWatermark, c.from, c.to, 1)
		_, err := DecodeLine([]byte(line))
		var de *DecodeError
		if !errors.As(err, &de) || de.Syntax || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), TypeStreamingQueryProgress) {
			t.Errorf("%s: err %v, want a shape error containing %s", c.to, err, c.want)
		}
	}
}

// Values checked by hand against the raw JSON of the two real streaming
// logs (python's json module on the lines).
func TestDecodeStreamingRealLogs(t *testing.T) {
	var progress []*StreamingQueryProgress
	var started []*StreamingQueryStarted
	var terminated []*StreamingQueryTerminated
	read := func(rel string) {
		r := eventtest.LogReader(t, rel)
		defer r.Close()
		eachLine(t, r, func(n int, line []byte) {
			ev, err := DecodeLine(line)
			if err != nil {
				t.Fatalf("%s:%d: %v", rel, n, err)
			}
			switch e := ev.(type) {
			case *StreamingQueryProgress:
				progress = append(progress, e)
			case *StreamingQueryStarted:
				started = append(started, e)
			case *StreamingQueryTerminated:
				terminated = append(terminated, e)
			}
		})
	}
	read("extra/apache-spark/sql-core-spark-events/local-1596020211915")
	if len(started) != 1 || len(progress) != 8 || len(terminated) != 0 {
		t.Fatalf("local-1596020211915: %d started, %d progress, %d terminated; want 1, 8, 0", len(started), len(progress), len(terminated))
	}
	if s := started[0]; s.ID != "8d268dc2-bc9c-4be8-97a9-b135d2943028" || s.RunID != "e225d92f-2545-48f8-87a2-9c0309580f8a" || s.Name != "" || s.Timestamp != 1596020215947 {
		t.Errorf("started %+v", s)
	}
	// Batch 0: the first, with "inputRowsPerSecond":"NaN".
	if p := progress[0]; p.BatchID != 0 || !math.IsNaN(p.Sources[0].InputRowsPerSecond) || p.Sources[0].StartOffset != "" ||
		p.Sources[0].EndOffset != `{"test5":{"0":48279}}` {
		t.Errorf("batch 0: %+v", p)
	}
	// Batch 1: timestamp 2020-07-29T10:57:03.168Z, batchDuration 622,
	// durationMs triggerExecution 622 addBatch 478 walCommit 59, one state
	// operator with numRowsTotal 1 and memoryUsedBytes 1216, source offsets
	// 48279 → 48642 with 363 rows at 50.74793792814204 in / 583.6012861736334
	// processed rows per second.
	p := progress[1]
	phases := map[string]int64{}
	for _, nv := range p.DurationMs {
		phases[nv.Name] = nv.Value
	}
	if p.BatchID != 1 || p.Timestamp != 1596020223168 || p.BatchDuration != 622 || phases["triggerExecution"] != 622 ||
		phases["addBatch"] != 478 || phases["walCommit"] != 59 || len(phases) != 6 {
		t.Errorf("batch 1: id %d timestamp %d duration %d phases %v", p.BatchID, p.Timestamp, p.BatchDuration, phases)
	}
	if len(p.StateOperators) != 1 || p.StateOperators[0].NumRowsTotal != 1 || p.StateOperators[0].MemoryUsedBytes != 1216 {
		t.Errorf("batch 1 state %+v", p.StateOperators)
	}
	if s := p.Sources[0]; s.Description != "KafkaV2[Subscribe[test5]]" || s.StartOffset != `{"test5":{"0":48279}}` || s.EndOffset != `{"test5":{"0":48642}}` ||
		s.NumInputRows != 363 || s.InputRowsPerSecond != 50.74793792814204 || s.ProcessedRowsPerSecond != 583.6012861736334 || p.HasWatermark {
		t.Errorf("batch 1 source %+v", s)
	}

	progress, started, terminated = nil, nil, nil
	read("extra/spark-rapids-tools/user_tools/tests/spark_rapids_tools_e2e/resources/event_logs/streaming_eventlog.zstd")
	if len(started) != 1 || len(progress) != 1 || len(terminated) != 1 {
		t.Fatalf("streaming_eventlog.zstd: %d started, %d progress, %d terminated; want 1 each", len(started), len(progress), len(terminated))
	}
	// Batch 133944: timestamp 2024-03-01T18:46:05.095Z, batchDuration
	// 159155, addBatch 158574, no state operators, a CloudFiles source of
	// 4210 rows at 7.10949294623467 in / 26.452200684866952 processed rows
	// per second, sink numOutputRows -1; terminated without exception.
	p = progress[0]
	if p.BatchID != 133944 || p.Timestamp != 1709318765095 || p.BatchDuration != 159155 || len(p.StateOperators) != 0 || p.SinkOutputRows != -1 {
		t.Errorf("batch 133944: %+v", p)
	}
	if s := p.Sources[0]; s.NumInputRows != 4210 || s.InputRowsPerSecond != 7.10949294623467 || s.ProcessedRowsPerSecond != 26.452200684866952 ||
		s.EndOffset != `{"seqNum":139046332,"sourceVersion":1}` || s.LatestOffset != "" {
		t.Errorf("batch 133944 source %+v", s)
	}
	if e := terminated[0]; e.ID != "c86ef692-94c1-4171-919e-477831146f91" || e.RunID != "02142f42-c81e-43fb-9119-eda3f2507b60" || e.Exception != "" {
		t.Errorf("terminated %+v", e)
	}
}
