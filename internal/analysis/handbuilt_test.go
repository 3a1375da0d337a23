package analysis

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

func approx(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %.12g, want %.12g", what, got, want)
	}
}

func findInterval(t *testing.T, r Report, start int64) Interval {
	t.Helper()
	for _, iv := range r.Intervals {
		if iv.Start == start {
			return iv
		}
	}
	t.Fatalf("no interval starts at %d", start)
	return Interval{}
}

// A task from 5 s to 35 s crosses three 10 s borders: its 30 s of CPU go
// 5/10/10/5 to the four intervals it touches.
func TestTaskCrossingBorders(t *testing.T) {
	b := (&logb{}).appStart(0, "yarn").execAdded(0, "1", 4).
		jobStart(0, 1000, [3]int{0, 0, 1}).stageSubmitted(0, 0, 1, 1000).
		tasks(tk{stage: 0, id: 0, exec: "1", launch: 5000, finish: 35000, cpuNs: 30e9, runMs: 30000, gcMs: 3000, fetchWaitMs: 6000, writeNs: 3e9, deserCPUNs: 1.5e9, resSerMs: 1500}).
		stageCompleted(0, 0, 1, 1000, 35000, "").jobEnd(0, 35000).appEnd(40000)
	r := analyzeLines(t, b.lines, DefaultConfig())
	if len(r.Intervals) != 5 || r.Intervals[4].Start != 40000 {
		t.Fatalf("%d intervals, want 5 (up to the one holding the end at 40 s)", len(r.Intervals))
	}
	approx(t, "available after the end", r.Intervals[4].AvailableCoreSeconds, 0)
	for i, share := range []float64{5, 10, 10, 5} {
		iv := r.Intervals[i]
		approx(t, "cpu", iv.CPUSeconds, share)
		approx(t, "gc", iv.GCSeconds, share/10)
		approx(t, "shuffle", iv.ShuffleSeconds, (6+3)*share/30) // 6 s fetch wait (ms) + 3 s write (ns)
		approx(t, "serde", iv.SerdeSeconds, 3*share/30)         // 1.5 s deser CPU (ns) + 1.5 s result ser (ms)
		approx(t, "available", iv.AvailableCoreSeconds, 40)
		approx(t, "efficiency", iv.Efficiency, share/40)
		if !slices.Equal(iv.Stages, []int{0}) || !iv.Settled {
			t.Errorf("interval %d: stages %v settled %v", i, iv.Stages, iv.Settled)
		}
	}
}

// Launch == Finish puts the whole value in the interval holding the launch.
func TestLaunchEqualsFinish(t *testing.T) {
	b := (&logb{}).appStart(0, "yarn").execAdded(0, "1", 1).
		jobStart(0, 0, [3]int{0, 0, 1}).stageSubmitted(0, 0, 1, 0).
		tasks(tk{stage: 0, id: 0, exec: "1", launch: 12345, finish: 12345, cpuNs: 1e9}).
		appEnd(20000)
	r := analyzeLines(t, b.lines, DefaultConfig())
	approx(t, "cpu in [10,20)", findInterval(t, r, 10000).CPUSeconds, 1)
	approx(t, "cpu in [0,10)", findInterval(t, r, 0).CPUSeconds, 0)
	if q := r.Stages[0].TaskDurations; q == nil || q.Max != 0 || q.Count != 1 {
		t.Errorf("durations %+v", q)
	}
}

// Two stages running side by side both show in the shared interval.
func TestParallelStages(t *testing.T) {
	b := (&logb{}).appStart(0, "yarn").execAdded(0, "1", 2).
		jobStart(0, 0, [3]int{0, 0, 1}).jobStart(1, 0, [3]int{1, 0, 1}).
		stageSubmitted(0, 0, 1, 0).stageSubmitted(1, 0, 1, 0).
		tasks(tk{stage: 0, id: 0, exec: "1", launch: 1000, finish: 15000, cpuNs: 14e9},
			tk{stage: 1, id: 1, exec: "1", launch: 12000, finish: 25000, cpuNs: 13e9}).
		appEnd(30000)
	r := analyzeLines(t, b.lines, DefaultConfig())
	want := [][]int{{0}, {0, 1}, {1}}
	for i, w := range want {
		if !slices.Equal(r.Intervals[i].Stages, w) {
			t.Errorf("interval %d stages %v, want %v", i, r.Intervals[i].Stages, w)
		}
	}
	approx(t, "cpu [10,20)", r.Intervals[1].CPUSeconds, 5+8) // 5 s of stage 0, 8 s of stage 1
	approx(t, "efficiency [10,20)", r.Intervals[1].Efficiency, 13.0/20)
}

