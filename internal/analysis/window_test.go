package analysis

import (
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/sparklog"
)

// Sliding the timeline's window must cost work in proportion to the
// intervals touched, not to intervals × window: the timeline counts every
// bucket it copies, which is the deterministic measure of that work.
func TestTimelineWindowSlideIsLinear(t *testing.T) {
	const extra = 5000 // intervals past the window
	t0 := int64(1_700_000_000_000)
	success := sparklog.TaskEndReason{Reason: "Success"}
	metrics := &sparklog.TaskMetrics{ExecutorCPUTime: 1e9, HasExecutorCPUTime: true}

	t.Run("one long task", func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.Interval = time.Millisecond
		a := New(cfg)
		a.Add(&sparklog.ApplicationStart{AppID: "app", Timestamp: t0})
		a.Add(&sparklog.TaskEnd{Reason: success, Metrics: metrics,
			Task: sparklog.TaskInfo{TaskID: 1, ExecutorID: "1", LaunchTime: t0, FinishTime: t0 + maxIntervals + extra}})
		checkLinearMoves(t, a, maxIntervals+extra)
	})
	t.Run("many short tasks", func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.Interval = time.Millisecond
		a := New(cfg)
		a.Add(&sparklog.ApplicationStart{AppID: "app", Timestamp: t0})
		for i := range int64(maxIntervals + extra) {
			a.Add(&sparklog.TaskEnd{Reason: success, Metrics: metrics,
				Task: sparklog.TaskInfo{TaskID: i, ExecutorID: "1", LaunchTime: t0 + i, FinishTime: t0 + i + 1}})
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
