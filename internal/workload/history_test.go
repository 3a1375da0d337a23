package workload_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sparkglance/sparkglance/internal/workload"
)

// run is a small hand-made summary: wall seconds, efficiency, input bytes.
func run(key string, i int, wall, eff, input float64) workload.Summary {
	s := workload.Summary{Workload: key, AppID: fmt.Sprintf("app-%03d", i), Start: int64(i) * 86_400_000, Finished: true,
		Properties: map[string]string{"spark.executor.memory": "4g"}, Stages: []workload.StageSummary{}}
	s.End = s.Start + int64(wall*1e3)
	s.Values.Set(workload.WallTime, wall)
	s.Values.Set(workload.Efficiency, eff)
	s.Values.Set(workload.InputBytes, input)
	return s
}

// Runs added in any order are judged in start order, a live run seen
// again replaces itself, and a running run does not count for baselines.
func TestHistoryAnyOrder(t *testing.T) {
	var sums []workload.Summary
	for i := range 6 {
		sums = append(sums, run("etl", i, 600+float64(i), 0.8, 1e9))
	}
	sums = append(sums, run("etl", 6, 1500, 0.8, 1e9)) // 2.5×, +15 min
	for _, order := range [][]int{{0, 1, 2, 3, 4, 5, 6}, {6, 5, 4, 3, 2, 1, 0}, {3, 6, 0, 5, 1, 4, 2}} {
		h := workload.NewHistory(workload.HistoryOptions{})
		for _, i := range order {
			h.Add(sums[i])
		}
		latest, finished, ok := h.Latest("etl")
		if !ok || latest.Run != "app-006" || finished.Run != "app-006" || !latest.Fires() {
			t.Fatalf("order %v: latest %s finished %s fires %v", order, latest.Run, finished.Run, latest.Fires())
		}
		if b, _ := latest.Baseline.Values.Get(workload.WallTime); b != 602.5 || latest.Baseline.Runs != 6 {
			t.Errorf("order %v: baseline wall %v of %d runs, want 602.5 of 6", order, b, latest.Baseline.Runs)
		}
		r3, _ := h.Evaluate("etl", "app-003", "")
		if r3.Previous != 3 || r3.Baseline == nil || r3.Fires() {
			t.Errorf("order %v: run 3 previous %d baseline %v", order, r3.Previous, r3.Baseline)
		}
	}

	// A live run: judged as it goes, never part of a baseline.
	h := workload.NewHistory(workload.HistoryOptions{})
	for i := range 6 {
		h.Add(sums[i])
	}
	live := run("etl", 7, 100, 0.8, 1e9)
	live.Finished = false
	h.Add(live)
	latest, finished, _ := h.Latest("etl")
	if latest.Run != "app-007" || latest.Fires() || finished.Run != "app-005" {
		t.Errorf("live: latest %s fires %v, finished %s", latest.Run, latest.Fires(), finished.Run)
	}
	live.End = live.Start + 1_000_000 // seen again, now 1000 s in
	live.Values.Set(workload.WallTime, 1000)
	h.Add(live)
	latest, _, _ = h.Latest("etl")
	if len(h.Runs("etl")) != 7 || !latest.Fires() {
		t.Errorf("live again: %d runs, fires %v", len(h.Runs("etl")), latest.Fires())
	}
	next := run("etl", 8, 600, 0.8, 1e9)
	h.Add(next)
	r8, _ := h.Evaluate("etl", "app-008", "")
	if r8.Previous != 6 {
		t.Errorf("the live run counted: %d previous finished runs", r8.Previous)
	}
}

