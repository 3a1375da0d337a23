package analysis

import (
	"math"
	"strconv"
	"strings"

	"github.com/sparkglance/sparkglance/internal/analysis/sqlops"
	"github.com/sparkglance/sparkglance/internal/sparklog"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
	"github.com/sparkglance/sparkglance/internal/workloadkey"
)

// App analyses one application attempt. Feed it events in log order with
// Add; call Report at any time for a self-contained snapshot. An App is not
// safe for concurrent use: serialise Add and Report (the Report result
// itself shares nothing with the App).
type App struct {
	cfg Config

	appID, attemptID, appName, sparkVersion string
	props                                   map[string]string // redacted Spark properties
	start, end                              int64             // epoch ms; end is 0 until ApplicationEnd
	ended, hasStart                         bool
	firstTime, lastTime                     int64 // earliest and latest timestamp seen in any event

	master      string
	cpusPerTask int
	rpCPUs      map[int]int // resource profile → task CPUs

	// Executors are kept by a dense index per executor id (execIdx): one
	// map from the id, then slices. (A map per concern keyed by the id
	// string made most of the heap a million executors left the collector
	// to scan, and several lookups per task.)
	execIndex execIndex         // executor id → its index
	execIDs   []string          // by index
	slots     chunked[execSlot] // by index
	lifetimes chunked[lifetime] // in chunks: a million executors would copy a growing slice
	openCores int               // Σ cores of the open lifetimes, kept as they open and close
	// executorsVisited counts the executors looked at by walks over every
	// executor (slots or lifetimes) on the calling goroutine, so that
	// tests can check an event costs no such walk (issue 24.11: summing
	// every open executor at every event made the analysis quadratic).
	executorsVisited int64
	driverAdd        bool // an ExecutorAdded for "driver" was seen (local mode, Spark 2.4+)

	stages   map[stageKey]*stage
	attempts map[int][]int // stage id → its attempt ids in stages
	jobs     map[int][]int // job id → stage ids (to mark pending stages skipped at job end)
	jobLog   jobLog        // every job with its times and status, for the job series
	// stagesVisited counts stage attempts looked at by job ends, so that
	// tests can check a job end costs its own stages, not all stages.
	stagesVisited int64

	running    runningTasks // started and not yet ended
	maxRunning int          // most tasks running at once, in event order
	busy       localBusy    // the driver's tasks' busy spans, for local[*]
	driverTask bool         // some task ran on executor "driver"

	timeline   timeline
	unplaced   int64 // task ends without a usable launch/finish
	hasCPUTime bool
	totals     Totals

	sql *sqlops.Model // SQL executions, plans and their accumulators

	deep      deeper          // the what-if replay's and the retry and driver findings' inputs
	streaming *streamingModel // Structured Streaming queries; nil until the first

	pos          sparklog.Position // where the event being added was read (zero when unknown)
	problems     []Problem         // the first maxProblems
	problemCount int64
}

type stageKey struct{ id, attempt int }

type runningTask struct {
	launch int64
	stage  stageKey
}

// lifetime is one executor incarnation's core availability.
type lifetime struct {
	exec     string
	host     string // where a stage's exclusion of a node applies
	cores    int
	from, to int64
	open     bool
}

// timeline is where task values are spread: fixed-width or stage borders.
type timeline interface {
	spread(launch, finish int64, c contrib) // by value: a pointer through the interface put each task's on the heap
	taskStarted(stage int, launch int64)
	taskEnded(stage int, launch, finish int64)
	intervals(from, to int64) []span
}

// span is one reported interval and its accumulated values.
type span struct {
	start, end int64
	b          *bucket
}

