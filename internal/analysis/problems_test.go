package analysis

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// analyzeLinesAt analyses hand-built lines as if read from file, with
// positions, as analyze does.
func analyzeLinesAt(t *testing.T, file string, lines []string, cfg Config) Report {
	t.Helper()
	a := New(cfg)
	for i, l := range lines {
		a.AddAt(sparklog.Position{File: file, Line: int64(i + 1)}, mustDecode(t, l))
	}
	return a.Report()
}

// A negative Executor CPU Time (seen in real logs when the JVM cannot read
// thread CPU time) is a counted problem naming line, field and value, and
// the report shows no negative CPU seconds anywhere.
func TestNegativeMetricIsCountedProblem(t *testing.T) {
	t0 := int64(1_700_000_000_000)
	b := (&logb{}).appStart(t0, "yarn").execAdded(t0, "1", 4).
		jobStart(0, t0+10, [3]int{0, 0, 2}).stageSubmitted(0, 0, 2, t0+10).
		tasks(tk{id: 1, exec: "1", launch: t0 + 100, finish: t0 + 20_100, cpuNs: -7_000_000_000, runMs: 20_000, memSpill: -5},
			tk{id: 2, exec: "1", launch: t0 + 100, finish: t0 + 10_100, cpuNs: 9e9, runMs: 10_000}).
		stageCompleted(0, 0, 2, t0+10, t0+20_200, "").jobEnd(0, t0+20_200).appEnd(t0 + 30_000)
	for _, stages := range []bool{false, true} {
		cfg := DefaultConfig()
		cfg.StageBorders = stages
		r := analyzeLinesAt(t, "app.log", b.lines, cfg)
		if r.ProblemCount != 2 || len(r.Problems) != 2 {
			t.Fatalf("stages=%v: %d problems %v, want 2 (CPU time and spill)", stages, r.ProblemCount, r.Problems)
		}
		var cpuLine int64
		for i, l := range b.lines {
			if strings.Contains(l, "-7000000000") {
				cpuLine = int64(i + 1)
			}
		}
		p := r.Problems[0].String()
		for _, want := range []string{"app.log:", "negative-value", `"Task Metrics.Executor CPU Time" = -7000000000`, "task 1 "} {
			if !strings.Contains(p, want) {
				t.Errorf("problem %q lacks %q", p, want)
			}
		}
		if r.Problems[0].Line != cpuLine {
			t.Errorf("problem at line %d, want %d", r.Problems[0].Line, cpuLine)
		}
		approx(t, "task CPU seconds", r.Totals.CPUSeconds, 9)
		approx(t, "memory spill", r.Totals.MemoryBytesSpill, 0)
		if s := r.Stages[0]; s.ExecutorCPUTime != 9e9 || s.MemoryBytesSpilled != 0 {
			t.Errorf("stage CPU time %d spill %d, want 9e9 and 0", s.ExecutorCPUTime, s.MemoryBytesSpilled)
		}
		for _, iv := range r.Intervals {
			if iv.CPUSeconds < 0 || iv.Efficiency < 0 {
				t.Errorf("interval %d: cpu %g efficiency %g", iv.Start, iv.CPUSeconds, iv.Efficiency)
			}
		}
		var out bytes.Buffer
		if err := WriteText(&out, r); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "Analysis problems (2)") || !strings.Contains(out.String(), "Executor CPU Time") {
			t.Errorf("text report does not list the problems:\n%s", out.String())
		}
	}
}

// The text report never panics, even on a report that holds negative
// values (built by hand, not by the analysis).
func TestWriteTextNegativeValues(t *testing.T) {
	r := Report{AppID: "app", Start: 1_700_000_000_000, End: 1_700_000_010_000,
		Totals:    Totals{CPUSeconds: -5, AvailableCoreSecs: 10, TaskSeconds: -3},
		Intervals: []Interval{{Start: 1_700_000_000_000, End: 1_700_000_010_000, AvailableCoreSeconds: 10, CPUSeconds: -5, SerdeSeconds: -1, TaskSeconds: -3}},
		Stages:    []Stage{{StageID: 0, Name: "x", SubmissionTime: 5, CompletionTime: 2}},
	}
	var out bytes.Buffer
	if err := WriteText(&out, r); err != nil {
		t.Fatal(err)
	}
}

