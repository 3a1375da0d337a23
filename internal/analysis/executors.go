package analysis

import (
	"strconv"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// executor mirrors Spark's LiveExecutor: the counters behind the REST API's
// ExecutorSummary.
type executor struct {
	id, hostPort, host string
	isActive           bool
	live               bool // still in Spark's liveExecutors (tasks only count while live)
	totalCores         int
	maxTasks           int
	maxMemory          int64
	addTime            int64
	removeTime         int64
	removeReason       string

	activeTasks, failedTasks, completedTasks, totalTasks int
	totalDuration, totalGC, totalInput                   int64
	totalShuffleRead, totalShuffleWrite                  int64

	peakGC      int64 // peak "TotalGCTime" executor metric
	peakGCKnown bool
}

// execSlot is what is kept per executor id, at the id's index.
type execSlot struct {
	ex       executor // the current incarnation, as Spark's store keeps it, once known
	known    bool     // ex is set: the id was added (ExecutorAdded, BlockManagerAdded)
	hasSums  bool     // sums holds a spread task
	openLife int32    // index of the id's open lifetime in lifetimes; -1 when none
	sums     TaskSums // spread tasks' sums, across re-registrations (never backwards)
}

// executor is the current incarnation of the executor id; nil when the id
// was never added. The pointer is valid until the next new id.
func (a *App) executor(id string) *executor {
	if i, ok := a.execIndex.lookup(id); ok && a.slots.at(i).known {
		return &a.slots.at(i).ex
	}
	return nil
}

// liveExecutor is the executor id while Spark still counts its tasks.
func (a *App) liveExecutor(id string) *executor {
	if ex := a.executor(id); ex != nil && ex.live {
		return ex
	}
	return nil
}

// getOrCreateExecutor follows Spark: a removed executor that comes back is
// a fresh entry that replaces the old one. The pointer is valid until the
// next new id.
func (a *App) getOrCreateExecutor(id string, t int64) *executor {
	s := a.slots.at(a.execIdx(id))
	if s.known && s.ex.live {
		return &s.ex
	}
	s.ex, s.known = executor{id: id, addTime: t, live: true, isActive: true}, true
	return &s.ex
}

func (a *App) executorAdded(e *sparkevent.ExecutorAdded) {
	cores := e.TotalCores
	if cores < 0 {
		a.problem(ProblemNegativeValue, "%s of executor %s: field \"Executor Info.Total Cores\" = %d, counted as 0",
			sparkevent.TypeExecutorAdded, e.ExecutorID, cores)
		cores = 0
	}
	ex := a.getOrCreateExecutor(e.ExecutorID, e.Timestamp)
	ex.host = e.Host
	ex.isActive = true
	ex.totalCores = cores
	cpus := a.cpusPerTask
	if c, ok := a.rpCPUs[e.ResourceProfileID]; ok {
		cpus = c
	}
	ex.maxTasks = cores / max(cpus, 1)

	if e.ExecutorID == "driver" {
		a.driverAdd = true
	}
	s := a.slots.at(a.execIdx(e.ExecutorID))
	if s.openLife >= 0 { // re-registration: close the old life
		a.closeLife(s.openLife, e.Timestamp)
	}
	s.openLife = int32(a.lifetimes.len())
	a.openCores += cores
	a.lifetimes.add(lifetime{exec: e.ExecutorID, host: e.Host, cores: cores, from: e.Timestamp, open: true})
}

func (a *App) executorRemoved(e *sparkevent.ExecutorRemoved) {
	i, ok := a.execIndex.lookup(e.ExecutorID)
	if !ok {
		return
	}
	s := a.slots.at(i)
	if s.known && s.ex.live {
		s.ex.live, s.ex.isActive = false, false
		s.ex.removeTime, s.ex.removeReason = e.Timestamp, e.Reason
	}
	if s.openLife >= 0 {
		a.closeLife(s.openLife, e.Timestamp)
		s.openLife = -1
	}
}

// closeLife ends lifetime i at t and takes its cores off the open sum.
func (a *App) closeLife(i int32, t int64) {
	l := a.lifetimes.at(i)
	l.to, l.open = t, false
	a.openCores -= l.cores
}

func (a *App) blockManagerAdded(e *sparkevent.BlockManagerAdded) {
	ex := a.getOrCreateExecutor(e.ExecutorID, e.Timestamp)
	ex.hostPort = e.Host + ":" + strconv.Itoa(e.Port)
	ex.isActive = true
	ex.maxMemory = e.MaxMem
	if e.MaxMem < 0 {
		a.problem(ProblemNegativeValue, "%s of executor %s: field \"Maximum Memory\" = %d, counted as 0",
			sparkevent.TypeBlockManagerAdded, e.ExecutorID, e.MaxMem)
		ex.maxMemory = 0
	}
}

func (ex *executor) notePeaks(metrics []sparkevent.NamedValue) {
	for _, m := range metrics {
		if m.Name == "TotalGCTime" {
			ex.peakGCKnown = true
			ex.peakGC = max(ex.peakGC, m.Value)
		}
	}
}

// Executor is the subset of the REST API's ExecutorSummary the report
// keeps (the fields its charts and findings use);
// times are epoch ms (0 = absent).
type Executor struct {
	ID                string `json:"id"`
	HostPort          string `json:"hostPort"`
	IsActive          bool   `json:"isActive"`
	TotalCores        int    `json:"totalCores"`
	MaxTasks          int    `json:"maxTasks"`
	ActiveTasks       int    `json:"activeTasks"`
	FailedTasks       int    `json:"failedTasks"`
	CompletedTasks    int    `json:"completedTasks"`
	TotalTasks        int    `json:"totalTasks"`
	TotalDuration     int64  `json:"totalDuration"`
	TotalGCTime       int64  `json:"totalGCTime"`
	TotalInputBytes   int64  `json:"totalInputBytes"`
	TotalShuffleRead  int64  `json:"totalShuffleRead"`
	TotalShuffleWrite int64  `json:"totalShuffleWrite"`
	MaxMemory         int64  `json:"maxMemory"`
	AddTime           int64  `json:"addTime"`
	RemoveTime        int64  `json:"removeTime,omitempty"`
	RemoveReason      string `json:"removeReason,omitempty"`
}

// summary applies the REST layer's driver rules (AppStatusStore.replaceExec):
// the driver's totalDuration is the application's run time and its
// totalGCTime is its peak TotalGCTime metric (0 when none is known).
func (ex *executor) summary(appDuration int64) Executor {
	out := Executor{
		ID: ex.id, HostPort: ex.hostPort, IsActive: ex.isActive,
		TotalCores: ex.totalCores, MaxTasks: ex.maxTasks,
		ActiveTasks: ex.activeTasks, FailedTasks: ex.failedTasks,
		CompletedTasks: ex.completedTasks, TotalTasks: ex.totalTasks,
		TotalDuration: ex.totalDuration, TotalGCTime: ex.totalGC,
		TotalInputBytes: ex.totalInput, TotalShuffleRead: ex.totalShuffleRead,
		TotalShuffleWrite: ex.totalShuffleWrite, MaxMemory: ex.maxMemory,
		AddTime: ex.addTime, RemoveTime: ex.removeTime, RemoveReason: ex.removeReason,
	}
	if out.HostPort == "" {
		out.HostPort = ex.host
	}
	if ex.id == "driver" {
		out.TotalDuration = appDuration
		out.TotalGCTime = ex.peakGC
	}
	return out
}
