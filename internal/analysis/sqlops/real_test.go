package sqlops

import (
	"math"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// readLog feeds a real log (any codec, through the reader) into a model
// and, independently of it, sums every SQL accumulator's updates.
func readLog(t testing.TB, path string) (*Model, map[int64]int64) {
	t.Helper()
	logs, err := sparklog.Discover(path)
	if err != nil || len(logs) != 1 {
		t.Fatalf("discover %s: %d logs, %v", path, len(logs), err)
	}
	m := NewModel(Options{})
	sums := map[int64]int64{}
	h := sparklog.HandlerFuncs{
		OnEvent: func(_ sparklog.Position, ev sparkevent.Event) error {
			m.Add(ev)
			switch e := ev.(type) {
			case *sparkevent.TaskEnd:
				for _, a := range e.Task.Accumulables {
					if a.Metadata == "sql" && a.HasUpdate && a.Update >= 0 {
						sums[a.ID] += a.Update
					}
				}
			case *sparkevent.DriverAccumUpdates:
				for _, u := range e.Updates {
					if u.Value >= 0 {
						sums[u.ID] += u.Value
					}
				}
			}
			return nil
		},
		OnProblem: func(p sparklog.Problem) { t.Errorf("%s: %v", path, p) },
	}
	if _, err := sparklog.Read(logs[0], h, sparklog.Options{}); err != nil {
		t.Fatal(err)
	}
	return m, sums
}

type realCase struct {
	path          string
	executions    int
	minChecked    int // accumulators with a recorded cumulative value
	unmapped      int64
	adaptive      bool
	largeLogShort bool // skipped under -short
}

var realCases = []realCase{
	{path: "local-1642039451826", executions: 2, minChecked: 48, adaptive: true},
	{path: "app-20200706201101-0003", executions: 1, minChecked: 7},
	{path: "extra/apache-spark/sql-core-spark-events/local-1596020211915", executions: 24, minChecked: 287},
	{path: "extra/spark-rapids-tools/spark-events-qualification/nds_q88_photon_db_13_3.zstd", executions: 27, minChecked: 3337, adaptive: true, largeLogShort: true},
	{path: "extra/spark-rapids-tools/spark-events-qualification/nds_q72_dataproc_2_2.zstd", executions: 25, minChecked: 264, adaptive: true},
	{path: "extra/spark-rapids-tools/spark-events-qualification/aqeshuffle_eventlog.zstd", executions: 1, minChecked: 43, adaptive: true},
	// The RAPIDS run's GPU accumulators are named only by
	// SparkListenerSQLAdaptiveSQLMetricUpdates (no plan node), so 105
	// stay unmapped; the 85 with a recorded value still check out.
	{path: "extra/spark-rapids-tools/spark-events-profiling/gpu_oom_eventlog.zstd", executions: 25, minChecked: 85, unmapped: 105, adaptive: true},
}

// TestRealLogsCheckThemselves: for every SQL accumulator, Σ task + driver
// updates equals the last cumulative value Spark recorded, and every
// operator metric of the final plan equals the sum of its accumulator's
// updates, computed here straight from the events.
func TestRealLogsCheckThemselves(t *testing.T) {
	for _, c := range realCases {
		t.Run(c.path, func(t *testing.T) {
			if c.largeLogShort && testing.Short() {
				t.Skip("142 MB log; runs without -short")
			}
			m, sums := readLog(t, testkit.Events(t, c.path))
			chk := m.Check()
			if len(chk.Mismatches) > 0 || chk.Checked < c.minChecked || chk.Unmapped != c.unmapped {
				t.Errorf("check: %d checked (want ≥ %d), %d unmapped (want %d), mismatches %v", chk.Checked, c.minChecked, chk.Unmapped, c.unmapped, chk.Mismatches)
			}
			execs := m.Executions()
			if len(execs) != c.executions {
				t.Fatalf("%d executions, want %d", len(execs), c.executions)
			}
			adaptive := false
			for _, x := range m.execs {
				adaptive = adaptive || len(x.versions) > 1
			}
			if adaptive != c.adaptive {
				t.Errorf("AQE plan updates seen: %v, want %v", adaptive, c.adaptive)
			}
			for _, e := range execs {
				if e.Status != StatusCompleted && e.Status != StatusFailed {
					t.Errorf("execution %d: status %s in a finished log", e.ExecutionID, e.Status)
				}
				compareFinalPlan(t, m, e, sums)
			}
		})
	}
}

// compareFinalPlan walks the final plan in pre-order (the operator ids)
// and checks each metric's total against the independent sums, for
// accumulators seen first in this plan.
func compareFinalPlan(t *testing.T, m *Model, e Execution, sums map[int64]int64) {
	t.Helper()
	x := m.execs[e.ExecutionID]
	if len(x.versions) == 0 {
		return
	}
	want := make([]map[string]float64, 0, len(e.Operators))
	seen := map[int64]bool{}
	walk(x.versions[len(x.versions)-1], func(n *sparkevent.PlanNode) {
		w := map[string]float64{}
		for _, pm := range n.Metrics {
			if seen[pm.AccumulatorID] {
				continue
			}
			seen[pm.AccumulatorID] = true
			v := float64(sums[pm.AccumulatorID])
			switch pm.MetricType {
			case "timing":
				v /= 1e3
			case "nsTiming":
				v /= 1e9
			case "sum", "size":
			default:
				continue
			}
			w[pm.Name] += v
		}
		want = append(want, w)
	})
	for i, w := range want {
		o := e.Operators[i]
		for name, v := range w {
			if got := o.Metrics[name]; math.Abs(got-v) > 1e-9*math.Max(1, math.Abs(v)) && !mergedFromEarlier(x, o) {
				t.Errorf("execution %d operator %d %s: %q = %g, events sum to %g", e.ExecutionID, i, o.Name, name, got, v)
			}
		}
	}
}

// mergedFromEarlier: an earlier plan version may add accumulators to a
// final operator; only then may totals exceed the final plan's own.
func mergedFromEarlier(x *execution, o Operator) bool { return len(x.versions) > 1 && o.Superseded }

// TestRealFigures pins figures checked by hand against the raw JSON.
func TestRealFigures(t *testing.T) {
	t.Run("local-1642039451826 exclusive time", func(t *testing.T) {
		m, _ := readLog(t, testkit.Events(t, "local-1642039451826"))
		e := m.Executions()[0]
		// WholeStageCodegen (2): duration 104 ms − HashAggregate's
		// "time in aggregation build" 93 ms inside it = 11 ms.
		o := e.Operators[6]
		if o.Name != "WholeStageCodegen (2)" || math.Abs(o.ExclusiveSeconds-0.011) > 1e-9 {
			t.Errorf("operator 6 %s exclusive %g, want WholeStageCodegen (2) 0.011", o.Name, o.ExclusiveSeconds)
		}
		// The exchange's own time: shuffle write 259554613 ns + fetch wait 0.
		if x := e.Operators[10]; x.Name != "Exchange" || math.Abs(x.ExclusiveSeconds-0.259554613) > 1e-12 {
			t.Errorf("operator 10 %s exclusive %g", x.Name, x.ExclusiveSeconds)
		}
	})
	t.Run("aqeshuffle spill", func(t *testing.T) {
		m, _ := readLog(t, testkit.Events(t, "extra/spark-rapids-tools/spark-events-qualification/aqeshuffle_eventlog.zstd"))
		var spill float64
		var spilled []string
		for _, o := range m.Executions()[0].Operators {
			spill += o.SpillBytes
			if o.SpillBytes > 0 {
				spilled = append(spilled, o.Name)
			}
		}
		// Equals the tasks' Memory Bytes Spilled (shared README: 553648128).
		if spill != 553648128 || strings.Join(spilled, ",") != "Sort,Sort" {
			t.Errorf("spill %g by %v", spill, spilled)
		}
		f := Findings(m.Executions(), DefaultThresholds())
		if len(f) != 2 || f[0].Kind != KindNativeSpill || f[0].Numbers["spillBytes"] != 150994944 || f[1].Numbers["spillBytes"] != 402653184 {
			t.Errorf("findings %v", f)
		}
	})
	t.Run("nds_q88 photon", func(t *testing.T) {
		if testing.Short() {
			t.Skip("142 MB log; runs without -short")
		}
		m, _ := readLog(t, testkit.Events(t, "extra/spark-rapids-tools/spark-events-qualification/nds_q88_photon_db_13_3.zstd"))
		execs := m.Executions()
		q := execs[len(execs)-1]
		var total float64
		engines := map[string]int{}
		for _, o := range q.Operators {
			total += o.ExclusiveSeconds
			engines[o.Engine]++
		}
		// Σ Photon "exclusive time" updates of query88 = 3747.657967455 s
		// (summed from the JSON with a script), + 0.028081393 s of the one
		// WholeStageCodegen (duration 92 ms − its children).
		if q.Description != "query88" || math.Abs(total-3747.686048848) > 1e-6 || engines[EnginePhoton] < 250 {
			t.Errorf("%q: exclusive %.9f, engines %v", q.Description, total, engines)
		}
		s := Summarize(execs, 3)
		if len(s.Operators) != 4 || s.Operators[0].Operator != "PhotonScan parquet" || s.Operators[3].Operator != OtherOperators || s.ExecutionsByStatus[StatusCompleted] != 27 {
			t.Errorf("summary %+v", s)
		}
	})
}
