package eventlog

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/sparkglance/sparkglance/internal/analysis/sqlops"
	"github.com/sparkglance/sparkglance/internal/simulate"
)

// The series budget of one finished application, as docs/scaling.md
// states it:
//
//	base    = 20 + A + F + Q + 5·[a finished SQL execution] + 3·O
//	all     = base + 15·E         (E executors; 17·E while running)
//	all, K  = base + 15·min(E, K+1) when E > K ("other" is one executor)
//	summary = base + 55
//	none    = base
//
// A active stages, F findings, Q SQL execution statuses, O operators kept
// (≤ --sql.max-operators). A summary counts as its quantiles plus _sum and
// _count, as in the exposition.
const (
	seriesPerApp            = 20
	seriesPerExecutor       = 15
	seriesOfExecutorSummary = 55
)

// countAppSeries counts the series of one application in a scrape.
func countAppSeries(mfs map[string]*dto.MetricFamily, appID string) (n int) {
	for _, mf := range mfs {
	next:
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "app_id" && l.GetValue() == appID {
					if s := m.GetSummary(); s != nil {
						n += len(s.GetQuantile()) + 2
					} else {
						n++
					}
					continue next
				}
			}
		}
	}
	return n
}

// executorIDs lists the executor_id values of a family for one application.
func executorIDs(mfs map[string]*dto.MetricFamily, family string) []string {
	var ids []string
	for _, m := range mfs[family].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "executor_id" && !slices.Contains(ids, l.GetValue()) {
				ids = append(ids, l.GetValue())
			}
		}
	}
	return ids
}

func TestSeriesBudgetPerApplication(t *testing.T) {
	dir := t.TempDir()
	cfg := simulate.DefaultConfig()
	cfg.AppID, cfg.Executors, cfg.CoresPerExecutor, cfg.TasksPerStage = "app-20261201120000-0001", 12, 2, 48
	path := filepath.Join(dir, cfg.AppID)
	writeSimulatedFile(t, path, cfg)

	// The formula's inputs, from an analysis of the log of its own.
	base := testConfig(dir)
	r := referenceReport(t, path, base.Interval)
	e := len(r.Executors)
	if e < 12 {
		t.Fatalf("%d executors in the simulated application", e)
	}
	sql := sqlops.Summarize(r.SQL, base.SQLMaxOperators)
	want := seriesPerApp + len(uniqueFindings(r.Findings)) + len(sql.ExecutionsByStatus) + 3*len(sql.Operators)
	if len(sql.DurationsSeconds) > 0 {
		want += 5
	}
	// Stages and jobs (docs/metrics.md): 17 series per stage id kept (the
	// simulated log has CPU time, has ended and has fewer stages than
	// --eventlog.max-stages), jobs by 2 statuses, the application's energy
	// and cost, and the job-duration summary (5) once a finished job has
	// times.
	stageIDs := map[int]bool{}
	for _, st := range r.Stages {
		stageIDs[st.StageID] = true
	}
	if len(stageIDs) == 0 || len(stageIDs) > base.MaxStages {
		t.Fatalf("%d stage ids in the simulated application, want 1..%d", len(stageIDs), base.MaxStages)
	}
	want += 17*len(stageIDs) + 4 + 5
	const limit = 5

	scrape := func(mode string, max int) map[string]*dto.MetricFamily {
		c := base
		c.ExecutorMetrics, c.MaxExecutorsPerApp = mode, max
		w := startWatcher(t, c)
		waitReady(t, w)
		return gather(t, w)
	}
	all, summary, none, capped := scrape(ExecutorMetricsAll, 0), scrape(ExecutorMetricsSummary, 0), scrape(ExecutorMetricsNone, 0), scrape(ExecutorMetricsAll, limit)
	for _, c := range []struct {
		what string
		mfs  map[string]*dto.MetricFamily
		want int
	}{
		{"none", none, want},
		{"all", all, want + seriesPerExecutor*e},
		{"summary", summary, want + seriesOfExecutorSummary},
		{"all, at most 5 executors", capped, want + seriesPerExecutor*(limit+1)},
	} {
		if got := countAppSeries(c.mfs, cfg.AppID); got != c.want {
			t.Errorf("%s: %d series for the application, the budget says %d (E=%d)", c.what, got, c.want, e)
		}
	}

	// Nothing is lost by the limit: "other" holds the rest, and the named
	// executors are the busiest.
	for _, cat := range taskTimeCategories {
		a := sumSeries(all, "spark_executor_task_time_seconds_total", map[string]string{"category": cat})
		c := sumSeries(capped, "spark_executor_task_time_seconds_total", map[string]string{"category": cat})
		if !near(a, c) {
			t.Errorf("task time %s: %v over all executors, %v with the limit", cat, a, c)
		}
	}
	for _, fam := range []string{"spark_executor_spill_bytes_total", "spark_executor_shuffle_read_bytes_total", "spark_executor_input_bytes_total"} {
		if a, c := sumSeries(all, fam, nil), sumSeries(capped, fam, nil); !near(a, c) {
			t.Errorf("%s: %v over all executors, %v with the limit", fam, a, c)
		}
	}
	ids := executorIDs(capped, "spark_executor_task_time_seconds_total")
	if len(ids) != limit+1 || !slices.Contains(ids, otherExecutor) {
		t.Fatalf("executors with the limit: %v", ids)
	}
	runOf := func(id string) float64 {
		v, _ := series(all, "spark_executor_task_time_seconds_total", map[string]string{"executor_id": id, "category": "run"})
		return v
	}
	allIDs := executorIDs(all, "spark_executor_task_time_seconds_total")
	slices.SortFunc(allIDs, func(a, b string) int {
		switch ra, rb := runOf(a), runOf(b); {
		case ra > rb:
			return -1
		case ra < rb:
			return 1
		}
		return strings.Compare(a, b)
	})
	for _, id := range allIDs[:limit] {
		if !slices.Contains(ids, id) {
			t.Errorf("executor %s (run %v s, among the %d busiest) not kept; kept %v", id, runOf(id), limit, ids)
		}
	}

	// The summary: count = executors, sum = the total, quantile 1 = the busiest.
	for _, m := range summary["spark_app_executor_task_time_seconds"].GetMetric() {
		cat := ""
		for _, l := range m.GetLabel() {
			if l.GetName() == "category" {
				cat = l.GetValue()
			}
		}
		s := m.GetSummary()
		if s.GetSampleCount() != uint64(e) {
			t.Errorf("%s: count %d, want %d executors", cat, s.GetSampleCount(), e)
		}
		if total := sumSeries(all, "spark_executor_task_time_seconds_total", map[string]string{"category": cat}); !near(s.GetSampleSum(), total) {
			t.Errorf("%s: sum %v, want %v", cat, s.GetSampleSum(), total)
		}
		busiest := 0.0
		for _, id := range allIDs {
			v, _ := series(all, "spark_executor_task_time_seconds_total", map[string]string{"executor_id": id, "category": cat})
			busiest = max(busiest, v)
		}
		for _, q := range s.GetQuantile() {
			if q.GetQuantile() == 1 && !near(q.GetValue(), busiest) {
				t.Errorf("%s: quantile 1 = %v, want the busiest executor's %v", cat, q.GetValue(), busiest)
			}
		}
	}
	if n := len(summary["spark_app_executor_task_time_seconds"].GetMetric()); n != len(taskTimeCategories) {
		t.Errorf("%d task-time summaries, want one per category", n)
	}
	for _, fam := range []string{"spark_executor_task_time_seconds_total", "spark_executor_settled_spill_bytes_total", "spark_executor_interval_spill_bytes"} {
		if summary[fam] != nil || none[fam] != nil {
			t.Errorf("%s exported under summary or none", fam)
		}
	}
}

