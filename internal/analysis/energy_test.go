package analysis

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// energyLog: executor 1 (2 cores, 0–40 s) and executor 2 (1 core, 0–40 s)
// run stage 0 (job 0) and stage 1 (job 1) with known CPU times.
func energyLog() *logb {
	return (&logb{}).appStart(0, "yarn").execAdded(0, "1", 2).execAdded(0, "2", 1).
		jobStart(0, 1000, [3]int{0, 0, 2}).stageSubmitted(0, 0, 2, 1000).
		tasks(tk{stage: 0, id: 0, exec: "1", launch: 1000, finish: 11000, cpuNs: 7e9, runMs: 10000},
			tk{stage: 0, id: 1, exec: "2", launch: 1000, finish: 21000, cpuNs: 13e9, runMs: 20000}).
		stageCompleted(0, 0, 2, 1000, 21000, "").jobEnd(0, 21000).
		jobStart(1, 22000, [3]int{1, 0, 1}).stageSubmitted(1, 0, 1, 22000).
		tasks(tk{stage: 1, id: 2, exec: "1", launch: 22000, finish: 32000, cpuNs: 5e9, runMs: 10000}).
		stageCompleted(1, 0, 1, 22000, 32000, "").jobEnd(1, 32000).appEnd(40000)
}

// Stage, job and executor energy is exactly CPU seconds × per-core watts;
// carbon is joules in kWh × intensity.
func TestEnergyActiveIsCPUTimesCoreWatts(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Energy = EnergyModel{CoreWatts: 10, IdleRatio: 0, CarbonIntensity: 360}
	r := analyzeLines(t, energyLog().lines, cfg)
	e := r.Energy
	if e == nil || e.Source != EnergySourceModel {
		t.Fatalf("energy %+v", e)
	}
	wantStages := []StageEnergy{
		{StageID: 0, CPUSeconds: 20, Joules: 200, CarbonGrams: 200.0 / 3.6e6 * 360},
		{StageID: 1, CPUSeconds: 5, Joules: 50, CarbonGrams: 50.0 / 3.6e6 * 360},
	}
	if len(e.Stages) != len(wantStages) {
		t.Fatalf("stages %+v", e.Stages)
	}
	for i, w := range wantStages {
		g := e.Stages[i]
		if g.StageID != w.StageID || g.CPUSeconds != w.CPUSeconds || g.Joules != w.Joules {
			t.Errorf("stage %+v, want %+v", g, w)
		}
		approx(t, fmt.Sprintf("stage %d grams", g.StageID), g.CarbonGrams, w.CarbonGrams)
	}
	wantJobs := []JobEnergy{{JobID: 1, CPUSeconds: 5, Joules: 50, CarbonGrams: 0.005}, {JobID: 0, CPUSeconds: 20, Joules: 200, CarbonGrams: 0.02}}
	if len(e.Jobs) != 2 {
		t.Fatalf("jobs %+v", e.Jobs)
	}
	for i, w := range wantJobs {
		g := e.Jobs[i]
		if g.JobID != w.JobID || g.CPUSeconds != w.CPUSeconds || g.Joules != w.Joules {
			t.Errorf("job %+v, want %+v", g, w)
		}
		approx(t, fmt.Sprintf("job %d grams", g.JobID), g.CarbonGrams, w.CarbonGrams)
	}
	approx(t, "active", e.ActiveJoules, 250)
	approx(t, "idle (ratio 0)", e.IdleJoules, 0)
	approx(t, "Wh", e.WattHours, 250.0/3600)
	approx(t, "g", e.CarbonGrams, 250.0/3.6e6*360)
	if len(e.Executors) != 2 || e.Executors[0].ExecutorID != "1" || e.Executors[0].ActiveJoules != 120 || e.Executors[1].ActiveJoules != 130 {
		t.Errorf("executors %+v", e.Executors)
	}
}

// Idle energy is the allocated core time no task used × watts × ratio.
func TestEnergyIdleCores(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Energy = EnergyModel{CoreWatts: 10, IdleRatio: 0.25, CarbonIntensity: 500}
	r := analyzeLines(t, energyLog().lines, cfg)
	e := r.Energy
	// 3 cores × 40 s = 120 core-seconds, 25 of them CPU: 95 idle.
	approx(t, "idle core-seconds", e.IdleCoreSeconds, 95)
	approx(t, "idle J", e.IdleJoules, 95*10*0.25)
	approx(t, "total J", e.Joules, 250+95*2.5)
	approx(t, "total g", e.CarbonGrams, (250+95*2.5)/3.6e6*500)
	// Executor 1: 80 core-seconds, 12 CPU; executor 2: 40, 13.
	ex1, ex2 := e.Executors[0], e.Executors[1]
	approx(t, "exec 1 idle", ex1.IdleCoreSeconds, 68)
	approx(t, "exec 2 idle", ex2.IdleCoreSeconds, 27)
	approx(t, "exec 1 J", ex1.Joules, 120+68*2.5)
	approx(t, "executors sum to the application", ex1.Joules+ex2.Joules, e.Joules)
	for _, s := range e.Stages {
		if s.Joules != s.CPUSeconds*10 {
			t.Errorf("stage %d carries idle energy: %v J for %v s", s.StageID, s.Joules, s.CPUSeconds)
		}
	}
}