// Active task counts never go below zero: a TaskEnd without its TaskStart
// is a counted problem instead of a decrement.
func TestTaskEndWithoutStart(t *testing.T) {
	t0 := int64(1_700_000_000_000)
	b := (&logb{}).appStart(t0, "yarn").execAdded(t0, "1", 4).
		jobStart(0, t0+10, [3]int{0, 0, 3}).stageSubmitted(0, 0, 3, t0+10)
	orphan := tk{id: 7, exec: "1", launch: t0 + 100, finish: t0 + 200, cpuNs: 1e8, runMs: 100}
	b.add("%s", taskEndLine(orphan)) // its TaskStart is missing (e.g. a log cut at its start)
	running := tk{id: 8, exec: "1", launch: t0 + 300, finish: t0 + 900}
	b.add("%s", taskStartLine(running))
	r := analyzeLinesAt(t, "cut.log", b.lines, DefaultConfig())
	if r.ProblemCount != 1 || r.Problems[0].Kind != ProblemEndWithoutStart || !strings.Contains(r.Problems[0].Reason, "task 7") {
		t.Fatalf("problems %d %v, want one task-end-without-start for task 7", r.ProblemCount, r.Problems)
	}
	if r.Problems[0].Line != int64(len(b.lines)-1) {
		t.Errorf("problem at line %d, want %d", r.Problems[0].Line, len(b.lines)-1)
	}
	for _, e := range r.Executors {
		if e.ID == "1" && e.ActiveTasks != 1 {
			t.Errorf("executor 1 active tasks %d, want 1 (task 8)", e.ActiveTasks)
		}
	}
	if s := r.Stages[0]; s.NumActiveTasks != 1 {
		t.Errorf("stage active tasks %d, want 1", s.NumActiveTasks)
	}
}

// FuzzReportOddValues feeds a small application whose numbers come from
// the fuzzer (negative, huge, out of order) through the analysis and the
// text report: nothing may panic, and no count, time or byte total the
// report shows may be negative.
func FuzzReportOddValues(f *testing.F) {
	f.Add(int64(-7e9), int64(100), int64(5), int64(-1), int64(0), int64(100), int64(20_000), 4, false, true)
	f.Add(int64(9e18), int64(-5), int64(-9e18), int64(1<<62), int64(-1<<62), int64(-50), int64(-10), -3, true, false)
	f.Add(int64(0), int64(0), int64(0), int64(0), int64(0), int64(0), int64(0), 0, false, false)
	f.Fuzz(func(t *testing.T, cpuNs, runMs, gcMs, memSpill, diskSpill, launch, finish int64, cores int, stages, withStart bool) {
		t0 := int64(1_700_000_000_000)
		task := tk{id: 1, exec: "1", launch: t0 + launch, finish: t0 + finish, cpuNs: cpuNs, runMs: runMs, gcMs: gcMs,
			memSpill: memSpill, diskSpill: diskSpill, fetchWaitMs: gcMs, writeNs: cpuNs, deserCPUNs: cpuNs, resSerMs: runMs}
		b := (&logb{}).appStart(t0, "yarn").execAdded(t0, "1", cores).
			jobStart(0, t0, [3]int{0, 0, 1}).stageSubmitted(0, 0, 1, t0)
		if withStart {
			b.add("%s", taskStartLine(task))
		}
		b.add("%s", taskEndLine(task)).stageCompleted(0, 0, 1, t0, t0+finish, "").jobEnd(0, t0+finish).appEnd(t0 + max(finish, 0) + 1000)
		cfg := DefaultConfig()
		cfg.StageBorders = stages
		a := New(cfg)
		for i, l := range b.lines {
			ev, err := sparkevent.DecodeLine([]byte(l))
			if err != nil {
				t.Fatalf("line %d: %v", i+1, err)
			}
			a.Add(ev)
		}
		r := a.Report()
		var out bytes.Buffer
		if err := WriteText(&out, r); err != nil {
			t.Fatal(err)
		}
		tot := r.Totals
		for name, v := range map[string]float64{"cpu": tot.CPUSeconds, "serde": tot.SerdeSeconds, "shuffle": tot.ShuffleSeconds,
			"gc": tot.GCSeconds, "task": tot.TaskSeconds, "mem spill": tot.MemoryBytesSpill, "disk spill": tot.DiskBytesSpill, "available": tot.AvailableCoreSecs} {
			if v < 0 {
				t.Errorf("total %s = %g", name, v)
			}
		}
		for _, iv := range r.Intervals {
			if iv.CPUSeconds < 0 || iv.TaskSeconds < 0 || iv.GCSeconds < 0 || iv.AvailableCoreSeconds < 0 {
				t.Errorf("interval %+v", iv)
			}
		}
		for _, s := range r.Stages {
			if s.ExecutorCPUTime < 0 || s.ExecutorRunTime < 0 || s.MemoryBytesSpilled < 0 || s.DiskBytesSpilled < 0 || s.NumActiveTasks < 0 || s.JVMGCTime < 0 {
				t.Errorf("stage %+v", s)
			}
		}
		for _, e := range r.Executors {
			if e.ActiveTasks < 0 || e.TotalDuration < 0 || e.TotalGCTime < 0 || e.TotalCores < 0 {
				t.Errorf("executor %+v", e)
			}
		}
		if r.ProblemCount < int64(len(r.Problems)) {
			t.Errorf("problem count %d below the %d listed", r.ProblemCount, len(r.Problems))
		}
	})
}