// Dynamic allocation: executor 1 (4 cores) lives [0, 25 s), executor 2
// (2 cores) from 15 s to the end at 40 s.
func TestDynamicAllocation(t *testing.T) {
	b := (&logb{}).appStart(0, "yarn").execAdded(0, "1", 4).execAdded(15000, "2", 2).
		jobStart(0, 1000, [3]int{0, 0, 2}).stageSubmitted(0, 0, 2, 1000).
		tasks(tk{stage: 0, id: 0, exec: "1", launch: 1000, finish: 9000, runMs: 8000},
			tk{stage: 0, id: 1, exec: "2", launch: 16000, finish: 30000, runMs: 14000}).
		execRemoved(25000, "1", "idle timeout").appEnd(40000)
	r := analyzeLines(t, b.lines, DefaultConfig())
	for i, want := range []float64{40, 50, 40, 20} {
		approx(t, "available", r.Intervals[i].AvailableCoreSeconds, want)
	}
	approx(t, "total available", r.Totals.AvailableCoreSecs, 150)
	e1 := r.Executors[0]
	if e1.ID != "1" || e1.IsActive || e1.RemoveTime != 25000 || e1.RemoveReason != "idle timeout" || e1.TotalCores != 4 || e1.CompletedTasks != 1 {
		t.Errorf("executor 1: %+v", e1)
	}
	if e2 := r.Executors[1]; !e2.IsActive || e2.TotalCores != 2 || e2.MaxTasks != 2 || e2.TotalDuration != 14000 {
		t.Errorf("executor 2: %+v", e2)
	}
}

// A failed task without Task Metrics counts as failed, adds no metrics but
// its wall time still occupies a core; a killed task counts as killed only.
func TestFailedAndKilledTasks(t *testing.T) {
	b := (&logb{}).appStart(0, "yarn").execAdded(0, "1", 2).
		jobStart(0, 0, [3]int{0, 0, 2}).stageSubmitted(0, 0, 2, 500).
		tasks(tk{stage: 0, id: 0, exec: "1", launch: 1000, finish: 3000, reason: "ExecutorLostFailure", noMetrics: true},
			tk{stage: 0, id: 1, exec: "1", launch: 1000, finish: 5000, reason: "TaskKilled", runMs: 4000, cpuNs: 2e9},
			tk{stage: 0, id: 2, exec: "1", launch: 3000, finish: 7000, runMs: 4000, cpuNs: 3e9}).
		stageCompleted(0, 0, 2, 500, 7000, "").appEnd(10000)
	r := analyzeLines(t, b.lines, DefaultConfig())
	s := r.Stages[0]
	if s.NumFailedTasks != 1 || s.NumKilledTasks != 1 || s.NumCompleteTasks != 1 || s.NumActiveTasks != 0 || s.Status != StatusComplete {
		t.Errorf("stage counts %+v", s)
	}
	if s.ExecutorRunTime != 8000 || s.ExecutorCPUTime != 5e9 { // killed task's metrics count, the failed one has none
		t.Errorf("run %d cpu %d", s.ExecutorRunTime, s.ExecutorCPUTime)
	}
	if q := s.TaskDurations; q == nil || q.Count != 1 || q.Max != 4000 {
		t.Errorf("durations cover successful tasks only: %+v", q)
	}
	e := r.Executors[0]
	if e.FailedTasks != 1 || e.CompletedTasks != 1 || e.TotalTasks != 3 || e.TotalDuration != 2000+4000+4000 {
		t.Errorf("executor %+v", e)
	}
	approx(t, "task seconds", r.Intervals[0].TaskSeconds, 2+4+4)
	approx(t, "cpu", r.Intervals[0].CPUSeconds, 5)
}

