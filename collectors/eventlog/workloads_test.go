package eventlog

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/internal/simulate"
	"github.com/sparkglance/sparkglance/internal/testkit/promtest"
	"github.com/sparkglance/sparkglance/internal/workload"
)

// writeWorkloadRuns writes the generator's workload series into files of
// a directory outside the watched one, oldest first.
func writeWorkloadRuns(t testing.TB, n int) []string {
	t.Helper()
	runs, err := simulate.WorkloadRuns(n, time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	paths := make([]string, n)
	for i, r := range runs {
		paths[i] = filepath.Join(dir, r.AppID)
		if err := simulate.WriteFile(paths[i], r.Config); err != nil {
			t.Fatal(err)
		}
	}
	return paths
}

// The runs of the generator's series come one after another into the
// watched directory: the regression series is 1 only while the latest
// finished run is the one whose join got 3× slower, and the runs are
// counted by how they compared with their baseline.
func TestWorkloadSeriesFollowRuns(t *testing.T) {
	const n = 10
	paths := writeWorkloadRuns(t, n)
	dir := t.TempDir()
	w := startWatcher(t, testConfig(dir))
	waitReady(t, w)
	const key = "nightly sales rollup <date>"
	status := []string{"no_baseline", "no_baseline", "no_baseline", "ok", "ok", "ok", "ok", "regressed", "explained_by_input", "ok"}
	want := map[string]float64{}
	for i, p := range paths {
		if err := os.Rename(p, filepath.Join(dir, filepath.Base(p))); err != nil {
			t.Fatal(err)
		}
		want[status[i]]++
		waitFor(t, 30*time.Second, "run counted", func() bool {
			mfs := gather(t, w)
			return sumSeries(mfs, "spark_workload_runs_total", map[string]string{"workload": key}) == float64(i+1)
		})
		mfs := gather(t, w)
		for s, c := range want {
			if got, _ := series(mfs, "spark_workload_runs_total", map[string]string{"workload": key, "status": s}); got != c {
				t.Errorf("after run %d: runs_total{status=%q} = %v, want %v", i, s, got, c)
			}
		}
		wall, ok := series(mfs, "spark_workload_regression", map[string]string{"workload": key, "measure": "wall_time"})
		if i < 3 {
			if ok {
				t.Errorf("after run %d: a regression series before the baseline exists", i)
			}
			continue
		}
		wantWall := 0.0
		if i == 7 {
			wantWall = 1
		}
		if !ok || wall != wantWall {
			t.Errorf("after run %d: spark_workload_regression{measure=wall_time} = %v (present %v), want %v", i, wall, ok, wantWall)
		}
		regressed := sumSeries(mfs, "spark_workload_regression", map[string]string{"workload": key})
		if (i == 7) != (regressed > 0) {
			t.Errorf("after run %d: %v measures regressed", i, regressed)
		}
		ratio, _ := series(mfs, "spark_workload_last_run_ratio", map[string]string{"workload": key, "measure": "wall_time"})
		base, _ := series(mfs, "spark_workload_baseline", map[string]string{"workload": key, "measure": "wall_time"})
		last, _ := series(mfs, "spark_workload_last_run_value", map[string]string{"workload": key, "measure": "wall_time"})
		if base <= 0 || !near(ratio, last/base) {
			t.Errorf("after run %d: wall-time ratio %v, last %v / baseline %v", i, ratio, last, base)
		}
		res, okr := w.History().Evaluate(key, filepath.Base(p), "")
		if !okr || res.StatusLabel() != status[i] {
			t.Errorf("after run %d: history says %q", i, res.StatusLabel())
		}
	}
}

// Runs of more workloads than --workload.max-workloads are counted as
// dropped, and no series of theirs appears.
func TestWorkloadsBounded(t *testing.T) {
	runs, err := simulate.WorkloadRuns(4, time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	runs[1].Properties["spark.sparkglance.workload"] = "other" // a workload of its own
	src, dir := t.TempDir(), t.TempDir()
	cfg := testConfig(dir)
	cfg.MaxWorkloads = 1
	w := startWatcher(t, cfg)
	waitReady(t, w)
	for _, r := range runs[:2] {
		p := filepath.Join(src, r.AppID)
		if err := simulate.WriteFile(p, r.Config); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(p, filepath.Join(dir, r.AppID)); err != nil {
			t.Fatal(err)
		}
		// One at a time, so that the first one holds the only place.
		waitFor(t, 30*time.Second, "run seen", func() bool { return len(w.History().Workloads()) == 1 })
	}
	waitFor(t, 30*time.Second, "one run dropped", func() bool {
		v, _ := series(gather(t, w), "sparkglance_workload_dropped_total", nil)
		return v == 1
	})
	if ks := w.History().Workloads(); len(ks) != 1 || ks[0] != "nightly sales rollup <date>" {
		t.Errorf("workloads %q, want the first one only", ks)
	}
	if _, ok := series(gather(t, w), "spark_workload_runs_total", map[string]string{"workload": "other", "status": "no_baseline"}); ok {
		t.Error("a series of the dropped workload")
	}
}

// A real Prometheus scrapes the exporter over a directory into which the
// generator's runs are copied one after another: it sees each run counted,
// and spark_workload_regression is 1 (on wall time, core-hours and cost)
// while the regressed run is the latest, and 0 for every other run.
func TestPrometheusSeesWorkloadRegression(t *testing.T) {
	t.Parallel() // waits on Prometheus or the OTLP pushes far more than it computes
	const n = 10
	paths := writeWorkloadRuns(t, n)
	dir := t.TempDir()
	base, _ := startExporter(t, testConfig(dir))
	prom := promtest.StartScraping(t, strings.TrimPrefix(base, "http://"))
	const key = "nightly sales rollup <date>"
	for i, p := range paths {
		if err := os.Rename(p, filepath.Join(dir, filepath.Base(p))); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 30*time.Second, fmt.Sprintf("Prometheus sees run %d", i), func() bool {
			s := promQuery(prom, `sum(spark_workload_runs_total{workload="`+key+`"})`)
			return len(s) == 1 && s[0].Value == float64(i+1)
		})
		regressed := map[string]float64{}
		for _, s := range promQuery(prom, `spark_workload_regression{workload="`+key+`"}`) {
			regressed[s.Labels["measure"]] = s.Value
		}
		switch {
		case i < 3:
			if len(regressed) != 0 {
				t.Errorf("run %d: regression series %v before the baseline exists", i, regressed)
			}
		case i == 7:
			for m, v := range regressed {
				if want := m == "wall_time" || m == "core_hours" || m == "cost"; v != map[bool]float64{true: 1, false: 0}[want] {
					t.Errorf("run %d (regressed): %s = %v", i, m, v)
				}
			}
			if regressed["wall_time"] != 1 {
				t.Errorf("run %d (regressed): wall_time = %v", i, regressed["wall_time"])
			}
		default:
			for m, v := range regressed {
				if v != 0 {
					t.Errorf("run %d: regression on %s = %v, want 0", i, m, v)
				}
			}
			if len(regressed) == 0 {
				t.Errorf("run %d: no regression series", i)
			}
		}
	}
	if s := promQuery(prom, `spark_workload_runs_total{workload="`+key+`",status="regressed"}`); len(s) != 1 || s[0].Value != 1 {
		t.Errorf("regressed runs: %v, want 1", s)
	}
}

// serve links each judged run of /workloads/{key} to its comparison page
// with its baseline run, built from both runs' analyses while they are
// held; the regressed run's page is the compare page of its two runs.
func TestWorkloadComparePageServed(t *testing.T) {
	paths := writeWorkloadRuns(t, 10)
	dir := t.TempDir()
	for _, p := range paths {
		if err := os.Rename(p, filepath.Join(dir, filepath.Base(p))); err != nil {
			t.Fatal(err)
		}
	}
	base, w := startExporter(t, testConfig(dir))
	const key = "nightly sales rollup <date>"
	waitFor(t, 60*time.Second, "ten runs", func() bool { return len(w.History().Runs(key)) == 10 })
	res, ok := w.History().Evaluate(key, "app-20261108020000-0008", "")
	if !ok || !res.Fires() {
		t.Fatalf("run 8: %+v", res)
	}
	esc := strings.ReplaceAll(url.PathEscape(key), "<", "%3C")
	page := httpGet(t, base+"/workloads/"+esc)
	if !strings.Contains(page, `"compare":"`+esc+`/compare/app-20261108020000-0008"`) {
		t.Errorf("the workload page does not link the regressed run's comparison page")
	}
	cmp := httpGet(t, base+"/workloads/"+esc+"/compare/app-20261108020000-0008")
	for _, s := range []string{"app-20261108020000-0008", res.Baseline.Closest, `"baseDoc"`, `"newDoc"`} {
		if !strings.Contains(cmp, s) {
			t.Errorf("compare page lacks %q", s)
		}
	}
}

// The runs found at start are read in no set order (newest file first,
// on several workers); each is counted by how it compares with the runs
// that started before it once the catch-up is done, so the counts are
// those of the runs seen one after another. Here the files' times are the
// reverse of the runs' starts, and one worker reads them newest file
// first: counted as they were read, the first run read (the last to
// start) had no baseline.
func TestWorkloadRunsCountedInStartOrderAfterCatchUp(t *testing.T) {
	paths := writeWorkloadRuns(t, 10)
	dir := t.TempDir()
	base := time.Now().Add(-time.Hour)
	for i, p := range paths {
		dst := filepath.Join(dir, filepath.Base(p))
		if err := os.Rename(p, dst); err != nil {
			t.Fatal(err)
		}
		mt := base.Add(time.Duration(len(paths)-i) * time.Minute)
		if err := os.Chtimes(dst, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	for _, workers := range []int{1, 4} {
		cfg := testConfig(dir)
		cfg.Workers = workers
		w := startWatcher(t, cfg)
		waitReady(t, w)
		mfs := gather(t, w)
		const key = "nightly sales rollup <date>"
		want := map[string]float64{"no_baseline": 3, "ok": 5, "regressed": 1, "explained_by_input": 1}
		for s, c := range want {
			if got, _ := series(mfs, "spark_workload_runs_total", map[string]string{"workload": key, "status": s}); got != c {
				t.Errorf("%d workers: runs_total{status=%q} = %v, want %v", workers, s, got, c)
			}
		}
	}
}

// A workload's runs counters are created when its earliest run started, as
// the logs say, so a second watcher over the same logs (serve restarted)
// gives them the same created timestamp: a Prometheus that uses created
// timestamps sees no reset where the exporter restarted. (With the
// exporter's start they moved at every restart; make e2e's
// TestPrometheus3CreatedTimestampsSurviveRestart shows the false reset.)
func TestWorkloadRunsCreatedAtTheirFirstRun(t *testing.T) {
	paths := writeWorkloadRuns(t, 4)
	dir := t.TempDir()
	for _, p := range paths {
		if err := os.Rename(p, filepath.Join(dir, filepath.Base(p))); err != nil {
			t.Fatal(err)
		}
	}
	first := time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC) // writeWorkloadRuns' first run
	var created []time.Time
	for range 2 {
		w := startWatcher(t, testConfig(dir))
		waitReady(t, w)
		mf := gather(t, w)["spark_workload_runs_total"]
		if len(mf.GetMetric()) == 0 {
			t.Fatal("no spark_workload_runs_total series")
		}
		for _, m := range mf.GetMetric() {
			ct := m.GetCounter().GetCreatedTimestamp().AsTime()
			if ct.Before(first) || !ct.Before(first.Add(time.Hour)) {
				t.Errorf("%v: created %v, want the first run's start (%v)", m.GetLabel(), ct, first)
			}
			created = append(created, ct)
		}
	}
	for _, ct := range created[1:] {
		if !ct.Equal(created[0]) {
			t.Errorf("created timestamps %v differ between the series and the two watchers", created)
			break
		}
	}
}

// Until the runs found at start are counted, the runs counters are left
// out, not shown at 0: after a restart a 0 between the counts before and
// the same counts again would be a reset for every Prometheus.
func TestWorkloadRunsLeftOutUntilCaughtUp(t *testing.T) {
	caught := false
	ws := newWorkloads(workload.HistoryOptions{}, func() bool { return caught })
	start := time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC).UnixMilli()
	var dropped bool
	ws.add(workload.Summary{Workload: "nightly", AppID: "app-1", Start: start, End: start + 60_000, Finished: true}, &dropped)
	runs := func() []*dto.Metric {
		t.Helper()
		fs, err := ws.families()
		if err != nil {
			t.Fatal(err)
		}
		mfs, err := exporter.GatherFamilies(fs)
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			if mf.GetName() == "spark_workload_runs_total" {
				return mf.GetMetric()
			}
		}
		return nil
	}
	if got := runs(); len(got) != 0 {
		t.Errorf("before the catch-up: %d runs series, want none", len(got))
	}
	caught = true
	total := 0.0
	for _, m := range runs() {
		total += m.GetCounter().GetValue()
		if ct := m.GetCounter().GetCreatedTimestamp().AsTime().UnixMilli(); ct != start {
			t.Errorf("%v: created %d, want the run's start %d", m.GetLabel(), ct, start)
		}
	}
	if total != 1 {
		t.Errorf("after the catch-up: %v runs counted, want 1", total)
	}
}
