package analysis

import (
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// Sliding the timeline's window must cost work in proportion to the
// intervals touched, not to intervals × window: the timeline counts every
// bucket it copies, which is the deterministic measure of that work.
func TestTimelineWindowSlideIsLinear(t *testing.T) {
	const extra = 5000 // intervals past the window
	t0 := int64(1_700_000_000_000)
	success := sparkevent.TaskEndReason{Reason: "Success"}
	metrics := &sparkevent.TaskMetrics{ExecutorCPUTime: 1e9, HasExecutorCPUTime: true}

	t.Run("one long task", func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.Interval = time.Millisecond
		a := New(cfg)
		a.Add(&sparkevent.ApplicationStart{AppID: "app", Timestamp: t0})
		a.Add(&sparkevent.TaskEnd{Reason: success, Metrics: metrics,
			Task: sparkevent.TaskInfo{TaskID: 1, ExecutorID: "1", LaunchTime: t0, FinishTime: t0 + maxIntervals + extra}})
		checkLinearMoves(t, a, maxIntervals+extra)
	})
	t.Run("a 90-day task at 10 s intervals", func(t *testing.T) {
		const day = 24 * 3600 * 1000
		a := New(DefaultConfig())
		a.Add(&sparkevent.ApplicationStart{AppID: "app", Timestamp: t0})
		a.Add(&sparkevent.ExecutorAdded{Timestamp: t0, ExecutorID: "1", TotalCores: 1})
		a.Add(&sparkevent.TaskStart{Task: sparkevent.TaskInfo{TaskID: 1, ExecutorID: "1", LaunchTime: t0}})
		a.Add(&sparkevent.TaskEnd{Reason: success, Metrics: &sparkevent.TaskMetrics{ExecutorCPUTime: 90 * day * 1e6, HasExecutorCPUTime: true},
			Task: sparkevent.TaskInfo{TaskID: 1, ExecutorID: "1", LaunchTime: t0, FinishTime: t0 + 90*day}})
		if a.unplaced != 0 {
			t.Fatalf("the 90-day task was taken for a broken clock (%d unplaced)", a.unplaced)
		}
		checkLinearMoves(t, a, 90*day/10_000)
	})
	t.Run("many short tasks", func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.Interval = time.Millisecond
		a := New(cfg)
		a.Add(&sparkevent.ApplicationStart{AppID: "app", Timestamp: t0})
		for i := range int64(maxIntervals + extra) {
			a.Add(&sparkevent.TaskEnd{Reason: success, Metrics: metrics,
				Task: sparkevent.TaskInfo{TaskID: i, ExecutorID: "1", LaunchTime: t0 + i, FinishTime: t0 + i + 1}})
		}
		checkLinearMoves(t, a, maxIntervals+extra)
	})
}

func checkLinearMoves(t *testing.T, a *App, touched int64) {
	t.Helper()
	tl := a.timeline.(*fixedTimeline)
	if tl.moved > 4*touched {
		t.Errorf("%d buckets copied for %d intervals touched: sliding the window costs more than linear work", tl.moved, touched)
	}
	r := a.Report()
	if len(r.Intervals) > maxIntervals {
		t.Errorf("%d intervals, more than the %d window", len(r.Intervals), maxIntervals)
	}
	// The last interval holds the final finish time, which no task covers.
	if newest := r.Intervals[len(r.Intervals)-2]; newest.CPUSeconds <= 0 {
		t.Errorf("the newest task interval lost its value: %+v", newest)
	}
}

// A job end looks at its own stages only: in a long-running application
// with thousands of finished stages, scanning them all at every job end
// made the analysis quadratic.
func TestJobEndVisitsOnlyItsStages(t *testing.T) {
	const jobs = 5000
	a := New(DefaultConfig())
	t0 := int64(1_700_000_000_000)
	a.Add(&sparkevent.ApplicationStart{AppID: "app", Timestamp: t0})
	for j := range jobs {
		now := t0 + int64(j)*1000
		// Stage 2j runs; stage 2j+1 stays pending and is skipped at the job end.
		run := sparkevent.StageInfo{StageID: 2 * j, NumTasks: 1, SubmissionTime: now}
		skip := sparkevent.StageInfo{StageID: 2*j + 1, NumTasks: 1}
		a.Add(&sparkevent.JobStart{JobID: j, SubmissionTime: now, StageInfos: []sparkevent.StageInfo{run, skip}})
		a.Add(&sparkevent.StageSubmitted{Stage: run})
		run.CompletionTime = now + 500
		a.Add(&sparkevent.StageCompleted{Stage: run})
		a.Add(&sparkevent.JobEnd{JobID: j, CompletionTime: now + 500, Result: "JobSucceeded"})
	}
	if a.stagesVisited > 2*jobs {
		t.Errorf("job ends visited %d stage attempts for %d jobs of 2 stages", a.stagesVisited, jobs)
	}
	r := a.Report()
	skipped := 0
	for _, s := range r.Stages {
		if s.Status == StatusSkipped {
			skipped++
		}
	}
	if skipped != jobs {
		t.Errorf("%d stages skipped, want %d", skipped, jobs)
	}
}