// A retried stage shows both attempts; stage borders follow the stage id.
func TestRetriedStage(t *testing.T) {
	b := (&logb{}).appStart(0, "yarn").execAdded(0, "1", 1).
		jobStart(0, 0, [3]int{0, 0, 1}).stageSubmitted(0, 0, 1, 0).
		tasks(tk{stage: 0, id: 0, exec: "1", launch: 1000, finish: 2000, reason: "FetchFailed", noMetrics: true}).
		stageCompleted(0, 0, 1, 0, 2000, "FetchFailed(…)").
		stageSubmitted(0, 1, 1, 3000).
		tasks(tk{stage: 0, attempt: 1, id: 1, exec: "1", launch: 4000, finish: 6000, cpuNs: 2e9}).
		stageCompleted(0, 1, 1, 3000, 6000, "").jobEnd(0, 6000).appEnd(8000)
	cfg := DefaultConfig()
	cfg.StageBorders = true
	r := analyzeLines(t, b.lines, cfg)
	if len(r.Stages) != 2 || r.Stages[0].Status != StatusFailed || r.Stages[1].Status != StatusComplete || r.Stages[1].AttemptID != 1 {
		t.Fatalf("stages %+v", r.Stages)
	}
	if r.Stages[0].NumFailedTasks != 1 || r.Stages[1].NumCompleteTasks != 1 || r.Stages[1].FirstTaskLaunchedTime != 4000 {
		t.Errorf("attempt counts: %+v / %+v", r.Stages[0], r.Stages[1])
	}
	// Borders: 1000 (first launch of stage 0, any attempt) and 6000 (its last finish).
	var starts []int64
	for _, iv := range r.Intervals {
		starts = append(starts, iv.Start)
	}
	if !slices.Equal(starts, []int64{0, 1000, 6000}) {
		t.Errorf("interval starts %v, want [0 1000 6000]", starts)
	}
	approx(t, "cpu [1000,6000)", r.Intervals[1].CPUSeconds, 2)
	approx(t, "available [1000,6000)", r.Intervals[1].AvailableCoreSeconds, 5)
}

// Stage borders with parallel stages: spark-sight's intervals.
func TestStageBorders(t *testing.T) {
	b := (&logb{}).appStart(0, "yarn").execAdded(0, "1", 4).
		jobStart(0, 0, [3]int{0, 0, 2}, [3]int{1, 0, 1}).stageSubmitted(0, 0, 2, 0).stageSubmitted(1, 0, 1, 0).
		tasks(tk{stage: 0, id: 0, exec: "1", launch: 1000, finish: 5000, cpuNs: 4e9},
			tk{stage: 0, id: 1, exec: "1", launch: 1000, finish: 3000, cpuNs: 2e9},
			tk{stage: 1, id: 2, exec: "1", launch: 2000, finish: 6000, cpuNs: 4e9}).
		appEnd(7000)
	cfg := DefaultConfig()
	cfg.StageBorders = true
	r := analyzeLines(t, b.lines, cfg)
	type want struct {
		start, end int64
		cpu        float64
		stages     []int
	}
	wants := []want{{0, 1000, 0, []int{}}, {1000, 2000, 1 + 1, []int{0}}, {2000, 5000, 3 + 1 + 3, []int{0, 1}}, {5000, 6000, 1, []int{1}}, {6000, 7000, 0, []int{}}}
	if len(r.Intervals) != len(wants) {
		t.Fatalf("%d intervals: %+v", len(r.Intervals), r.Intervals)
	}
	for i, w := range wants {
		iv := r.Intervals[i]
		if iv.Start != w.start || iv.End != w.end || !slices.Equal(iv.Stages, w.stages) {
			t.Errorf("interval %d = [%d,%d) %v, want [%d,%d) %v", i, iv.Start, iv.End, iv.Stages, w.start, w.end, w.stages)
		}
		approx(t, "cpu", iv.CPUSeconds, w.cpu)
	}
	if r.IntervalMode != "stages" || r.IntervalMs != 0 {
		t.Errorf("mode %q %d", r.IntervalMode, r.IntervalMs)
	}
}

