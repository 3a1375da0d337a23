package simulate

import (
	"fmt"
	"time"
)

// WorkloadChange is what a run of a workload series changes against the
// steady runs.
type WorkloadChange string

// The changes of a workload series (see WorkloadRuns).
const (
	WorkloadSteady        WorkloadChange = "steady"
	WorkloadPropertySlow  WorkloadChange = "property change: one stage 3x slower"
	WorkloadInputDoubled  WorkloadChange = "input doubled, time proportional"
	WorkloadHalfExecutors WorkloadChange = "half the executors"
)

// Workload series settings: the property whose change slows the stage.
const (
	WorkloadSlowProperty = "spark.sql.shuffle.partitions"
	WorkloadSlowStage    = "join at NightlyRollup.scala:88"
	WorkloadSlowFactor   = 3.0
)

// WorkloadRun is one run of a workload series.
type WorkloadRun struct {
	Config
	Change WorkloadChange
}

// WorkloadRuns plans n runs (at least 4) of one nightly job, a day apart
// from start: steady runs (other seeds, so their numbers scatter like real
// runs), then one where spark.sql.shuffle.partitions changed and the join
// stage runs 3× slower, then one whose input doubled with proportional
// time (not a regression), then one with half the executors. The names
// carry the date, as nightly jobs' often do: one workload key for all.
func WorkloadRuns(n int, start time.Time) ([]WorkloadRun, error) {
	if n < 4 || n > MaxRepeat {
		return nil, fmt.Errorf("--workload-runs=%d: want 4 to %d", n, MaxRepeat)
	}
	out := make([]WorkloadRun, n)
	for i := range out {
		at := start.Add(time.Duration(i) * 24 * time.Hour)
		cfg := DefaultConfig()
		cfg.Start = at
		cfg.Seed = uint64(1000 + i)
		cfg.AppID = fmt.Sprintf("app-%s-%04d", at.Format("20060102150405"), i+1)
		cfg.AppName = "nightly sales rollup " + at.Format("2006-01-02")
		cfg.Properties = map[string]string{WorkloadSlowProperty: "200", "spark.sparkglance.team": "sales"}
		run := WorkloadRun{Config: cfg, Change: WorkloadSteady}
		switch i - (n - 3) {
		case 0:
			run.Change = WorkloadPropertySlow
			run.Properties[WorkloadSlowProperty] = "2000"
			run.SlowStage, run.SlowFactor = WorkloadSlowStage, WorkloadSlowFactor
		case 1:
			run.Change = WorkloadInputDoubled
			run.WorkScale = 2
		case 2:
			run.Change = WorkloadHalfExecutors
			run.Executors /= 2
		}
		out[i] = run
	}
	return out, nil
}
