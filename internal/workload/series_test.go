package workload_test

import (
	"fmt"
	"github.com/sparkglance/sparkglance/internal/workload/workloadtest"
	"slices"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/simulate"
	"github.com/sparkglance/sparkglance/internal/workload"
)

// analyze runs a simulated log through the analysis, line by line.
func analyze(t *testing.T, cfg simulate.Config) analysis.Report {
	t.Helper()
	return workloadtest.Analyze(t, cfg)
}

// series analyses the generator's workload series of n runs.
func series(t *testing.T, n int) ([]simulate.WorkloadRun, []analysis.Report, []workload.Summary) {
	t.Helper()
	runs, err := simulate.WorkloadRuns(n, time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	reports := make([]analysis.Report, n)
	sums := make([]workload.Summary, n)
	for i, r := range runs {
		reports[i] = analyze(t, r.Config)
		sums[i] = workload.Summarize(&reports[i])
	}
	return runs, reports, sums
}

// The generator's series of 10 runs: 7 steady, then a property change
// that makes the join 3× slower, the input doubled with proportional time,
// half the executors. Each run is judged against the runs before it.
func TestSeriesBaselinesAndRegressions(t *testing.T) {
	runs, reports, sums := series(t, 10)
	results := make([]workload.Result, len(sums))
	for i := range sums {
		if sums[i].Workload != "nightly sales rollup <date>" {
			t.Fatalf("run %d: workload %q", i, sums[i].Workload)
		}
		results[i] = workload.Evaluate(&sums[i], sums[:i], workload.Options{})
	}
	for i := range 3 {
		if r := results[i]; r.Baseline != nil || r.Status() != "no baseline yet" || r.Why[0] != fmt.Sprintf("no baseline yet: %d of 3 previous finished runs", i) {
			t.Errorf("run %d: baseline %v, status %q, why %q", i, r.Baseline, r.Status(), r.Why)
		}
	}
	for i := 3; i < 7; i++ {
		if r := results[i]; r.Status() != "ok" || len(r.Why) != 0 || r.Baseline.Runs != i {
			t.Errorf("steady run %d: status %q, why %q, baseline of %d runs", i, r.Status(), r.Why, r.Baseline.Runs)
		}
	}

	// The baseline of run 7 is the median of runs 0–6, measure by measure,
	// computed here from the reports themselves.
	slow := results[7]
	medianOf := func(f func(r *analysis.Report) float64) float64 {
		var xs []float64
		for i := range 7 {
			xs = append(xs, f(&reports[i]))
		}
		slices.Sort(xs)
		return xs[3]
	}
	for m, f := range map[workload.Measure]func(r *analysis.Report) float64{
		workload.WallTime:    func(r *analysis.Report) float64 { return float64(r.End-r.Start) / 1e3 },
		workload.TaskCPUTime: func(r *analysis.Report) float64 { return r.Totals.CPUSeconds },
		workload.CoreHours:   func(r *analysis.Report) float64 { return r.Totals.AvailableCoreSecs / 3600 },
		workload.Efficiency:  func(r *analysis.Report) float64 { return r.Totals.CPUSeconds / r.Totals.AvailableCoreSecs },
		workload.SpillMemory: func(r *analysis.Report) float64 { return r.Totals.MemoryBytesSpill },
		workload.Energy:      func(r *analysis.Report) float64 { return r.Energy.WattHours },
		workload.Cost:        func(r *analysis.Report) float64 { return r.Cost.Total },
	} {
		want := medianOf(f)
		got, ok := slow.Baseline.Values.Get(m)
		if !ok || got != want {
			t.Errorf("baseline %s = %v, want the median %v", m, got, want)
		}
		c, _ := slow.Ratio(m)
		if c.Ratio != f(&reports[7])/want {
			t.Errorf("%s ratio %v, want %v", m, c.Ratio, f(&reports[7])/want)
		}
	}
	if slow.Baseline.Runs != 7 || slow.Baseline.Closest != sums[6].ID() {
		t.Errorf("baseline of %d runs, closest %s", slow.Baseline.Runs, slow.Baseline.Closest)
	}

	// The property change: wall time, core-hours and cost regressed, the
	// property named, the join first where the time went.
	if got := names(slow.Regressed); !slices.Equal(got, []string{"wall_time", "core_hours", "cost"}) || runs[7].Change != simulate.WorkloadPropertySlow {
		t.Errorf("run 7 (%s) regressed on %v", runs[7].Change, got)
	}
	if want := []string{
		"regressed against the median of the previous 7 runs: wall time 5m21s (1.6× baseline 3m19s), core-hours 1.7× baseline, cost 1.7× baseline",
		"changed since the previous run app-20261107020000-0007: properties spark.sql.shuffle.partitions: 200 → 2000",
		"where the time went, against run app-20261107020000-0007: join at NightlyRollup.scala:88 1m01s → 3m04s (+2m02s); " +
			"parquet scan at NightlyRollup.scala:42 8.9s → 9.3s (+0.4s); distinct at NightlyRollup.scala:104 16.1s → 16.4s (+0.3s)",
	}; !slices.Equal(slow.Why, want) {
		t.Errorf("why = %q, want %q", slow.Why, want)
	}
	top := slow.Where.Stages[0]
	if top.Key != simulate.WorkloadSlowStage || top.Share < 0.95 || top.Share > 1.05 {
		t.Errorf("top stage %q share %.3f, want the join with about all the difference", top.Key, top.Share)
	}
	if r := float64(top.New.TaskMs) / float64(top.Base.TaskMs); r < 2.9 || r > 3.1 {
		t.Errorf("join task time ratio %.3f, want about 3", r)
	}
	f, ok := slow.Finding()
	if !ok || f.Kind != analysis.KindWorkloadRegression || f.Numbers["alert"] != 1 || f.Numbers["wall_timeRatio"] != slow.Regressed[0].Ratio {
		t.Errorf("finding %+v", f)
	}

	// The doubled input: everything grew about 2×, explained by the input.
	grown := results[8]
	if grown.Fires() || grown.Status() != "explained by input" || !slices.Equal(grown.Why, []string{"input grew 2.0×; time per input byte unchanged"}) {
		t.Errorf("run 8: status %q why %q regressed %v", grown.Status(), grown.Why, names(grown.Regressed))
	}
	if got := names(grown.Explained); !slices.Equal(got, []string{"wall_time", "task_cpu_time", "core_hours", "spill_disk", "cost"}) {
		t.Errorf("run 8 explained %v", got)
	}
	if f, ok := grown.Finding(); !ok || f.Numbers["alert"] != 0 {
		t.Errorf("run 8 finding %+v %v", f, ok)
	}

	// Half the executors: slower, cheaper, more efficient; no threshold
	// crossed. The executor set diff says what changed.
	half := results[9]
	if half.Status() != "ok" {
		t.Errorf("run 9: %q %q", half.Status(), half.Why)
	}
	if c := half.Changes; c == nil || !slices.Equal(c.ExecutorChanges, []string{"executors 12 → 6", "at most 8 → 4 at once"}) {
		t.Errorf("run 9 executor changes %v", c.ExecutorChanges)
	}
	if c, _ := half.Ratio(workload.Efficiency); c.Ratio <= 1.2 {
		t.Errorf("run 9 efficiency ratio %.3f", c.Ratio)
	}
}

func names(cs []workload.Change) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out
}