// Local mode: the driver counts with N cores from local[N] over the
// application's life, or for local[*] with the most tasks busy at once.
func TestLocalMode(t *testing.T) {
	build := func(master string) []string {
		b := (&logb{}).blockManager(0, "driver").appStart(0, master).
			jobStart(0, 0, [3]int{0, 0, 3}).stageSubmitted(0, 0, 3, 0).
			tasks(tk{stage: 0, id: 0, exec: "driver", launch: 1000, finish: 4000, cpuNs: 3e9, runMs: 3000},
				tk{stage: 0, id: 1, exec: "driver", launch: 1000, finish: 4000, cpuNs: 3e9, runMs: 3000},
				tk{stage: 0, id: 2, exec: "driver", launch: 2000, finish: 4000, cpuNs: 2e9, runMs: 2000}).
			appEnd(10000)
		return b.lines
	}
	r := analyzeLines(t, build("local[4]"), DefaultConfig())
	if r.LocalCores != 4 || r.CoresEstimated {
		t.Errorf("local[4]: cores %d estimated %v", r.LocalCores, r.CoresEstimated)
	}
	approx(t, "available", r.Intervals[0].AvailableCoreSeconds, 40)
	approx(t, "efficiency", r.Intervals[0].Efficiency, 8.0/40)
	d := r.Executors[0]
	if d.ID != "driver" || d.TotalDuration != 10000 || d.CompletedTasks != 3 || d.TotalCores != 0 {
		t.Errorf("driver %+v", d)
	}

	r = analyzeLines(t, build("local[*]"), DefaultConfig())
	if r.LocalCores != 3 || !r.CoresEstimated {
		t.Errorf("local[*]: cores %d estimated %v, want 3 estimated", r.LocalCores, r.CoresEstimated)
	}
	approx(t, "available local[*]", r.Intervals[0].AvailableCoreSeconds, 30)

	cfg := DefaultConfig()
	cfg.CPUs = 16
	r = analyzeLines(t, build("local[*]"), cfg)
	approx(t, "available --cpus 16", r.Intervals[0].AvailableCoreSeconds, 160)
}

// On two cores, the local backend launches task 2 on the core task 0 frees
// at 2000 (its deserialisation, run and result serialisation took 1000 ms),
// before the driver has handled task 0's result (Finish Time 2005): in
// event order three tasks run at once, but never more than two were busy.
// A log without task metrics keeps the event-order count.
func TestLocalModeCoresFromBusyTime(t *testing.T) {
	build := func(noMetrics bool) []string {
		return (&logb{}).blockManager(0, "driver").appStart(0, "local[*]").
			jobStart(0, 0, [3]int{0, 0, 3}).stageSubmitted(0, 0, 3, 0).
			tasks(tk{stage: 0, id: 0, exec: "driver", launch: 1000, finish: 2005, runMs: 990, resSerMs: 10, noMetrics: noMetrics},
				tk{stage: 0, id: 1, exec: "driver", launch: 1000, finish: 4000, runMs: 3000, noMetrics: noMetrics},
				tk{stage: 0, id: 2, exec: "driver", launch: 2000, finish: 3005, runMs: 1000, noMetrics: noMetrics}).
			appEnd(10000).lines
	}
	lines := build(false)
	if i, j := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, `TaskStart"`) && strings.Contains(l, `"Task ID":2,`) }),
		slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, `TaskEnd"`) && strings.Contains(l, `"Task ID":0,`) }); i < 0 || j < i {
		t.Fatalf("task 2's start (line %d) must come before task 0's end (line %d)", i, j)
	}
	r := analyzeLines(t, lines, DefaultConfig())
	if r.LocalCores != 2 || !r.CoresEstimated {
		t.Errorf("local[*]: cores %d estimated %v, want 2 estimated", r.LocalCores, r.CoresEstimated)
	}
	approx(t, "available", r.Intervals[0].AvailableCoreSeconds, 20)

	r = analyzeLines(t, build(true), DefaultConfig())
	if r.LocalCores != 3 || !r.CoresEstimated {
		t.Errorf("local[*] without task metrics: cores %d estimated %v, want 3 estimated", r.LocalCores, r.CoresEstimated)
	}
}

// Logs before Spark 2.1 have no Executor CPU Time: no efficiency, and no
// low_efficiency finding from the zeros.
func TestOldLogWithoutCPUTime(t *testing.T) {
	b := (&logb{}).appStart(0, "yarn").execAdded(0, "1", 1).
		jobStart(0, 0, [3]int{0, 0, 1}).stageSubmitted(0, 0, 1, 0).
		tasks(tk{stage: 0, id: 0, exec: "1", launch: 1000, finish: 121000, noCPU: true, runMs: 120000}).
		appEnd(121000)
	r := analyzeLines(t, b.lines, DefaultConfig())
	if r.CPUTimeAvailable {
		t.Error("CPUTimeAvailable true without Executor CPU Time")
	}
	approx(t, "cpu", r.Totals.CPUSeconds, 0)
	approx(t, "task seconds", r.Totals.TaskSeconds, 120)
	for _, f := range r.Findings {
		if f.Kind == KindLowEfficiency {
			t.Errorf("low_efficiency on a log without CPU time: %+v", f)
		}
	}
}

