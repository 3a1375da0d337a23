package eventlog

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// fixedJoules is a node agent's reading as a plain value.
type fixedJoules map[string]float64

func (f fixedJoules) ExecutorJoules(string) map[string]float64 { return f }

func stageOn(id int, exec string, cpuSeconds float64) analysis.Stage {
	return analysis.Stage{StageID: id, ExecutorSummary: map[string]analysis.ExecutorStageSummary{
		exec: {ExecutorCPUTime: int64(cpuSeconds * 1e9)}}}
}

// Measured energy goes to the stages by the CPU time they gained on the
// executor since the previous view; energy measured while no task ended
// waits for the next view with CPU time.
func TestMeasuredSplitByCPUTime(t *testing.T) {
	var m measuredSplit
	r := &analysis.Report{AppID: "a", Stages: []analysis.Stage{stageOn(0, "1", 3), stageOn(1, "1", 1)}}
	if !m.update(r, fixedJoules{"1": 100}) {
		t.Fatal("no measurement taken")
	}
	if !near(m.stage[0], 75) || !near(m.stage[1], 25) || m.app != 100 {
		t.Errorf("first view: stages %v app %v; want 75, 25 of 100 J", m.stage, m.app)
	}
	// 40 J more, no CPU gained: it waits.
	m.update(r, fixedJoules{"1": 140})
	if !near(m.stage[0]+m.stage[1], 100) || m.app != 140 {
		t.Errorf("no task ended: stages %v app %v", m.stage, m.app)
	}
	// 60 J more, stage 1 gained 2 s: the 100 J waiting go to stage 1.
	r.Stages[1] = stageOn(1, "1", 3)
	m.update(r, fixedJoules{"1": 200})
	if !near(m.stage[0], 75) || !near(m.stage[1], 125) || m.app != 200 {
		t.Errorf("stages %v app %v; want 75 and 125 of 200 J", m.stage, m.app)
	}
	// A restarted agent's counter begins again: its reading is new energy.
	r.Stages[0] = stageOn(0, "1", 4)
	m.update(r, fixedJoules{"1": 10})
	if !near(m.stage[0], 85) || m.app != 210 {
		t.Errorf("after a restart: stages %v app %v", m.stage, m.app)
	}
	var none measuredSplit
	if none.update(r, nil) || none.update(r, fixedJoules{}) {
		t.Error("measured energy reported without a reading")
	}
}

// With a node agent's reading, the collector exports stage and application
// energy with source="measured" beside the model's, and the stages' sum is
// the executors' measured energy.
func TestMeasuredEnergySeries(t *testing.T) {
	src := testkit.Events(t, "application_1628109047826_1317105")
	dir := t.TempDir()
	if err := os.Symlink(src, filepath.Join(dir, filepath.Base(src))); err != nil {
		t.Fatal(err)
	}
	ref := referenceReport(t, src, analysis.DefaultConfig().Interval)
	reading := fixedJoules{}
	for _, s := range ref.Stages {
		for exec := range s.ExecutorSummary {
			reading[exec] = 50
		}
	}
	cfg := testConfig(dir)
	cfg.Measured = reading
	w := startWatcher(t, cfg)
	waitReady(t, w)
	mfs := gather(t, w)
	want := 50 * float64(len(reading))
	app := map[string]string{"app_id": ref.AppID, "source": "measured"}
	if got := sumSeries(mfs, "spark_stage_energy_joules_total", app); !near(got, want) {
		t.Errorf("measured stage energy sums to %v J, the executors measured %v", got, want)
	}
	if got, ok := series(mfs, "spark_app_energy_wh_total", app); !ok || !near(got, want/3600) {
		t.Errorf("measured application energy %v Wh (present %v), want %v", got, ok, want/3600)
	}
	if _, ok := series(mfs, "spark_app_energy_wh_total", map[string]string{"app_id": ref.AppID, "source": "model"}); !ok {
		t.Error("the model's series went missing")
	}
}
