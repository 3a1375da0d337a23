package eventlog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// The spark_stage_* series carry the History Server's stage figures
// (oracle answers for local-1422981780767), attempts summed per stage id;
// with --eventlog.max-stages=2 the two newest stage ids are kept and the
// others summed under stage_id="other".
func TestStageSeriesEqualOracle(t *testing.T) {
	src := testkit.Events(t, "local-1422981780767")
	dir := t.TempDir()
	if err := os.Symlink(src, filepath.Join(dir, filepath.Base(src))); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(dir)
	cfg.MaxStages = 2
	w := startWatcher(t, cfg)
	waitReady(t, w)
	mfs := gather(t, w)

	raw, err := os.ReadFile(testkit.Path(t, "oracle", "stage_list_json_expectation.json"))
	if err != nil {
		t.Fatal(err)
	}
	var oracle []map[string]float64
	var full []map[string]any
	if err := json.Unmarshal(raw, &full); err != nil {
		t.Fatal(err)
	}
	maxID := 0
	for _, s := range full {
		m := map[string]float64{}
		for k, v := range s {
			if f, ok := v.(float64); ok {
				m[k] = f
			}
		}
		oracle = append(oracle, m)
		maxID = max(maxID, int(m["stageId"]))
	}
	want := map[string]map[string]float64{} // stage_id label → summed oracle fields
	for _, s := range oracle {
		id := strconv.Itoa(int(s["stageId"]))
		if int(s["stageId"]) <= maxID-2 {
			id = otherStage
		}
		if want[id] == nil {
			want[id] = map[string]float64{}
		}
		for k, v := range s {
			want[id][k] += v
		}
	}
	if len(want) != 3 {
		t.Fatalf("oracle gives %d stage labels, want 2 kept and other", len(want))
	}
	const app = "local-1422981780767"
	check := func(name string, labels map[string]string, wantV float64) {
		t.Helper()
		labels["app_id"] = app
		got, ok := series(mfs, name, labels)
		if !ok || !near(got, wantV) {
			t.Errorf("%s%v = %v (present %v), Spark says %v", name, labels, got, ok, wantV)
		}
	}
	for id, s := range want {
		check("spark_stage_tasks_total", map[string]string{"stage_id": id, "status": "success"}, s["numCompleteTasks"])
		check("spark_stage_tasks_total", map[string]string{"stage_id": id, "status": "failed"}, s["numFailedTasks"])
		check("spark_stage_tasks_total", map[string]string{"stage_id": id, "status": "killed"}, s["numKilledTasks"])
		check("spark_stage_task_time_seconds_total", map[string]string{"stage_id": id, "category": "run"}, s["executorRunTime"]/1e3)
		check("spark_stage_task_time_seconds_total", map[string]string{"stage_id": id, "category": "cpu"}, s["executorCpuTime"]/1e9)
		check("spark_stage_task_time_seconds_total", map[string]string{"stage_id": id, "category": "gc"}, s["jvmGcTime"]/1e3)
		check("spark_stage_spill_bytes_total", map[string]string{"stage_id": id, "medium": "memory"}, s["memoryBytesSpilled"])
		check("spark_stage_spill_bytes_total", map[string]string{"stage_id": id, "medium": "disk"}, s["diskBytesSpilled"])
		check("spark_stage_shuffle_read_bytes_total", map[string]string{"stage_id": id}, s["shuffleReadBytes"])
		check("spark_stage_shuffle_write_bytes_total", map[string]string{"stage_id": id}, s["shuffleWriteBytes"])
		check("spark_stage_input_bytes_total", map[string]string{"stage_id": id}, s["inputBytes"])
		check("spark_stage_output_bytes_total", map[string]string{"stage_id": id}, s["outputBytes"])
	}
	if n := len(mfs["spark_stage_input_bytes_total"].GetMetric()); n != 3 {
		t.Errorf("%d stage series, want 3 (two kept, other)", n)
	}
	ref := referenceReport(t, src, cfg.Interval)
	// This Spark 1.2 log has no Executor CPU Time: no energy to tell.
	for _, name := range []string{"spark_stage_energy_joules_total", "spark_app_energy_wh_total"} {
		if mfs[name] != nil {
			t.Errorf("%s exported for a log without CPU time", name)
		}
	}
	check("spark_jobs_total", map[string]string{"status": "succeeded"}, float64(ref.JobCounts.Succeeded))
	check("spark_jobs_total", map[string]string{"status": "failed"}, float64(ref.JobCounts.Failed))
	timed := 0 // this Spark 1.2 log has no job times: no summary
	for _, j := range ref.Jobs {
		if j.SubmissionTime > 0 && j.CompletionTime > 0 {
			timed++
		}
	}
	if d := mfs["spark_job_duration_seconds"]; timed > 0 && (d == nil || d.GetMetric()[0].GetSummary().GetSampleCount() != uint64(timed)) || timed == 0 && d != nil {
		t.Errorf("job duration summary %v, want %d finished jobs", d, timed)
	}
}