// A live application: intervals after the earliest running task's launch
// are not settled.
func TestLiveSettled(t *testing.T) {
	b := (&logb{}).appStart(0, "yarn").execAdded(0, "1", 2).
		jobStart(0, 0, [3]int{0, 0, 2}).stageSubmitted(0, 0, 2, 0).
		tasks(tk{stage: 0, id: 0, exec: "1", launch: 1000, finish: 12000, cpuNs: 1e9})
	b.lines = append(b.lines, taskStartLine(tk{stage: 0, id: 1, exec: "1", launch: 25000}))
	b.add(`{"Event":"SparkListenerExecutorAdded","Timestamp":41000,"Executor ID":"2","Executor Info":{"Host":"h","Total Cores":1,"Log Urls":{}}}`)
	r := analyzeLines(t, b.lines, DefaultConfig())
	if !r.Live || r.End != 41000 {
		t.Fatalf("live %v end %d", r.Live, r.End)
	}
	var settled []bool
	for _, iv := range r.Intervals {
		settled = append(settled, iv.Settled)
	}
	if !slices.Equal(settled, []bool{true, true, false, false, false}) {
		t.Errorf("settled %v, want [true true false false false]", settled)
	}
	approx(t, "available [40,50)", r.Intervals[4].AvailableCoreSeconds, 2*1+1*0)
}

// Report is a deep copy: adding events afterwards leaves it unchanged.
func TestReportIsSnapshot(t *testing.T) {
	b := (&logb{}).appStart(0, "yarn").execAdded(0, "1", 2).
		jobStart(0, 0, [3]int{0, 0, 2}).stageSubmitted(0, 0, 2, 0).
		tasks(tk{stage: 0, id: 0, exec: "1", launch: 1000, finish: 2000, cpuNs: 1e9})
	a := New(DefaultConfig())
	more := (&logb{}).tasks(tk{stage: 0, id: 1, exec: "1", launch: 3000, finish: 4000, cpuNs: 1e9, memSpill: 10})
	for _, l := range b.lines {
		a.Add(mustDecode(t, l))
	}
	r := a.Report()
	before := r.Intervals[0].CPUSeconds
	for _, l := range more.lines {
		a.Add(mustDecode(t, l))
	}
	r2 := a.Report()
	r2.Intervals[0].Stages[0] = 99
	if r.Intervals[0].CPUSeconds != before || r.Intervals[0].Stages[0] != 0 || len(r.Intervals[0].Spill) != 0 {
		t.Errorf("first report changed: %+v", r.Intervals[0])
	}
	approx(t, "second report cpu", r2.Intervals[0].CPUSeconds, 2)
	if len(r2.Intervals[0].Spill) != 1 || r2.Intervals[0].Spill[0].MemoryBytes != 10 {
		t.Errorf("spill %+v", r2.Intervals[0].Spill)
	}
}

// A report taken before any timestamped event (the exporter does this for a
// brand-new log) must not pin the timeline at epoch 0: the next task would
// otherwise grow it by hundreds of millions of intervals.
func TestReportBeforeAnyEventKeepsTimelineSmall(t *testing.T) {
	a := New(DefaultConfig())
	if r := a.Report(); len(r.Intervals) != 0 {
		t.Fatalf("empty app has %d intervals", len(r.Intervals))
	}
	a.Add(&sparkevent.ApplicationStart{AppID: "app-1", AppName: "x", Timestamp: 1796029200000})
	a.Add(&sparkevent.ExecutorAdded{ExecutorID: "1", TotalCores: 4, Timestamp: 1796029200000})
	a.Add(&sparkevent.TaskEnd{Reason: sparkevent.TaskEndReason{Reason: "Success"},
		Task:    sparkevent.TaskInfo{TaskID: 1, ExecutorID: "1", LaunchTime: 1796029201000, FinishTime: 1796029225000},
		Metrics: &sparkevent.TaskMetrics{ExecutorCPUTime: 12e9, HasExecutorCPUTime: true}})
	r := a.Report()
	if len(r.Intervals) != 3 {
		t.Fatalf("%d intervals for 25 s of application, want 3", len(r.Intervals))
	}
	var cpu float64
	for _, iv := range r.Intervals {
		cpu += iv.CPUSeconds
	}
	if cpu < 12-1e-9 || cpu > 12+1e-9 {
		t.Errorf("cpu seconds %v, want 12", cpu)
	}
}

