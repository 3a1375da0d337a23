package analysis

import (
	"cmp"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// runFacts are what decides, independently of the replay, whether a real
// log's run can be compared with a replay at a constant executor count.
type runFacts struct {
	hasAppStart   bool
	blacklisting  bool    // executors or nodes excluded from scheduling
	peakShare     float64 // executors alive while stages ran ÷ (peak × that time)
	meanTaskMs    float64
	local         bool
	tasks         int64
	lives         [][2]int64 // non-driver executor lives; open ones end at the app's end
	openLives     map[string]int
	durations     int64
	taskEndsTimed int64
}

func factsOf(t *testing.T, path string) (Report, runFacts) {
	t.Helper()
	a := New(DefaultConfig())
	f := runFacts{openLives: map[string]int{}}
	rc := openLog(t, path)
	defer rc.Close()
	eachEvent(t, rc, func(ev sparklog.Event) {
		a.Add(ev)
		switch e := ev.(type) {
		case *sparklog.ApplicationStart:
			f.hasAppStart = true
		case *sparklog.Other:
			if strings.Contains(e.Type, "Blacklisted") || strings.Contains(e.Type, "Excluded") {
				f.blacklisting = true
			}
		case *sparklog.ExecutorAdded:
			if e.ExecutorID != "driver" {
				f.openLives[e.ExecutorID] = len(f.lives)
				f.lives = append(f.lives, [2]int64{e.Timestamp, math.MaxInt64})
			}
		case *sparklog.ExecutorRemoved:
			if i, ok := f.openLives[e.ExecutorID]; ok {
				f.lives[i][1] = e.Timestamp
				delete(f.openLives, e.ExecutorID)
			}
		case *sparklog.TaskEnd:
			if e.Reason.Reason != "Resubmitted" && e.Task.LaunchTime > 0 && e.Task.FinishTime >= e.Task.LaunchTime {
				f.durations += e.Task.FinishTime - e.Task.LaunchTime
				f.taskEndsTimed++
			}
		}
	})
	r := a.Report()
	f.tasks = r.Totals.Tasks
	f.local = r.WhatIf != nil && r.WhatIf.Local
	if f.taskEndsTimed > 0 {
		f.meanTaskMs = float64(f.durations) / float64(f.taskEndsTimed)
	}
	f.peakShare = 1
	if w := r.WhatIf; w != nil && !w.Local {
		// Sample the executors alive every 100 ms of the time some stage ran.
		var alive, samples float64
		for _, s := range r.Stages {
			if s.SubmissionTime <= 0 || s.CompletionTime <= s.SubmissionTime {
				continue
			}
			for at := s.SubmissionTime; at < s.CompletionTime; at += 100 {
				n := 0
				for _, l := range f.lives {
					if l[0] <= at && at < l[1] {
						n++
					}
				}
				alive += float64(n)
				samples++
			}
		}
		if samples > 0 {
			f.peakShare = alive / samples / float64(w.Executors)
		}
	}
	return r, f
}

// TestWhatIfRealLogsReplayToday replays every real log that has tasks at
// today's peak executor count: the predicted executor time (wall time
// minus the driver's) must be within 10% of the real one. Excluded, for
// reasons the test establishes from the events themselves:
//   - a rolling log's later part read alone (no ApplicationStart): its
//     stages started in the part not read;
//   - runs that had on average under 75% of their peak executors while
//     stages ran (dynamic allocation ramping up, executors lost and
//     replaced): the replay assumes the peak throughout, so it is faster;
//   - runs that blacklisted executors: fewer slots were usable than were
//     alive;
//   - runs whose tasks averaged under 100 ms: launching a task then costs
//     about as much as running it, which the replay does not count.
func TestWhatIfRealLogsReplayToday(t *testing.T) {
	root := testkit.Events(t)
	compared := 0
	for _, path := range realLogs(t, root) {
		name, _ := filepath.Rel(root, path)
		if testing.Short() && strings.Contains(name, "nds_q88") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			r, f := factsOf(t, path)
			w := r.WhatIf
			if f.tasks == 0 {
				if w != nil {
					t.Fatalf("no task, but a what-if: %+v", w)
				}
				return
			}
			if w == nil {
				t.Fatalf("%d tasks, no what-if", f.tasks)
			}
			i := slices.IndexFunc(w.Predictions, func(p Prediction) bool { return p.Executors == w.Executors })
			if i < 0 {
				t.Fatalf("no prediction at today's %d executors: %+v", w.Executors, w.Predictions)
			}
			got, want := w.Predictions[i].ExecutorMs, w.ExecutorMs
			ratio := float64(got) / float64(max(want, 1))
			why := ""
			switch {
			case !f.hasAppStart:
				why = "later part of a rolling log"
			case f.peakShare < 0.75:
				why = "fewer executors than the peak while stages ran"
			case f.blacklisting:
				why = "executors blacklisted"
			case f.meanTaskMs < 100:
				why = "tasks under 100 ms on average"
			}
			t.Logf("executor time %d ms, predicted at %d executors %d ms (%.3f); peak share %.2f, mean task %.0f ms; excluded: %q",
				want, w.Executors, got, ratio, f.peakShare, f.meanTaskMs, why)
			if why != "" {
				// Fewer slots or unseen costs make the real run slower,
				// never faster, than the replay.
				if ratio > 1.1 {
					t.Errorf("predicted executor time %d ms at today's %d executors, real %d ms: the replay is slower by %.1f%%", got, w.Executors, want, 100*(ratio-1))
				}
				return
			}
			compared++
			if math.Abs(ratio-1) > 0.1 {
				t.Errorf("predicted executor time %d ms at today's %d executors, real %d ms: off by %.1f%%", got, w.Executors, want, 100*(ratio-1))
			}
			checkWhatIfConsistent(t, r)
		})
	}
	if compared < 20 {
		t.Errorf("only %d logs compared", compared)
	}
}