// The history stays bounded: workloads beyond the limit are dropped and
// counted, old runs are dropped, and only the newest keep their details.
func TestHistoryBounded(t *testing.T) {
	o := workload.HistoryOptions{MaxWorkloads: 3, MaxRuns: 20, Options: workload.Options{BaselineRuns: 5}}
	h := workload.NewHistory(o)
	rng := rand.New(rand.NewPCG(1, 2))
	perm := rng.Perm(200)
	for _, i := range perm {
		h.Add(run(fmt.Sprintf("w%d", i%5), i, 600, 0.8, 1e9))
	}
	if got := h.Workloads(); len(got) != 3 {
		t.Fatalf("workloads %v, want 3", got)
	}
	kept := 0
	for _, w := range h.Workloads() {
		runs := h.Runs(w)
		kept += len(runs)
		if len(runs) != 20 {
			t.Errorf("%s: %d runs kept, want 20", w, len(runs))
		}
		if !slices.IsSortedFunc(runs, func(a, b workload.Summary) int { return int(a.Start - b.Start) }) {
			t.Errorf("%s: runs out of order", w)
		}
		for i, r := range runs {
			if want := i >= 20-7; r.Detailed() != want { // the baseline's 5 runs + 2
				t.Errorf("%s run %d (%s): detailed %v, want %v", w, i, r.ID(), r.Detailed(), want)
			}
		}
		// The newest 20 of the workload's 40 runs are kept.
		if last := runs[len(runs)-1].Start / 86_400_000; last < 195 {
			t.Errorf("%s: newest kept run %d", w, last)
		}
	}
	if kept != 60 || h.Dropped() != 80 {
		t.Errorf("kept %d, dropped %d, want 60 and the 80 runs of the 2 workloads beyond the limit", kept, h.Dropped())
	}
}

func TestValuesJSON(t *testing.T) {
	var v workload.Values
	v.Set(workload.WallTime, 12.5)
	v.Set(workload.Cost, 0)
	b, err := json.Marshal(v)
	if err != nil || string(b) != `{"cost":0,"wall_time":12.5}` {
		t.Fatalf("%s %v", b, err)
	}
	var back workload.Values
	if err := json.Unmarshal(b, &back); err != nil || back != v {
		t.Errorf("round trip %+v %v", back, err)
	}
	if _, ok := back.Get(workload.Energy); ok {
		t.Error("energy known")
	}
}

func TestPropertyDiff(t *testing.T) {
	got := workload.PropertyDiff(
		map[string]string{"a": "1", "b": "2", "spark.app.id": "app-1", "gone": "x"},
		map[string]string{"a": "1", "b": "3", "spark.app.id": "app-2", "new": "y"})
	var s []string
	for _, p := range got {
		s = append(s, p.String())
	}
	if want := []string{"b: 2 → 3", "-gone (was x)", "+new=y"}; !slices.Equal(s, want) {
		t.Errorf("diff %q, want %q", s, want)
	}
}

// Stages match by key; the biggest contributor to the difference comes
// first; stages of one run only are listed apart.
func TestCompareStages(t *testing.T) {
	base := run("etl", 0, 100, 0.5, 1e9)
	nw := run("etl", 1, 160, 0.5, 1e9)
	base.Stages = []workload.StageSummary{{Key: "scan at A.scala:1", WallMs: 50_000}, {Key: "join at A.scala:2", WallMs: 40_000}, {Key: "old at A.scala:3", WallMs: 10_000}}
	nw.Stages = []workload.StageSummary{{Key: "scan at A.scala:1", WallMs: 55_000}, {Key: "join at A.scala:2", WallMs: 95_000}, {Key: "new at A.scala:4", WallMs: 10_000}}
	c := workload.Compare(&base, &nw)
	if len(c.Stages) != 2 || c.Stages[0].Key != "join at A.scala:2" || c.Stages[0].DeltaMs != 55_000 || c.Stages[0].Share != 55.0/60 {
		t.Fatalf("stages %+v", c.Stages)
	}
	if len(c.OnlyBase) != 1 || c.OnlyBase[0].Key != "old at A.scala:3" || len(c.OnlyNew) != 1 || c.OnlyNew[0].Key != "new at A.scala:4" {
		t.Errorf("unmatched %v %v", c.OnlyBase, c.OnlyNew)
	}
	if d, _ := c.Measure(workload.WallTime); d.Delta != 60 || d.Ratio != 1.6 {
		t.Errorf("wall delta %+v", d)
	}
}