// New starts the analysis of one application attempt.
func New(cfg Config) *App {
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultConfig().Interval
	}
	if cfg.ExactQuantileTasks <= 0 {
		cfg.ExactQuantileTasks = DefaultConfig().ExactQuantileTasks
	}
	if cfg.SQLThresholds == (sqlops.Thresholds{}) {
		cfg.SQLThresholds = sqlops.DefaultThresholds()
	}
	a := &App{
		cfg:         cfg,
		cpusPerTask: 1,
		rpCPUs:      map[int]int{},
		stages:      map[stageKey]*stage{},
		attempts:    map[int][]int{},
		jobs:        map[int][]int{},
		firstTime:   math.MaxInt64,
	}
	a.sql = sqlops.NewModel(sqlops.Options{MaxExecutions: cfg.SQLMaxExecutions, MaxPlanNodes: cfg.SQLMaxPlanNodes,
		OnPlanCut: func(id int64, nodes, kept int) {
			a.problem(ProblemPlanTooLarge, "SQL execution %d: plan of %d nodes, only the first %d kept (--sql.max-plan-nodes)", id, nodes, kept)
		},
		OnVersionsDropped: func(id int64, versions, nodes, budget int) {
			a.problem(ProblemPlanTooLarge, "SQL execution %d: %d earlier plan versions (%d nodes) dropped to keep its plans within %d nodes (--sql.max-plan-nodes)", id, versions, nodes, budget)
		}})
	if cfg.StageBorders {
		a.timeline = newBorderTimeline()
	} else {
		a.timeline = newFixedTimeline(cfg.Interval.Milliseconds())
	}
	return a
}

func (a *App) seen(t int64) {
	if t <= 0 || !a.plausible(t) { // 0 means "absent" in most fields
		return
	}
	a.firstTime = min(a.firstTime, t)
	a.lastTime = max(a.lastTime, t)
}

// clockSlackMs is how far a timestamp may stray from the application's
// known life before it is taken for a broken clock (and ignored for the
// timeline): a day before the start, a month after the newest event.
const (
	clockSlackBeforeMs = 24 * 3600 * 1000
	clockSlackAfterMs  = 31 * 24 * 3600 * 1000
)

// plausible tells whether t can belong to this application, judged by
// what is known so far.
func (a *App) plausible(t int64) bool {
	if a.hasStart && t < a.start-clockSlackBeforeMs {
		return false
	}
	newest := max(a.lastTime, a.start)
	return newest <= 0 || t <= newest+clockSlackAfterMs
}

// Add folds one event into the analysis. Unknown event types are ignored.
func (a *App) Add(ev sparkevent.Event) { a.AddAt(sparklog.Position{}, ev) }

// AddAt is Add for an event read at pos, which the problems it causes name.
func (a *App) AddAt(pos sparklog.Position, ev sparkevent.Event) {
	a.pos = pos
	a.observeDeeper(ev)
	switch e := ev.(type) {
	case *sparkevent.LogStart:
		a.sparkVersion = e.SparkVersion
	case *sparkevent.DatabricksMetadata: // Databricks logs have no LogStart
		if a.sparkVersion == "" {
			a.sparkVersion = e.SparkVersion
		}
		a.seen(e.Timestamp)
	case *sparkevent.ApplicationStart:
		a.appID, a.attemptID, a.appName = e.AppID, e.AttemptID, e.AppName
		a.start, a.hasStart = e.Timestamp, true
		a.seen(e.Timestamp)
	case *sparkevent.ApplicationEnd:
		a.end, a.ended = e.Timestamp, true
		a.seen(e.Timestamp)
	case *sparkevent.EnvironmentUpdate:
		a.environment(e)
	case *sparkevent.ResourceProfileAdded:
		if c, ok := e.TaskResources["cpus"]; ok && c >= 1 {
			a.rpCPUs[e.ID] = int(c)
		}
	case *sparkevent.ExecutorAdded:
		a.seen(e.Timestamp)
		a.executorAdded(e)
	case *sparkevent.ExecutorRemoved:
		a.seen(e.Timestamp)
		a.executorRemoved(e)
	case *sparkevent.BlockManagerAdded:
		a.seen(e.Timestamp)
		a.blockManagerAdded(e)
	case *sparkevent.JobStart:
		a.seen(e.SubmissionTime)
		a.jobStart(e)
		a.jobLog.start(e.JobID, e.SubmissionTime, a.jobs[e.JobID])
		a.sql.Add(e)
	case *sparkevent.JobEnd:
		a.seen(e.CompletionTime)
		a.jobLog.end(e.JobID, e.CompletionTime, e.Result)
		a.jobEnd(e)
		a.sql.Add(e)
	case *sparkevent.StageSubmitted:
		a.seen(e.Stage.SubmissionTime)
		a.stageSubmitted(e)
	case *sparkevent.StageCompleted:
		a.seen(e.Stage.CompletionTime)
		a.stageCompleted(e)
	case *sparkevent.TaskStart:
		a.seen(e.Task.LaunchTime)
		a.taskStart(e)
	case *sparkevent.TaskEnd:
		e = a.checkedTaskEnd(e)
		// A finish time far past everything seen so far is still plausible
		// when the task's own launch was and the span is one a task can
		// have: streaming receivers run for the application's whole life.
		launchOK := a.plausible(e.Task.LaunchTime)
		longTask := launchOK && e.Task.FinishTime >= e.Task.LaunchTime && e.Task.FinishTime-e.Task.LaunchTime <= maxTaskSpanMs
		placeable := launchOK && (a.plausible(e.Task.FinishTime) || longTask)
		a.seen(e.Task.LaunchTime)
		if placeable && e.Task.FinishTime > 0 {
			a.lastTime = max(a.lastTime, e.Task.FinishTime)
		} else {
			a.seen(e.Task.FinishTime)
		}
		a.taskEnd(e, placeable)
		a.sql.Add(e)
	case *sparkevent.StageExecutorMetrics:
		if ex := a.executor(e.ExecutorID); ex != nil {
			ex.notePeaks(e.Metrics)
		}
	case *sparkevent.SQLExecutionStart:
		a.seen(e.Time)
		a.sql.Add(e)
	case *sparkevent.SQLExecutionEnd:
		a.seen(e.Time)
		a.sql.Add(e)
	case *sparkevent.SQLAdaptiveExecutionUpdate, *sparkevent.DriverAccumUpdates:
		a.sql.Add(e)
	case *sparkevent.StreamingQueryStarted, *sparkevent.StreamingQueryProgress, *sparkevent.StreamingQueryTerminated:
		a.streamingEvent(e)
	}
}