// checkWhatIfConsistent checks what holds for any what-if: more executors
// never predict a longer run than the critical path allows, the ideal
// count is within the tolerance, driver and executor time add up.
func checkWhatIfConsistent(t *testing.T, r Report) {
	t.Helper()
	w := r.WhatIf
	if w.DriverMs+w.ExecutorMs != w.WallMs || w.DriverMs < 0 {
		t.Errorf("driver %d + executor %d ≠ wall %d", w.DriverMs, w.ExecutorMs, w.WallMs)
	}
	if !slices.IsSortedFunc(w.Predictions, func(x, y Prediction) int { return cmp.Compare(x.Executors, y.Executors) }) {
		t.Errorf("predictions not by executor count: %+v", w.Predictions)
	}
	var today, ideal *Prediction
	for i := range w.Predictions {
		p := &w.Predictions[i]
		if p.WallMs < w.CriticalPath.WallMs {
			t.Errorf("%d executors predict %d ms, below the critical path's %d ms", p.Executors, p.WallMs, w.CriticalPath.WallMs)
		}
		if p.Executors == w.Executors {
			today = p
		}
		if p.Executors == w.IdealExecutors {
			ideal = p
		}
	}
	if today == nil || ideal == nil {
		t.Fatalf("today's (%d) or the ideal (%d) count missing: %+v", w.Executors, w.IdealExecutors, w.Predictions)
	}
	if float64(ideal.WallMs) > float64(today.WallMs)*(1+w.Tolerance) || w.IdealExecutors > w.Executors {
		t.Errorf("ideal %d executors predict %d ms, today's %d predict %d ms", w.IdealExecutors, ideal.WallMs, w.Executors, today.WallMs)
	}
	if w.CriticalPath.StageCount == 0 || len(w.CriticalPath.Stages) == 0 {
		t.Errorf("empty critical path: %+v", w.CriticalPath)
	}
}
