package backfill

import (
	"bytes"
	"runtime"
	"testing"
	"time"
	"weak"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// Once every log is read, no application's report is held: each waits as
// its rendered samples in the spool, so what a run holds is bounded by the
// logs in flight, not by the logs read (the file groups each family's
// samples of every application, so none can be written before the last
// log is read). Weak pointers to the reports' intervals say which are
// still reachable after a collection.
func TestReportsNotKept(t *testing.T) {
	var reports []weak.Pointer[analysis.Interval]
	testRendered = func(r *analysis.Report) {
		if len(r.Intervals) > 0 {
			reports = append(reports, weak.Make(&r.Intervals[0]))
		}
	}
	held := -1
	testAssembling = func() {
		runtime.GC()
		held = 0
		for _, p := range reports {
			if p.Value() != nil {
				held++
			}
		}
	}
	t.Cleanup(func() { testRendered, testAssembling = nil, nil })

	cfg := analysis.DefaultConfig()
	cfg.Interval = 30 * time.Second
	var out bytes.Buffer
	// One log at a time: testRendered runs on the worker.
	sum, err := Write(&out, []string{testkit.Events(t)}, Options{Analysis: cfg, Parallel: 1, IncludeUnfinished: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) < 10 || sum.Apps < 10 {
		t.Fatalf("%d reports with intervals rendered, %d applications written; want the real logs' ten or more", len(reports), sum.Apps)
	}
	if held != 0 {
		t.Errorf("%d of %d reports still held once every log was read, want none", held, len(reports))
	}
}
