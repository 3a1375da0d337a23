package analysis

import (
	"cmp"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// runFacts are what decides, independently of the replay, whether a real
// log's run can be compared with the replay of its executor timeline.
type runFacts struct {
	hasAppStart bool
	// idleMs is the wall time the free slots cost while some stage had
	// launched tasks and was still to launch more (from a stage attempt's
	// first launch to its last), as the free share of the slots alive
	// integrated over that time.
	idleMs     float64
	meanTaskMs float64
	tasks      int64
}

// sweepPoint changes step functions at t: tasks running, executors
// alive, stage launch windows open.
type sweepPoint struct {
	t                       int64
	running, alive, windows int
}

// whatIfEvents are what factsOf takes from a log's events.
type whatIfEvents struct {
	hasAppStart      bool
	points           []sweepPoint
	spans            map[stageKey]*launches
	durations, timed int64
}

type launches struct{ first, last int64 }

func (x *whatIfEvents) add(ev sparkevent.Event) {
	switch e := ev.(type) {
	case *sparkevent.ApplicationStart:
		x.hasAppStart = true
	case *sparkevent.ExecutorAdded:
		if e.ExecutorID != "driver" {
			x.points = append(x.points, sweepPoint{t: e.Timestamp, alive: 1})
		}
	case *sparkevent.ExecutorRemoved:
		if e.ExecutorID != "driver" {
			x.points = append(x.points, sweepPoint{t: e.Timestamp, alive: -1})
		}
	case *sparkevent.TaskEnd:
		ti := &e.Task
		if e.Reason.Reason == "Resubmitted" || ti.LaunchTime <= 0 || ti.FinishTime < ti.LaunchTime {
			return
		}
		x.durations += ti.FinishTime - ti.LaunchTime
		x.timed++
		x.points = append(x.points, sweepPoint{t: ti.LaunchTime, running: 1}, sweepPoint{t: ti.FinishTime, running: -1})
		k := stageKey{e.StageID, e.StageAttemptID}
		if l := x.spans[k]; l == nil {
			x.spans[k] = &launches{ti.LaunchTime, ti.LaunchTime}
		} else {
			l.first, l.last = min(l.first, ti.LaunchTime), max(l.last, ti.LaunchTime)
		}
	}
}

// factsOf is the default analysis of the log at path and its run facts,
// from the read TestRealLogs shares (readRealLog).
func factsOf(t *testing.T, path string) (Report, runFacts) {
	t.Helper()
	run := readRealLog(t, path)
	x := run.whatIf
	f := runFacts{hasAppStart: x.hasAppStart}
	durations, timed, spans := x.durations, x.timed, x.spans
	points := slices.Clone(x.points) // sorted below; the shared read stays as read
	r := run.reports[0]
	f.tasks = r.Totals.Tasks
	if timed > 0 {
		f.meanTaskMs = float64(durations) / float64(timed)
	}
	w := r.WhatIf
	if w == nil {
		return r, f
	}
	for _, l := range spans {
		points = append(points, sweepPoint{t: l.first, windows: 1}, sweepPoint{t: l.last, windows: -1})
	}
	slices.SortStableFunc(points, func(x, y sweepPoint) int { return cmp.Compare(x.t, y.t) })
	var cur sweepPoint
	for i, p := range points {
		cur.running += p.running
		cur.alive += p.alive
		cur.windows += p.windows
		if i+1 == len(points) {
			break
		}
		dt := points[i+1].t - p.t
		slots := cur.alive * w.SlotsPerExecutor
		if w.Local {
			slots = w.SlotsPerExecutor
		}
		if cur.windows > 0 && slots > 0 {
			f.idleMs += float64(max(slots-cur.running, 0)) / float64(slots) * float64(dt)
		}
	}
	return r, f
}

// TestWhatIfRealLogsReplayToday replays every real log that has tasks on
// the executors it really had: the predicted executor time (wall time
// minus the driver's) must be within 10% of the real one. Exempt from the
// 10%, for reasons the test establishes from the events themselves (the
// replay must still not be over 10% slower than the real run): a rolling
// log's later part read alone (no ApplicationStart), whose stages started
// in the part not read.
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
			if !f.hasAppStart {
				why = "later part of a rolling log"
			}
			t.Logf("executor time %d ms, predicted at %d executors %d ms (%.3f); idle %.0f ms, mean task %.0f ms; exempt: %q",
				want, w.Executors, got, ratio, f.idleMs, f.meanTaskMs, why)
			checkWhatIfConsistent(t, r)
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
		})
	}
	if compared < 40 {
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
