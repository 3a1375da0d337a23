package analysis

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/sparkglance/sparkglance/internal/analysis/sqlops"
	"github.com/sparkglance/sparkglance/internal/workloadkey"
)

// Report is a consistent, self-contained snapshot of the analysis: it
// shares no memory with the App, so it can be handed to another goroutine
// while Add continues. Times are epoch ms.
type Report struct {
	AppID     string `json:"appId"`
	AttemptID string `json:"attemptId"`
	AppName   string `json:"appName"`
	// Workload is the recurring job this attempt is a run of (package
	// workloadkey: spark.sparkglance.workload or the normalised name).
	Workload       string `json:"workload"`
	SparkVersion   string `json:"sparkVersion"`
	Start          int64  `json:"start"`
	End            int64  `json:"end"` // ApplicationEnd, or the last event of a live app
	Live           bool   `json:"live"`
	LastEventTime  int64  `json:"lastEventTime"`
	IntervalMs     int64  `json:"intervalMs"` // 0 with stage borders
	IntervalMode   string `json:"intervalMode"`
	Master         string `json:"master,omitempty"`
	LocalCores     int    `json:"localCores,omitempty"`     // cores counted for the driver in local mode
	CoresEstimated bool   `json:"coresEstimated,omitempty"` // local[*]: cores = most tasks busy at once (localBusy)
	// MaxCores is the most cores available at once: executors alive
	// together (or the local driver's), not an average over an interval.
	MaxCores int `json:"maxCores"`
	// CPUTimeAvailable is false for logs without Executor CPU Time (before
	// Spark 2.1): cpuSeconds and efficiency are then 0, not measured.
	CPUTimeAvailable bool       `json:"cpuTimeAvailable"`
	Intervals        []Interval `json:"intervals"`
	Stages           []Stage    `json:"stages"`
	Executors        []Executor `json:"executors"`
	// ExecutorTaskSums are the tasks on the timeline summed by executor id
	// (TaskSums); not in the JSON, which keeps Spark's executor summaries;
	// nil with Config.NoExecutorTaskSums.
	ExecutorTaskSums map[string]TaskSums `json:"-"`
	Findings         []Finding           `json:"findings"`
	// SQL lists the SQL executions with their operators' metrics.
	SQL []sqlops.Execution `json:"sql"`
	// Streaming lists the Structured Streaming queries, first seen first.
	Streaming []StreamingQuery `json:"streaming"`
	Totals    Totals           `json:"totals"`
	// WhatIf predicts the wall time with other executor counts and gives
	// the critical path; nil when no stage ran.
	WhatIf *WhatIf `json:"whatIf,omitempty"`
	// Jobs lists the jobs, newest first (at most 1000, the oldest finished
	// dropped first); JobCounts counts them all by status.
	Jobs      []Job     `json:"jobs"`
	JobCounts JobCounts `json:"jobCounts"`
	// Energy is the energy and carbon the tasks' CPU time stands for; nil
	// for logs without Executor CPU Time.
	Energy *Energy `json:"energy"`
	// StageRetries lists the stages that ran more than one attempt or hit
	// fetch failures.
	StageRetries []StageRetries `json:"stageRetries"`
	// Driver is the driver JVM's memory and GC, when the log tells them.
	Driver *DriverMemory `json:"driver,omitempty"`
	// UnplacedTasks counts task ends whose times could not be placed on the
	// timeline (no launch time, or a span over a year: maxTaskSpanMs).
	UnplacedTasks int64 `json:"unplacedTasks"`
	// Problems lists the first values the analysis did not take as they
	// were (negative metrics, task ends without a start); ProblemCount
	// counts them all.
	Problems     []Problem `json:"analysisProblems"`
	ProblemCount int64     `json:"analysisProblemCount"`
	// Cost prices the allocation (Config.Cost); nil when cost is off.
	Cost *Cost `json:"cost,omitempty"`
	// Properties are the Spark properties, redacted as Spark redacts them.
	// Shared, never modified: the App replaces the map on an update.
	Properties map[string]string `json:"-"`
}