// A SQL plan bigger than SQLMaxPlanNodes is cut and is a counted problem
// naming the execution and the line.
func TestPlanTooLargeIsProblem(t *testing.T) {
	root := &sparkevent.PlanNode{NodeName: "Union"}
	for range 500 {
		root.Children = append(root.Children, &sparkevent.PlanNode{NodeName: "Scan parquet"})
	}
	cfg := DefaultConfig()
	cfg.SQLMaxPlanNodes = 100
	a := New(cfg)
	a.AddAt(sparklog.Position{File: "big.log", Line: 3}, &sparkevent.SQLExecutionStart{ExecutionID: 9, Plan: root, Time: 1_700_000_000_000})
	r := a.Report()
	if r.ProblemCount != 1 || r.Problems[0].Kind != ProblemPlanTooLarge {
		t.Fatalf("problems %v", r.Problems)
	}
	if got, want := r.Problems[0].String(), "big.log:3: plan-too-large: SQL execution 9: plan of 501 nodes, only the first 100 kept (--sql.max-plan-nodes)"; got != want {
		t.Errorf("problem %q, want %q", got, want)
	}
	if len(r.SQL) != 1 || len(r.SQL[0].Operators) != 100 || r.SQL[0].DroppedPlanNodes != 401 {
		t.Errorf("SQL %+v", r.SQL)
	}
}

// An ApplicationEnd before the ApplicationStart (a broken clock) gives the
// driver no negative run time.
func TestEndBeforeStartNoNegativeDuration(t *testing.T) {
	t0 := int64(1_700_000_000_000)
	b := (&logb{}).appStart(t0, "yarn").blockManager(t0, "driver").appEnd(t0 - 5000)
	r := analyzeLines(t, b.lines, DefaultConfig())
	if len(r.Executors) != 1 || r.Executors[0].TotalDuration != 0 {
		t.Errorf("executors %+v, want the driver with totalDuration 0", r.Executors)
	}
	var out bytes.Buffer
	if err := WriteText(&out, r); err != nil || !strings.Contains(out.String(), "(0s)") {
		t.Errorf("text report (err %v):\n%s", err, out.String())
	}
}
