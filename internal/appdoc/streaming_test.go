package appdoc

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// The document of a real streaming log (zstd) carries its query under
// "streaming", as analyze --json, report and the JSON API write it; the
// values are those of the log's one progress event (batch 133944:
// batchDuration 159155 ms, 4210 input rows) and its termination.
func TestStreamingInDocument(t *testing.T) {
	path := testkit.Events(t, "extra/spark-rapids-tools/user_tools/tests/spark_rapids_tools_e2e/resources/event_logs/streaming_eventlog.zstd")
	doc, err := Read(context.Background(), discoverOne(t, path), analysis.DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Streaming []struct {
			ID      string  `json:"id"`
			Status  string  `json:"status"`
			Batches int64   `json:"batches"`
			Input   int64   `json:"inputRows"`
			Seconds float64 `json:"batchSeconds"`
			Last    struct {
				BatchID int64 `json:"batchId"`
			} `json:"last"`
		} `json:"streaming"`
		Events map[string]int64 `json:"events"`
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Streaming) != 1 {
		t.Fatalf("streaming: %+v", back.Streaming)
	}
	q := back.Streaming[0]
	if q.ID != "c86ef692-94c1-4171-919e-477831146f91" || q.Status != "stopped" || q.Batches != 1 || q.Input != 4210 || q.Seconds != 159.155 || q.Last.BatchID != 133944 {
		t.Errorf("query %+v", q)
	}
	// A log without streaming has an empty list, not null: consumers index it.
	doc, err = Read(context.Background(), discoverOne(t, testkit.Events(t, "app-20200706201101-0003")), analysis.DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(doc.Streaming); string(b) != "[]" {
		t.Errorf("no streaming: %s", b)
	}
}
