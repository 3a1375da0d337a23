package eventlog

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// The cost series of a real log equal the analysis's cost (the default
// prices, in USD): spark_app_cost_total the application's, and
// spark_stage_cost_total each stage's share, its attempts summed. With
// --cost.core-hour=0 there is no cost series at all, nor a cost measure
// of the workload.
func TestCostSeries(t *testing.T) {
	src := testkit.Events(t, "application_1628109047826_1317105")
	ref := referenceReport(t, src, DefaultConfig().Interval)
	if ref.Cost == nil || len(ref.Cost.Stages) == 0 || ref.Cost.Total <= 0 {
		t.Fatalf("no cost in the reference report: %+v", ref.Cost)
	}
	for _, priced := range []bool{true, false} {
		dir := t.TempDir()
		if err := os.Symlink(src, filepath.Join(dir, filepath.Base(src))); err != nil {
			t.Fatal(err)
		}
		cfg := testConfig(dir)
		cfg.Interval = DefaultConfig().Interval
		if !priced {
			cfg.Analysis.Cost.CoreHour = 0
		}
		w := startWatcher(t, cfg)
		waitReady(t, w)
		mfs := gather(t, w)
		if !priced {
			for _, name := range []string{"spark_app_cost_total", "spark_stage_cost_total"} {
				if mfs[name] != nil {
					t.Errorf("--cost.core-hour=0: %s exported", name)
				}
			}
			if _, ok := series(mfs, "spark_workload_last_run_value", map[string]string{"measure": "cost"}); ok {
				t.Error("--cost.core-hour=0: the workload's cost exported")
			}
			continue
		}
		app := ref.AppID
		if got, ok := series(mfs, "spark_app_cost_total", map[string]string{"app_id": app, "currency": analysis.DefaultCostCurrency}); !ok || !near(got, ref.Cost.Total) {
			t.Errorf("application cost %v (present %v), want %v", got, ok, ref.Cost.Total)
		}
		byStage := map[int]float64{}
		for _, sc := range ref.Cost.Stages {
			byStage[sc.StageID] += sc.Cost
		}
		for id, want := range byStage {
			l := map[string]string{"app_id": app, "stage_id": strconv.Itoa(id), "currency": analysis.DefaultCostCurrency}
			if got, ok := series(mfs, "spark_stage_cost_total", l); !ok || !near(got, want) {
				t.Errorf("stage %d cost %v (present %v), want %v", id, got, ok, want)
			}
		}
		if got, ok := series(mfs, "spark_workload_last_run_value", map[string]string{"measure": "cost"}); !ok || !near(got, ref.Cost.Total) {
			t.Errorf("the workload's last run cost %v (present %v), want %v", got, ok, ref.Cost.Total)
		}
	}
}