// A bad --eventlog.max-stages or energy flag is refused with its name.
func TestStageAndEnergyConfigRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*Config)
	}{
		{"--eventlog.max-stages", func(c *Config) { c.MaxStages = 0 }},
		{"--energy.core-watts", func(c *Config) { c.Analysis.Energy.CoreWatts = 0 }},
		{"--energy.idle-ratio", func(c *Config) { c.Analysis.Energy.IdleRatio = 1.5 }},
		{"--energy.carbon-intensity", func(c *Config) { c.Analysis.Energy.CarbonIntensity = -1 }},
	} {
		c := testConfig(t.TempDir())
		tc.set(&c)
		err := c.validate()
		if err == nil || !strings.Contains(err.Error(), tc.name) {
			t.Errorf("%s: error %v", tc.name, err)
		}
	}
}

// The energy series of a log with CPU time: each stage's CPU seconds ×
// --energy.core-watts, and the application's Wh with the idle part.
func TestEnergySeries(t *testing.T) {
	src := testkit.Events(t, "application_1628109047826_1317105")
	dir := t.TempDir()
	if err := os.Symlink(src, filepath.Join(dir, filepath.Base(src))); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(dir)
	cfg.Analysis.Energy = analysis.EnergyModel{CoreWatts: 7, IdleRatio: 0.5, CarbonIntensity: 100}
	w := startWatcher(t, cfg)
	waitReady(t, w)
	mfs := gather(t, w)
	ref := referenceReport(t, src, cfg.Interval)
	if ref.Energy == nil || len(ref.Stages) == 0 {
		t.Fatal("no energy in the reference report")
	}
	app := ref.AppID
	for _, s := range ref.Stages {
		l := map[string]string{"app_id": app, "stage_id": strconv.Itoa(s.StageID), "source": "model"}
		if got, ok := series(mfs, "spark_stage_energy_joules_total", l); !ok || !near(got, float64(s.ExecutorCPUTime)/1e9*7) {
			t.Errorf("stage %d energy %v (present %v), want %v CPU s × 7 W", s.StageID, got, ok, float64(s.ExecutorCPUTime)/1e9)
		}
	}
	// The reference ran with the default model: same CPU and idle seconds.
	wantWh := (ref.Energy.CPUSeconds*7 + ref.Energy.IdleCoreSeconds*7*0.5) / 3600
	if got, ok := series(mfs, "spark_app_energy_wh_total", map[string]string{"app_id": app, "source": "model"}); !ok || !near(got, wantWh) {
		t.Errorf("application energy %v Wh (present %v), want %v", got, ok, wantWh)
	}
}

// docs/metrics.md promises 16 series per stage id and 8 job and energy
// series per application: count them on a log with CPU time and jobs.
func TestStageSeriesBudget(t *testing.T) {
	src := testkit.Events(t, "application_1628109047826_1317105")
	dir := t.TempDir()
	if err := os.Symlink(src, filepath.Join(dir, filepath.Base(src))); err != nil {
		t.Fatal(err)
	}
	w := startWatcher(t, testConfig(dir))
	waitReady(t, w)
	mfs := gather(t, w)
	perStage := map[string]int{}
	other := 0
	for _, f := range stageFamilies {
		for _, s := range mfs[f.m.Name].GetMetric() {
			id := ""
			for _, l := range s.GetLabel() {
				if l.GetName() == "stage_id" {
					id = l.GetValue()
				}
			}
			n := 1
			if sum := s.GetSummary(); sum != nil {
				n = len(sum.GetQuantile()) + 2 // quantiles, _sum, _count
			}
			if id == "" {
				other += n
			} else {
				perStage[id] += n
			}
		}
	}
	if len(perStage) == 0 {
		t.Fatal("no stage series")
	}
	for id, n := range perStage {
		if n != 17 {
			t.Errorf("stage %s: %d series, docs/metrics.md says 17", id, n)
		}
	}
	if other != 9 {
		t.Errorf("%d job, energy and cost series, docs/metrics.md says 9", other)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "metrics.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "a stage id costs 17 series") || !strings.Contains(string(doc), "plus 9 job,\nenergy and cost series") {
		t.Error("docs/metrics.md no longer states the 17 series per stage id and the 9 per application")
	}
}
