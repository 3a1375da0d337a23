package analysis

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// randomStagesLog is a random application that a cluster could have run:
// executors × cores slots, stages that overlap in time, each task on a
// free slot with its CPU, serde, shuffle and GC time within its span;
// times are multiples of step so that stage borders fall on fixed-width
// interval edges. Events are in time order; withStarts false drops every
// TaskStart (trimmed logs, spark-sight's test logs).
func randomStagesLog(rng *rand.Rand, withStarts bool, step int64) []sparkevent.Event {
	t0 := int64(1_700_000_000_000)
	execs, cores := 1+rng.IntN(4), 1+rng.IntN(4)
	var evs []sparkevent.Event
	evs = append(evs, &sparkevent.ApplicationStart{AppID: "app-prop", Timestamp: t0})
	for e := range execs {
		evs = append(evs, &sparkevent.ExecutorAdded{Timestamp: t0, ExecutorID: fmt.Sprint(e + 1), Host: "h", TotalCores: cores})
	}
	type timed struct {
		at  int64
		end bool
		ev  sparkevent.Event
	}
	var tev []timed
	free := make([]int64, execs*cores) // when each slot is free again
	for i := range free {
		free[i] = t0 + step
	}
	taskID := int64(0)
	stageAt := t0 + step
	for s := range 2 + rng.IntN(6) {
		stageAt += step * rng.Int64N(20)
		for range 1 + rng.IntN(12) {
			k := rng.IntN(len(free))
			launch := max(free[k], stageAt) + step*rng.Int64N(5)
			d := step * (1 + rng.Int64N(40))
			if rng.IntN(6) == 0 {
				d *= 10 // a long task spanning later stages
			}
			finish := launch + d
			free[k] = finish
			cpu := rng.Int64N(d + 1)
			gc := rng.Int64N(d - cpu + 1)
			info := sparkevent.TaskInfo{TaskID: taskID, LaunchTime: launch, ExecutorID: fmt.Sprint(k/cores + 1)}
			taskID++
			if withStarts {
				tev = append(tev, timed{launch, false, &sparkevent.TaskStart{StageID: s, Task: info}})
			}
			info.FinishTime = finish
			tev = append(tev, timed{finish, true, &sparkevent.TaskEnd{StageID: s, Reason: sparkevent.TaskEndReason{Reason: "Success"}, Task: info,
				Metrics: &sparkevent.TaskMetrics{ExecutorCPUTime: cpu * 1e6, HasExecutorCPUTime: true, JVMGCTime: gc}}})
		}
	}
	// Ends before starts at the same time, as a slot is freed then taken.
	slices.SortStableFunc(tev, func(x, y timed) int {
		if c := cmp.Compare(x.at, y.at); c != 0 {
			return c
		}
		if x.end != y.end {
			if x.end {
				return -1
			}
			return 1
		}
		return 0
	})
	last := t0
	for _, e := range tev {
		evs = append(evs, e.ev)
		last = e.at
	}
	return append(evs, &sparkevent.ApplicationEnd{Timestamp: last + step})
}

// Stage-border intervals of random logs, with and without TaskStart
// events: every share is within [0, 1], and each interval holds exactly
// the values the fixed-width intervals hold over the same span (issue
// 24.2: without TaskStart events a stage's launch border came after
// earlier stages' longer tasks were binned, the segment was split by time
// share, and intervals read over 100 % next to intervals too low).
func TestStageBordersMatchFixedWidth(t *testing.T) {
	const step = 100 // ms; the fixed width
	for seed := range uint64(300) {
		for _, withStarts := range []bool{true, false} {
			evs := randomStagesLog(rand.New(rand.NewPCG(seed, 24)), withStarts, step)
			cfg := DefaultConfig()
			cfg.StageBorders = true
			borders := New(cfg)
			cfg = DefaultConfig()
			cfg.Interval = step * time.Millisecond
			fixed := New(cfg)
			for _, ev := range evs {
				borders.Add(ev)
				fixed.Add(ev)
			}
			rb, rf := borders.Report(), fixed.Report()
			byStart := map[int64]*Interval{}
			for i := range rf.Intervals {
				byStart[rf.Intervals[i].Start] = &rf.Intervals[i]
			}
			for _, iv := range rb.Intervals {
				var cpu, gc, avail float64
				for at := iv.Start; at < iv.End; at += step {
					if f := byStart[at]; f != nil {
						cpu, gc, avail = cpu+f.CPUSeconds, gc+f.GCSeconds, avail+f.AvailableCoreSeconds
					}
				}
				where := fmt.Sprintf("seed %d, TaskStart %v, interval [%d, %d)", seed, withStarts, iv.Start, iv.End)
				if !near(iv.CPUSeconds, cpu) || !near(iv.GCSeconds, gc) || !near(iv.AvailableCoreSeconds, avail) {
					t.Fatalf("%s: cpu %v gc %v of %v core s, fixed-width intervals over it: %v, %v of %v", where, iv.CPUSeconds, iv.GCSeconds, iv.AvailableCoreSeconds, cpu, gc, avail)
				}
				if a := iv.AvailableCoreSeconds; a > 0 {
					for name, v := range map[string]float64{"cpu": iv.CPUSeconds / a, "gc": iv.GCSeconds / a, "cpu+gc": (iv.CPUSeconds + iv.GCSeconds) / a} {
						if v < -1e-9 || v > 1+1e-9 {
							t.Fatalf("%s: %s share %.4f outside [0, 1]", where, name, v)
						}
					}
				}
			}
		}
	}
}