// The executors named under the limit stay named as the application grows,
// so "other" never goes backwards.
func TestExecutorLimitKeepsNamesAndOtherMonotonic(t *testing.T) {
	var s executorShaper
	view := func(runs map[string]float64) *appView {
		v := &appView{viewData: viewData{appID: "a"}}
		for id, r := range runs {
			var e execView
			e.id = id
			e.totals.taskTime[taskTimeIndex["run"]] = r
			v.executors = append(v.executors, e)
		}
		slices.SortFunc(v.executors, func(a, b execView) int { return strings.Compare(a.id, b.id) })
		return v
	}
	other := func(v *appView) float64 {
		for _, e := range v.executors {
			if e.id == otherExecutor {
				return e.totals.taskTime[taskTimeIndex["run"]]
			}
		}
		return 0
	}
	v1 := s.shape(view(map[string]float64{"1": 10, "2": 5, "3": 1}), ExecutorMetricsAll, 2)
	if o := other(v1); o != 1 || len(v1.executors) != 3 {
		t.Fatalf("first view: other %v, executors %v", o, v1.executors)
	}
	// Executor 3 becomes the busiest; it stays in "other", which grows.
	v2 := s.shape(view(map[string]float64{"1": 11, "2": 6, "3": 50, "4": 2}), ExecutorMetricsAll, 2)
	if o := other(v2); o != 52 {
		t.Errorf("second view: other %v, want 52 (executors 3 and 4)", o)
	}
	if ids := []string{v2.executors[0].id, v2.executors[1].id}; !slices.Equal(ids, []string{"1", "2"}) {
		t.Errorf("named executors changed: %v", ids)
	}
}
