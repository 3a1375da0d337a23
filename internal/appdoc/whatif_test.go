package appdoc

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// The document carries the what-if under "whatIf", the stage retries and
// the driver's memory under their own keys, as the JSON API and `analyze
// --json` serve them.
func TestDocWhatIf(t *testing.T) {
	doc, err := Read(context.Background(), discoverOne(t, testkit.Events(t, "app-20200706201101-0003")), analysis.DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		WhatIf *struct {
			WallMs, DriverMs, ExecutorMs int64
			Executors, IdealExecutors    int
			CriticalPath                 struct {
				WallMs int64
				Stages []struct{ StageID, AttemptID int }
			}
			Predictions []struct {
				Executors int
				WallMs    int64
			}
		} `json:"whatIf"`
		StageRetries []any `json:"stageRetries"`
		Driver       *struct {
			HeapPeakBytes int64 `json:"heapPeakBytes"`
			GCTimeMs      int64 `json:"gcTimeMs"`
		} `json:"driver"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	w := got.WhatIf
	if w == nil || w.WallMs != doc.End-doc.Start || w.DriverMs+w.ExecutorMs != w.WallMs || w.Executors != 1 ||
		len(w.Predictions) == 0 || len(w.CriticalPath.Stages) == 0 || w.CriticalPath.WallMs > w.Predictions[len(w.Predictions)-1].WallMs {
		t.Errorf("whatIf %+v", w)
	}
	if got.StageRetries == nil || len(got.StageRetries) != 0 {
		t.Errorf("stageRetries %v, want []", got.StageRetries)
	}
	// The log's driver reports its heap and GC times per stage.
	if d := got.Driver; d == nil || d.HeapPeakBytes != 213367864 || d.GCTimeMs != 115+339 {
		t.Errorf("driver %+v", got.Driver)
	}
}