func (a *App) environment(e *sparkevent.EnvironmentUpdate) {
	a.props = workloadkey.Redact(e.SparkProperties) // a new map: reports may hold the old one
	if m, ok := e.SparkProperties["spark.master"]; ok {
		a.master = m
	}
	if c, err := strconv.Atoi(e.SparkProperties["spark.task.cpus"]); err == nil && c >= 1 {
		a.cpusPerTask = c
	}
	a.streamingEnvironment(e)
}

// localCores parses spark.master: ok is false outside local mode; n is 0
// for local[*] (unknown core count).
func localCores(master string) (n int, ok bool) {
	switch {
	case master == "local":
		return 1, true
	case strings.HasPrefix(master, "local["):
		inner := strings.TrimSuffix(strings.TrimPrefix(master, "local["), "]")
		inner, _, _ = strings.Cut(inner, ",") // local[N, maxFailures]
		if inner == "*" {
			return 0, true
		}
		n, err := strconv.Atoi(strings.TrimSpace(inner))
		if err != nil || n < 1 {
			return 0, true
		}
		return n, true
	}
	return 0, false
}

// execIdx is the executor id's index, given on first sight.
func (a *App) execIdx(id string) int32 {
	if i, ok := a.execIndex.lookup(id); ok {
		return i
	}
	i := a.slots.add(execSlot{openLife: -1})
	a.execIDs = append(a.execIDs, id)
	a.execIndex.add(id, i, len(a.execIDs))
	return i
}

// availableCoresNow is the core count at the current point of the log (for
// the single-core finding).
func (a *App) availableCoresNow() int {
	if a.cfg.CPUs > 0 {
		return a.cfg.CPUs
	}
	n := a.openCores
	if c, _, ok := a.localDriverSoFar(false); ok {
		n += c
	}
	return n
}

// localDriver tells whether the driver runs the tasks itself (local mode
// without an ExecutorAdded for it) and with how many cores: N from
// local[N], else estimated from the tasks' busy spans (localBusy).
func (a *App) localDriver() (cores int, estimated, ok bool) { return a.localDriverSoFar(true) }

// localDriverSoFar is localDriver with, for all false, the estimate from
// the busy spans swept so far (the event-order count before any): cheap
// enough for what is counted at every event.
func (a *App) localDriverSoFar(all bool) (cores int, estimated, ok bool) {
	if a.driverAdd {
		return 0, false, false
	}
	c, local := localCores(a.master)
	if !local && !(a.master == "" && a.driverTask) {
		return 0, false, false
	}
	if c > 0 {
		return c, false, true
	}
	if n, ok := a.busy.cores(all); ok {
		return n, true, true
	}
	return a.maxRunning, true, true
}