// Interval is one bar of the efficiency chart.
type Interval struct {
	Start                int64   `json:"start"`
	End                  int64   `json:"end"`
	AvailableCoreSeconds float64 `json:"availableCoreSeconds"`
	CPUSeconds           float64 `json:"cpuSeconds"`
	SerdeSeconds         float64 `json:"serdeSeconds"`
	ShuffleSeconds       float64 `json:"shuffleSeconds"`
	GCSeconds            float64 `json:"gcSeconds"`
	TaskSeconds          float64 `json:"taskSeconds"` // wall time of running tasks (busy core time)
	Efficiency           float64 `json:"efficiency"`
	Stages               []int   `json:"stages"`
	Spill                []Spill `json:"spill"`
	// Settled is true once no task that started before End can still
	// change the interval (always true for a finished application).
	Settled bool `json:"settled"`
}

// Spill is one executor's spill within an interval (bytes, spread by time).
type Spill struct {
	ExecutorID  string  `json:"executorId"`
	MemoryBytes float64 `json:"memoryBytes"`
	DiskBytes   float64 `json:"diskBytes"`
}

// Report builds the snapshot.
func (a *App) Report() Report {
	r, _ := a.ReportContext(context.Background())
	return r
}

// ReportContext is Report stopping early, with ctx's error, once ctx is
// done: it checks between its phases and between the what-if's replays,
// which on a long or big application take seconds.
func (a *App) ReportContext(ctx context.Context) (Report, error) {
	end := a.end
	if !a.ended {
		end = a.lastTime
	}
	start := a.start
	if !a.hasStart && a.firstTime != math.MaxInt64 {
		start = a.firstTime
	}
	r := Report{
		AppID: a.appID, AttemptID: a.attemptID, AppName: a.appName, SparkVersion: a.sparkVersion,
		Start: start, End: end, Live: !a.ended, LastEventTime: a.lastTime,
		IntervalMode: "fixed", Master: a.master, CPUTimeAvailable: a.hasCPUTime,
		Totals: a.totals, UnplacedTasks: a.unplaced,
		Problems: slices.Clone(a.problems), ProblemCount: a.problemCount,
	}
	if r.Problems == nil {
		r.Problems = []Problem{}
	}
	if a.cfg.StageBorders {
		r.IntervalMode = "stages"
	} else {
		r.IntervalMs = a.cfg.Interval.Milliseconds()
	}
	if c, est, ok := a.localDriver(); ok && a.cfg.CPUs <= 0 {
		r.LocalCores, r.CoresEstimated = c, est
	}
	if err := ctx.Err(); err != nil {
		return r, err
	}
	// The what-if replay and the stage rows only read the application (the
	// replay writes its own cache) and the report's times: with a million
	// executors each takes about a second, so they run on another core
	// beside the intervals and the executor rows.
	var (
		wi     *WhatIf
		stages []Stage
		side   sync.WaitGroup
	)
	times := Report{Start: r.Start, End: r.End, LastEventTime: r.LastEventTime, Live: r.Live}
	side.Go(func() {
		wi = a.whatIf(ctx, &times)
		stages = a.reportStages()
	})
	r.Intervals = a.reportIntervals(ctx, start, end)
	for i := range r.Intervals {
		r.Totals.AvailableCoreSecs += r.Intervals[i].AvailableCoreSeconds
	}
	if ctx.Err() == nil {
		r.Executors = a.reportExecutors(max(end-a.start, 0)) // an end before the start (broken clock) is no negative run time
		if !a.cfg.NoExecutorTaskSums {
			r.ExecutorTaskSums = a.reportExecutorTaskSums()
		}
	}
	side.Wait()
	if err := ctx.Err(); err != nil {
		return r, err
	}
	r.Stages = stages
	r.MaxCores = maxCores(&r)
	if a.cfg.CPUs > 0 { // --cpus: the cores counted are that constant, whatever the executors had
		r.MaxCores = a.cfg.CPUs
	}
	r.SQL = a.sql.Executions()
	r.Jobs, r.JobCounts = a.jobLog.report(), a.jobLog.counts
	if a.hasCPUTime { // without task CPU time every core would read idle
		r.Energy = a.energy(&r)
	}
	if err := ctx.Err(); err != nil {
		return r, err
	}
	r.WhatIf = wi
	r.StageRetries = a.stageRetries()
	r.Driver = a.driverMemory()
	r.Streaming = a.streamingReport()
	r.Workload = workloadkey.Of(a.props, a.appName, a.cfg.Workload)
	r.Properties = a.props
	r.Cost = a.cost(&r)
	r.Findings = a.findings(&r)
	r.Findings = append(r.Findings, sqlFindings(r.SQL, a.cfg.SQLThresholds)...)
	return r, ctx.Err()
}