// Broken clocks (the reviewers' cases): an executor added at epoch 1000, a
// first task launched at epoch 5 ms, a task dated two months ahead. None may
// stretch the timeline, and the real tasks must still be on it.
func TestBrokenClocksKeepTheTimelineOnTheApplication(t *testing.T) {
	now := int64(1_700_000_000_000)
	a := New(DefaultConfig())
	a.Add(&sparkevent.ApplicationStart{AppID: "app", Timestamp: now})
	a.Add(&sparkevent.ExecutorAdded{ExecutorID: "1", TotalCores: 4, Timestamp: 1000})
	task := func(id, launch, finish int64, cpuNs int64) {
		a.Add(&sparkevent.TaskEnd{Reason: sparkevent.TaskEndReason{Reason: "Success"},
			Task:    sparkevent.TaskInfo{TaskID: id, ExecutorID: "1", LaunchTime: launch, FinishTime: finish},
			Metrics: &sparkevent.TaskMetrics{ExecutorCPUTime: cpuNs, HasExecutorCPUTime: true}})
	}
	task(1, 5, 10, 1e9)                                       // 1970
	task(2, now+1000, now+5000, 4e9)                          // real
	task(3, now+60*24*3600*1000, now+60*24*3600*1000+10, 1e9) // two months ahead
	task(4, now+6000, now+9000, 2e9)                          // real
	a.Add(&sparkevent.ApplicationEnd{Timestamp: now + 60_000})
	r := a.Report()
	if len(r.Intervals) > 24*3600/10+10 {
		t.Errorf("%d intervals for a one-minute application", len(r.Intervals))
	}
	var cpu float64
	for _, iv := range r.Intervals {
		cpu += iv.CPUSeconds
	}
	approx(t, "cpu seconds on the timeline", cpu, 6)
	approx(t, "cpu seconds in totals", r.Totals.CPUSeconds, 6)
	if r.UnplacedTasks != 2 {
		t.Errorf("unplaced %d, want the 2 tasks with broken clocks", r.UnplacedTasks)
	}
	if r.End != now+60_000 {
		t.Errorf("end %d, want the ApplicationEnd", r.End)
	}
}

// A long-running (streaming) application keeps its latest intervals: the
// timeline's window slides instead of growing without bound.
func TestTimelineWindowSlides(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Interval = time.Millisecond
	a := New(cfg)
	a.Add(&sparkevent.ApplicationStart{AppID: "app", Timestamp: 1_700_000_000_000})
	for i := int64(0); i < 3; i++ {
		launch := 1_700_000_000_000 + i*(maxIntervals/2)
		a.Add(&sparkevent.TaskEnd{Reason: sparkevent.TaskEndReason{Reason: "Success"},
			Task:    sparkevent.TaskInfo{TaskID: i, ExecutorID: "1", LaunchTime: launch, FinishTime: launch + 1},
			Metrics: &sparkevent.TaskMetrics{ExecutorCPUTime: 1e9, HasExecutorCPUTime: true}})
	}
	r := a.Report()
	if len(r.Intervals) > maxIntervals {
		t.Fatalf("%d intervals, more than the %d window", len(r.Intervals), maxIntervals)
	}
	var cpu float64
	for _, iv := range r.Intervals {
		cpu += iv.CPUSeconds
	}
	approx(t, "cpu seconds of the last two tasks", cpu, 2)
}

// A Databricks log has no LogStart: its version comes from the metadata
// event, and a LogStart, when present, wins.
func TestSparkVersionFromDatabricksMetadata(t *testing.T) {
	a := New(DefaultConfig())
	a.Add(&sparkevent.DatabricksMetadata{SparkVersion: "3.4.1", Timestamp: 1726763202679})
	if v := a.Report().SparkVersion; v != "3.4.1" {
		t.Errorf("version %q, want 3.4.1", v)
	}
	b := New(DefaultConfig())
	b.Add(&sparkevent.LogStart{SparkVersion: "3.5.0"})
	b.Add(&sparkevent.DatabricksMetadata{SparkVersion: "3.4.1"})
	if v := b.Report().SparkVersion; v != "3.5.0" {
		t.Errorf("version %q, want LogStart's 3.5.0", v)
	}
}
