package analysis

import (
	"fmt"
	"testing"
)

func countKind(r Report, kind string) (n int, last Finding) {
	for _, f := range r.Findings {
		if f.Kind == kind {
			n++
			last = f
		}
	}
	return n, last
}

// oneStage builds an app on executors with the given cores, running the
// tasks as stage 0, ending at end.
func oneStage(cores []int, end int64, ts ...tk) []string {
	b := (&logb{}).appStart(0, "yarn")
	for i, c := range cores {
		b.execAdded(0, fmt.Sprint(i+1), c)
	}
	b.jobStart(0, 0, [3]int{0, 0, len(ts)}).stageSubmitted(0, 0, len(ts), 1)
	b.tasks(ts...)
	b.stageCompleted(0, 0, len(ts), 1, end, "").jobEnd(0, end).appEnd(end)
	return b.lines
}

func spillTasks(spills ...int64) []tk {
	var ts []tk
	for i, s := range spills {
		ts = append(ts, tk{id: int64(i), exec: fmt.Sprint(i + 1), launch: 1000, finish: 2000, cpuNs: 1e9, memSpill: s, diskSpill: s / 2})
	}
	return ts
}

func skewTasks(maxMs int64) []tk {
	var ts []tk
	for i := range 10 {
		ts = append(ts, tk{id: int64(i), exec: "1", launch: 1000, finish: 1500, cpuNs: 1e8})
	}
	return append(ts, tk{id: 10, exec: "1", launch: 1000, finish: 1000 + maxMs, cpuNs: 1e8})
}

func parallel(n int, wallMs, cpuNs int64) []tk {
	var ts []tk
	for i := range n {
		ts = append(ts, tk{id: int64(i), exec: "1", launch: 10000, finish: 10000 + wallMs, cpuNs: cpuNs})
	}
	return ts
}

func TestFindings(t *testing.T) {
	cases := []struct {
		name  string
		kind  string
		lines []string
		want  int
	}{
		{"one task 30 s on 8 cores", KindSingleCoreStage, oneStage([]int{8}, 40000, tk{exec: "1", launch: 1000, finish: 31000, cpuNs: 30e9}), 1},
		{"one task 29.999 s", KindSingleCoreStage, oneStage([]int{8}, 40000, tk{exec: "1", launch: 1000, finish: 30999, cpuNs: 30e9}), 0},
		{"one task 30 s on 7 cores", KindSingleCoreStage, oneStage([]int{7}, 40000, tk{exec: "1", launch: 1000, finish: 31000, cpuNs: 30e9}), 0},

		{"4 of 4 spill, max/median 1.6", KindUniformSpill, oneStage([]int{1, 1, 1, 1}, 3000, spillTasks(100, 100, 150, 200)...), 1},
		{"3 of 4 spill evenly", KindUniformSpill, oneStage([]int{1, 1, 1, 1}, 3000, spillTasks(0, 100, 100, 100)...), 1},
		{"max/median 2.01", KindUniformSpill, oneStage([]int{1, 1, 1, 1}, 3000, spillTasks(100, 100, 100, 201)...), 0},
		{"2 of 3 spill", KindUniformSpill, oneStage([]int{1, 1, 1}, 3000, spillTasks(0, 100, 100)...), 0},

		{"one executor 3× median", KindSkewedSpill, oneStage([]int{1, 1, 1}, 3000, spillTasks(100, 100, 300)...), 1},
		{"one executor 2.99× median", KindSkewedSpill, oneStage([]int{1, 1, 1}, 3000, spillTasks(100, 100, 299)...), 0},

		{"max 5.001 s = 10× median", KindTaskSkew, oneStage([]int{1}, 7000, skewTasks(5001)...), 1},
		{"max 5 s", KindTaskSkew, oneStage([]int{1}, 7000, skewTasks(5000)...), 0},

		{"efficiency 0.19 for 60 s", KindLowEfficiency, oneStage([]int{10}, 70000, parallel(10, 60000, 11.4e9)...), 1},
		{"efficiency 0.201 for 60 s", KindLowEfficiency, oneStage([]int{10}, 70000, parallel(10, 60000, 12.06e9)...), 0},
		{"efficiency 0.19 for 50 s", KindLowEfficiency, oneStage([]int{10}, 60000, parallel(10, 50000, 9.5e9)...), 0},

		{"GC 10.01% of 10 s", KindGCPressure, oneStage([]int{1}, 12000, tk{exec: "1", launch: 1000, finish: 11000, runMs: 10000, gcMs: 1001, cpuNs: 9e9}), 1},
		{"GC 10% of 10 s", KindGCPressure, oneStage([]int{1}, 12000, tk{exec: "1", launch: 1000, finish: 11000, runMs: 10000, gcMs: 1000, cpuNs: 9e9}), 0},

		{"fetch wait 20.01%", KindShuffleWait, oneStage([]int{1}, 12000, tk{exec: "1", launch: 1000, finish: 11000, runMs: 10000, fetchWaitMs: 2001, cpuNs: 7e9}), 1},
		{"fetch wait 20%", KindShuffleWait, oneStage([]int{1}, 12000, tk{exec: "1", launch: 1000, finish: 11000, runMs: 10000, fetchWaitMs: 2000, cpuNs: 7e9}), 0},

		{"10% used for 5 min", KindIdleExecutors, oneStage([]int{10}, 300000, tk{exec: "1", launch: 1, finish: 300000, cpuNs: 290e9}), 1},
		{"10% used for 4 min 50 s", KindIdleExecutors, oneStage([]int{10}, 290000, tk{exec: "1", launch: 1, finish: 290000, cpuNs: 280e9}), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := analyzeLines(t, c.lines, DefaultConfig())
			n, f := countKind(r, c.kind)
			if n != c.want {
				t.Fatalf("%d %s findings, want %d; all findings: %+v", n, c.kind, c.want, r.Findings)
			}
			if n > 0 && (f.Advice == "" || len(f.Numbers) == 0) {
				t.Errorf("finding without numbers or advice: %+v", f)
			}
		})
	}
}

func TestSkewedSpillNamesExecutor(t *testing.T) {
	r := analyzeLines(t, oneStage([]int{1, 1, 1}, 3000, spillTasks(100, 100, 300)...), DefaultConfig())
	_, f := countKind(r, KindSkewedSpill)
	if f.ExecutorID != "3" || f.Numbers["maxToMedian"] != 3 || f.StageID == nil || *f.StageID != 0 {
		t.Errorf("%+v", f)
	}
}