const maxAppSpanMs = 366 * 24 * 3600 * 1000

// ctxCheckIntervals intervals are built between two looks at the context:
// a year of 10 s intervals is 3.2 million of them.
const ctxCheckIntervals = 4096

// coreLives lists the core availability: executors' lives (open ones end
// at end), the local-mode driver, or the --cpus constant.
func (a *App) coreLives(start, end int64) []lifetime {
	if a.cfg.CPUs > 0 {
		return []lifetime{{exec: "cpus", cores: a.cfg.CPUs, from: start, to: end}}
	}
	lives := make([]lifetime, 0, a.lifetimes.len()+1)
	a.executorsVisited += int64(a.lifetimes.len())
	for l := range a.lifetimes.values() {
		if l.from <= 0 || !a.plausible(l.from) { // no timestamp, or a broken clock: assume the application's start
			l.from = start
		}
		if l.open {
			l.to = max(end, l.from)
		}
		lives = append(lives, l)
	}
	if c, _, ok := a.localDriver(); ok {
		lives = append(lives, lifetime{exec: "driver", cores: c, from: start, to: end})
	}
	return lives
}

func (a *App) reportIntervals(ctx context.Context, start, end int64) []Interval {
	if !a.hasStart && a.firstTime == math.MaxInt64 {
		return []Interval{} // no timestamp seen yet: no timeline
	}
	lives := a.coreLives(start, end)
	from, to := start, end
	for _, l := range lives {
		if l.to > l.from {
			from, to = min(from, l.from), max(to, l.to)
		}
	}
	// A bogus executor timestamp must not stretch the timeline: keep to the
	// application's plausible life and to the timeline's window.
	if a.hasStart {
		from = max(from, a.start-clockSlackBeforeMs)
	}
	to = min(to, max(end, start)+clockSlackBeforeMs)
	from = max(from, to-maxAppSpanMs)
	spans := a.timeline.intervals(from, to)
	out := make([]Interval, len(spans))
	settledBefore := int64(math.MaxInt64)
	if !a.ended {
		settledBefore = a.lastTime
		a.running.each(func(rt runningTask) { settledBefore = min(settledBefore, rt.launch) })
	}
	for i, s := range spans {
		if i%ctxCheckIntervals == 0 && ctx.Err() != nil {
			return nil // the caller returns ctx's error
		}
		b := s.b
		iv := Interval{
			Start: s.start, End: s.end,
			CPUSeconds: b.cpu, SerdeSeconds: b.serde, ShuffleSeconds: b.shuffle, GCSeconds: b.gc, TaskSeconds: b.task,
			Stages:  make([]int, len(b.stages)),
			Spill:   make([]Spill, 0, len(b.spill)),
			Settled: s.end <= settledBefore,
		}
		for j, st := range b.stages {
			iv.Stages[j] = int(st)
		}
		for _, sp := range b.spill {
			iv.Spill = append(iv.Spill, Spill{ExecutorID: a.execIDs[sp.exec], MemoryBytes: sp.mem, DiskBytes: sp.disk})
		}
		sortByExecID(iv.Spill, func(x *Spill) string { return x.ExecutorID })
		out[i] = iv
	}
	addAvailability(out, lives)
	for i := range out {
		if out[i].AvailableCoreSeconds > 0 {
			out[i].Efficiency = out[i].CPUSeconds / out[i].AvailableCoreSeconds
		}
	}
	return out
}