// The zero model means the documented defaults.
func TestEnergyDefaults(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Energy = EnergyModel{}
	r := analyzeLines(t, energyLog().lines, cfg)
	if r.Energy.Model != DefaultEnergyModel() {
		t.Errorf("model %+v", r.Energy.Model)
	}
	approx(t, "stage 0", r.Energy.Stages[0].Joules, 20*DefaultCoreWatts)
}

// Jobs carry the History Server's id, status, stage ids and times.
func TestOracleJobs(t *testing.T) {
	r := analyzePath(t, testkit.Events(t, "local-1422981780767"), DefaultConfig())
	var want []map[string]any
	readJSON(t, testkit.Path(t, "oracle", "job_list_json_expectation.json"), &want)
	if len(r.Jobs) != len(want) {
		t.Fatalf("%d jobs, Spark lists %d", len(r.Jobs), len(want))
	}
	for i, w := range want {
		g := r.Jobs[i]
		what := fmt.Sprintf("job %v", w["jobId"])
		compareFields(t, what, w, asMap(t, g), []string{"jobId", "status", "submissionTime", "completionTime"})
		var ids []int
		for _, id := range w["stageIds"].([]any) {
			ids = append(ids, int(id.(float64)))
		}
		if !slices.Equal(g.StageIDs, ids) {
			t.Errorf("%s: stage ids %v, Spark says %v", what, g.StageIDs, ids)
		}
	}
	if c := r.JobCounts; c.Succeeded+c.Failed != int64(len(want)) || c.Running != 0 {
		t.Errorf("counts %+v", c)
	}
}

// The job list is bounded: the oldest finished jobs go, the counts stay.
func TestJobLogBounded(t *testing.T) {
	var l jobLog
	l.start(0, 1, nil) // stays running: never dropped
	for id := 1; id <= maxJobsKept+10; id++ {
		l.start(id, int64(id), []int{id})
		l.end(id, int64(id)+1, "JobSucceeded")
	}
	jobs := l.report()
	if len(jobs) != maxJobsKept {
		t.Fatalf("%d jobs kept", len(jobs))
	}
	if jobs[len(jobs)-1].JobID != 0 || jobs[len(jobs)-2].JobID != 12 {
		t.Errorf("oldest kept %d, %d; want the running job 0 and job 12 (1011 jobs, 11 oldest finished dropped)", jobs[len(jobs)-1].JobID, jobs[len(jobs)-2].JobID)
	}
	if l.counts != (JobCounts{Running: 1, Succeeded: maxJobsKept + 10}) {
		t.Errorf("counts %+v", l.counts)
	}
	l.end(0, 5, "JobFailed")
	if l.counts.Failed != 1 || l.counts.Running != 0 {
		t.Errorf("counts after failure %+v", l.counts)
	}
}

// The text report states the energy, the model, the carbon and the
// stages that used most of it.
func TestEnergyText(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Energy = EnergyModel{CoreWatts: 10, IdleRatio: 0.25, CarbonIntensity: 500}
	r := analyzeLines(t, energyLog().lines, cfg)
	var b strings.Builder
	if err := WriteText(&b, r); err != nil {
		t.Fatal(err)
	}
	// 487.5 J = 0.135 Wh; 0.0677 g.
	for _, want := range []string{
		"energy 0.135 Wh (model: 10 W per busy core, idle cores 25% of it): active 0.0694 Wh, idle 0.066 Wh; 0.0677 g CO2e at 500 g/kWh",
		"most energy: stage 0.0 0.0556 Wh (80%), stage 1.0 0.0139 Wh (20%)",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}

// A log without Executor CPU Time has no energy: every core would read idle.
func TestEnergyNeedsCPUTime(t *testing.T) {
	r := analyzePath(t, testkit.Events(t, "local-1422981780767"), DefaultConfig())
	if r.CPUTimeAvailable || r.Energy != nil {
		t.Errorf("cpu time %v, energy %+v; want neither", r.CPUTimeAvailable, r.Energy)
	}
}