// addAvailability adds cores × overlap of every life with every interval.
func addAvailability(ivs []Interval, lives []lifetime) {
	for _, l := range lives {
		if l.to <= l.from || l.cores <= 0 {
			continue
		}
		i, _ := slices.BinarySearchFunc(ivs, l.from, func(iv Interval, t int64) int {
			if iv.End <= t {
				return -1
			}
			return 1
		})
		for ; i < len(ivs) && ivs[i].Start < l.to; i++ {
			lo, hi := max(l.from, ivs[i].Start), min(l.to, ivs[i].End)
			if hi > lo {
				ivs[i].AvailableCoreSeconds += float64(l.cores) * float64(hi-lo) / 1e3
			}
		}
	}
}

// sortByExecID sorts xs by their executor ids in compareExecIDs' order,
// parsing each id once instead of at every comparison (a million
// executors make twenty million comparisons).
func sortByExecID[T any](xs []T, id func(*T) string) {
	// Rows made in executor-index order are mostly in order already (Spark
	// numbers its executors as it adds them): then nothing is copied.
	inOrder := true
	for i := 1; i < len(xs) && inOrder; i++ {
		inOrder = compareExecIDs(id(&xs[i-1]), id(&xs[i])) < 0
	}
	if inOrder {
		return
	}
	// The keys are sorted with each element's index rather than with the
	// element: the sort moves only the small keys (a per-executor row is
	// large), and makes the same moves, so equal ids keep the same order.
	type keyed struct {
		rank int // 0 driver, 1 numeric, 2 other
		num  int
		id   string
		at   int
	}
	ks := make([]keyed, len(xs))
	for i := range xs {
		k := keyed{id: id(&xs[i]), at: i, rank: 2}
		if k.id == "driver" {
			k.rank = 0
		} else if n, err := strconv.Atoi(k.id); err == nil {
			k.rank, k.num = 1, n
		}
		ks[i] = k
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		if a.id == b.id {
			return 0
		}
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.num, b.num), cmp.Compare(a.id, b.id))
	})
	old := slices.Clone(xs)
	for i := range ks {
		xs[i] = old[ks[i].at]
	}
}

// compareExecIDs orders "driver" first, then numeric ids numerically.
func compareExecIDs(x, y string) int {
	if x == y {
		return 0
	}
	if x == "driver" {
		return -1
	}
	if y == "driver" {
		return 1
	}
	nx, ex := strconv.Atoi(x)
	ny, ey := strconv.Atoi(y)
	switch {
	case ex == nil && ey == nil:
		return cmp.Compare(nx, ny)
	case ex == nil:
		return -1
	case ey == nil:
		return 1
	}
	return cmp.Compare(x, y)
}

func (a *App) reportExecutors(appDuration int64) []Executor {
	a.executorsVisited += 2 * int64(a.slots.len())
	n := 0
	for i := range int32(a.slots.len()) {
		if a.slots.at(i).known {
			n++
		}
	}
	out := make([]Executor, 0, n)
	for i := range int32(a.slots.len()) {
		if s := a.slots.at(i); s.known {
			out = append(out, s.ex.summary(appDuration))
		}
	}
	sortByExecID(out, func(x *Executor) string { return x.ID })
	return out
}

// maxCores is the most cores available at once: the executors' cores
// summed over those alive together, the local driver's, and at least the
// highest interval's average (which is what --cpus makes constant).
func maxCores(r *Report) int {
	type step struct {
		t     int64
		cores int
	}
	steps := make([]step, 0, 2*len(r.Executors))
	for _, e := range r.Executors {
		if e.ID == "driver" || e.TotalCores <= 0 {
			continue
		}
		steps = append(steps, step{e.AddTime, e.TotalCores})
		if e.RemoveTime > 0 {
			steps = append(steps, step{max(e.RemoveTime, e.AddTime), -e.TotalCores})
		}
	}
	// Removals before additions at the same instant: a replacement is not
	// counted together with the executor it replaces.
	slices.SortFunc(steps, func(x, y step) int { return cmp.Or(cmp.Compare(x.t, y.t), cmp.Compare(x.cores, y.cores)) })
	best, now := r.LocalCores, 0
	for _, s := range steps {
		now += s.cores
		best = max(best, now)
	}
	for _, iv := range r.Intervals {
		if w := float64(iv.End-iv.Start) / 1e3; w > 0 {
			best = max(best, int(math.Ceil(iv.AvailableCoreSeconds/w-1e-9)))
		}
	}
	return best
}
