package analysis

import (
	"math"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// Spark's stage statuses.
const (
	StatusPending  = "PENDING"
	StatusActive   = "ACTIVE"
	StatusComplete = "COMPLETE"
	StatusFailed   = "FAILED"
	StatusSkipped  = "SKIPPED"
)

// stage mirrors Spark's LiveStage for one stage attempt, plus what the
// findings need.
type stage struct {
	key           stageKey
	known         bool // created by JobStart/StageSubmitted, as Spark's store would list it
	live          bool // still in Spark's liveStages: task events count only while live
	name          string
	numTasks      int
	submission    int64
	completion    int64
	failureReason string
	status        string

	active, complete, failed, killed int
	firstLaunch                      int64
	m                                metricSums
	execs                            chunked[execStage] // by first task end
	execAt                           execPlaces         // executor index → its entry in execs
	durations                        durationQuantiles

	// Single-core detection, in log order.
	runningNow   int
	lastChange   int64
	singleCoreMs int64
}

// metricSums are the task-metric sums of Spark's StageData, in Spark's units.
type metricSums struct {
	runTime, cpuTime, deserTime, deserCPUTime, resultSize, gcTime, resultSerTime         int64
	memSpilled, diskSpilled, peakExecMem, inBytes, inRecords, outBytes, outRecords       int64
	fetchWait, remoteBytes, localBytes, readRecords, writeBytes, writeTime, writeRecords int64
}

func (m *metricSums) add(t *sparkevent.TaskMetrics) {
	m.runTime += t.ExecutorRunTime
	m.cpuTime += t.ExecutorCPUTime
	m.deserTime += t.ExecutorDeserializeTime
	m.deserCPUTime += t.ExecutorDeserializeCPUTime
	m.resultSize += t.ResultSize
	m.gcTime += t.JVMGCTime
	m.resultSerTime += t.ResultSerializationTime
	m.memSpilled += t.MemoryBytesSpilled
	m.diskSpilled += t.DiskBytesSpilled
	m.peakExecMem += t.PeakExecutionMemory
	m.inBytes += t.Input.BytesRead
	m.inRecords += t.Input.RecordsRead
	m.outBytes += t.Output.BytesWritten
	m.outRecords += t.Output.RecordsWritten
	m.fetchWait += t.ShuffleRead.FetchWaitTime
	m.remoteBytes += t.ShuffleRead.RemoteBytesRead
	m.localBytes += t.ShuffleRead.LocalBytesRead
	m.readRecords += t.ShuffleRead.TotalRecordsRead
	m.writeBytes += t.ShuffleWrite.BytesWritten
	m.writeTime += t.ShuffleWrite.WriteTime
	m.writeRecords += t.ShuffleWrite.RecordsWritten
}

// execStage mirrors Spark's LiveExecutorStageSummary plus duration quantiles.
type execStage struct {
	exec                      int32 // the executor's index
	succeeded, failed, killed int32
	taskTime                  int64
	m                         execStageSums
	durations                 durationQuantiles
}

// execStageSums are the task-metric sums an executor's stage summary
// reports, in Spark's units.
type execStageSums struct {
	cpuTime, inBytes, inRecords, outBytes, outRecords  int64
	shuffleRead, readRecords, writeBytes, writeRecords int64
	memSpilled, diskSpilled                            int64
}

func (m *execStageSums) add(t *sparkevent.TaskMetrics) {
	m.cpuTime += t.ExecutorCPUTime
	m.inBytes += t.Input.BytesRead
	m.inRecords += t.Input.RecordsRead
	m.outBytes += t.Output.BytesWritten
	m.outRecords += t.Output.RecordsWritten
	m.shuffleRead += t.ShuffleRead.RemoteBytesRead + t.ShuffleRead.LocalBytesRead
	m.readRecords += t.ShuffleRead.TotalRecordsRead
	m.writeBytes += t.ShuffleWrite.BytesWritten
	m.writeRecords += t.ShuffleWrite.RecordsWritten
	m.memSpilled += t.MemoryBytesSpilled
	m.diskSpilled += t.DiskBytesSpilled
}

const execStageExactDurations = 1024

// maxTaskSpanMs is the longest a task may run before its times are taken
// for a broken clock: a year, since a streaming receiver's task lasts as
// long as its application.
const maxTaskSpanMs = 366 * 24 * 3600 * 1000

// getOrCreateStage follows Spark: a stage no longer live (completed and
// flushed) that is referenced again starts afresh.
func (a *App) getOrCreateStage(info *sparkevent.StageInfo) *stage {
	k := stageKey{info.StageID, info.AttemptID}
	st := a.stages[k]
	if st == nil || !st.live || !st.known {
		fresh := a.newStage(k)
		if st != nil && !st.known { // keep the log-order bookkeeping of tasks seen before
			fresh.runningNow, fresh.lastChange, fresh.singleCoreMs = st.runningNow, st.lastChange, st.singleCoreMs
		}
		st = fresh
		a.putStage(k, st)
	}
	st.known = true
	st.name, st.numTasks = info.Name, info.NumTasks
	st.submission, st.completion, st.failureReason = info.SubmissionTime, info.CompletionTime, info.FailureReason
	return st
}

func (a *App) newStage(k stageKey) *stage {
	return &stage{
		key: k, live: true, status: StatusPending, firstLaunch: math.MaxInt64,
		durations: durationQuantiles{limit: a.cfg.ExactQuantileTasks},
	}
}

// stageFor returns the stage for task bookkeeping, creating an unlisted one
// when the log never announced it.
func (a *App) stageFor(k stageKey) *stage {
	st := a.stages[k]
	if st == nil {
		st = a.newStage(k)
		st.live = false
		a.putStage(k, st)
	}
	return st
}

func (a *App) jobStart(e *sparkevent.JobStart) {
	ids := make([]int, 0, len(e.StageInfos))
	for i := range e.StageInfos {
		a.getOrCreateStage(&e.StageInfos[i])
		ids = append(ids, e.StageInfos[i].StageID)
	}
	if len(ids) == 0 {
		ids = append(ids, e.StageIDs...)
	}
	a.jobs[e.JobID] = ids
}

// jobEnd marks the job's stages still pending as skipped. It visits only
// the attempts of the job's own stages: a long-running application piles up
// stages, and scanning them all at every job end made it quadratic.
func (a *App) jobEnd(e *sparkevent.JobEnd) {
	ids, ok := a.jobs[e.JobID]
	if !ok {
		return
	}
	delete(a.jobs, e.JobID)
	for _, id := range ids {
		for _, att := range a.attempts[id] {
			a.stagesVisited++
			st := a.stages[stageKey{id, att}]
			if st.live && st.known && st.status == StatusPending {
				st.status, st.live = StatusSkipped, false
			}
		}
	}
}

// putStage stores a stage attempt, indexing a new one under its stage id.
func (a *App) putStage(k stageKey, st *stage) {
	if _, ok := a.stages[k]; !ok {
		a.attempts[k.id] = append(a.attempts[k.id], k.attempt)
	}
	a.stages[k] = st
}

func (a *App) stageSubmitted(e *sparkevent.StageSubmitted) {
	st := a.getOrCreateStage(&e.Stage)
	st.status = StatusActive
}

func (a *App) stageCompleted(e *sparkevent.StageCompleted) {
	st := a.stages[stageKey{e.Stage.StageID, e.Stage.AttemptID}]
	if st == nil || !st.live || !st.known {
		return
	}
	st.name, st.numTasks = e.Stage.Name, e.Stage.NumTasks
	st.submission, st.completion, st.failureReason = e.Stage.SubmissionTime, e.Stage.CompletionTime, e.Stage.FailureReason
	switch {
	case e.Stage.FailureReason != "":
		st.status = StatusFailed
	case e.Stage.SubmissionTime != 0:
		st.status = StatusComplete
	default:
		st.status = StatusSkipped
	}
	if st.active == 0 {
		st.live = false
	}
}

func (a *App) taskStart(e *sparkevent.TaskStart) {
	k := stageKey{e.StageID, e.StageAttemptID}
	t := &e.Task
	a.running.put(t.TaskID, runningTask{launch: t.LaunchTime, stage: k})
	a.maxRunning = max(a.maxRunning, a.running.len())
	if t.ExecutorID == "driver" {
		a.driverTask = true
		if !a.driverAdd && t.LaunchTime > 0 && a.plausible(t.LaunchTime) {
			a.busy.started(t.TaskID, t.LaunchTime)
		}
	}
	if st := a.stages[k]; st != nil && st.live && st.known {
		st.active++
		st.firstLaunch = min(st.firstLaunch, t.LaunchTime)
	}
	if ex := a.liveExecutor(t.ExecutorID); ex != nil {
		ex.activeTasks++
		ex.totalTasks++
	}
	a.noteRunning(a.stageFor(k), t.LaunchTime, +1)
	a.timeline.taskStarted(e.StageID, t.LaunchTime)
}

// noteRunning accumulates the time a stage ran exactly one task while
// enough cores were available, then applies the change in running tasks.
func (a *App) noteRunning(st *stage, t int64, delta int) {
	if st.runningNow == 1 && t > st.lastChange && a.availableCoresNow() >= a.cfg.Thresholds.SingleCoreMinCores {
		st.singleCoreMs += t - st.lastChange
	}
	st.runningNow = max(st.runningNow+delta, 0)
	st.lastChange = max(st.lastChange, t)
}

// taskEnd folds a task's end into stages, executors and, when placeable
// (its times fit the application's clock), the timeline.
func (a *App) taskEnd(e *sparkevent.TaskEnd, placeable bool) {
	k := stageKey{e.StageID, e.StageAttemptID}
	t := &e.Task
	_, wasRunning := a.running.get(t.TaskID)
	a.running.del(t.TaskID)
	if t.ExecutorID == "driver" {
		a.driverTask = true
		if !a.driverAdd && e.Reason.Reason != "Resubmitted" {
			a.busyEnded(e, placeable)
		}
	}
	// A Resubmitted end repeats a task that already ended, without a new
	// TaskStart; any other end needs its start to be taken off the active
	// counts, which never go below zero.
	if !wasRunning && e.Reason.Reason != "Resubmitted" {
		a.problem(ProblemEndWithoutStart, "%s of task %d (stage %d.%d, executor %s) without its TaskStart: not counted as active",
			sparkevent.TypeTaskEnd, t.TaskID, e.StageID, e.StageAttemptID, t.ExecutorID)
	}
	var duration int64
	if t.FinishTime != 0 {
		duration = t.FinishTime - t.LaunchTime
	}
	if duration < 0 {
		a.problem(ProblemNegativeValue, "%s of task %d (stage %d.%d): \"Finish Time\" %d is before \"Launch Time\" %d, duration counted as 0",
			sparkevent.TypeTaskEnd, t.TaskID, e.StageID, e.StageAttemptID, t.FinishTime, t.LaunchTime)
		duration = 0
	}
	completed, failed, killed := 0, 0, 0
	switch e.Reason.Reason {
	case "Success":
		completed = 1
	case "TaskKilled", "TaskCommitDenied":
		killed = 1
	default:
		failed = 1
	}
	withMetrics := wasRunning && e.Metrics != nil // Spark adds metrics only for tasks it saw start

	exec := a.execIdx(t.ExecutorID)
	if st := a.stages[k]; st != nil && st.live && st.known {
		a.stageTaskEnd(st, e, exec, duration, completed, failed, killed, wasRunning, withMetrics)
	}
	if s := a.slots.at(exec); s.known && s.ex.live {
		ex := &s.ex
		if wasRunning && ex.activeTasks > 0 {
			ex.activeTasks--
		}
		ex.completedTasks += completed
		ex.failedTasks += failed
		ex.totalDuration += duration
		if e.Reason.Reason != "Resubmitted" && e.Metrics != nil {
			ex.totalGC += e.Metrics.JVMGCTime
			ex.totalInput += e.Metrics.Input.BytesRead
			ex.totalShuffleRead += e.Metrics.ShuffleRead.LocalBytesRead + e.Metrics.ShuffleRead.RemoteBytesRead
			ex.totalShuffleWrite += e.Metrics.ShuffleWrite.BytesWritten
		}
		ex.notePeaks(e.ExecutorMetrics)
	}
	if wasRunning {
		a.noteRunning(a.stageFor(k), t.FinishTime, -1)
	}
	// A Resubmitted end repeats a task that already ended: its time and
	// metrics were counted then.
	// Launch Time 0 means absent, and a span of months or times far from
	// the application's own mean a broken clock: such tasks cannot be
	// placed on the timeline.
	if e.Reason.Reason != "Resubmitted" {
		if placeable && t.LaunchTime > 0 && t.FinishTime-t.LaunchTime <= maxTaskSpanMs {
			a.spreadTask(e, exec)
		} else {
			a.unplaced++
		}
	}
}

// busyEnded folds a driver task's end into the local[*] core estimate: busy
// from its launch for its deserialisation, run and result serialisation,
// never past its finish; without metrics until its finish.
func (a *App) busyEnded(e *sparkevent.TaskEnd, placeable bool) {
	t := &e.Task
	end, measured := t.LaunchTime, e.Metrics != nil
	switch {
	case !placeable || t.LaunchTime <= 0:
	case measured:
		m := e.Metrics
		end += max(m.ExecutorDeserializeTime, 0) + max(m.ExecutorRunTime, 0) + max(m.ResultSerializationTime, 0)
		if t.FinishTime >= t.LaunchTime {
			end = min(end, t.FinishTime)
		}
		end = min(end, t.LaunchTime+maxTaskSpanMs)
	case t.FinishTime > t.LaunchTime && t.FinishTime-t.LaunchTime <= maxTaskSpanMs:
		end = t.FinishTime
	}
	a.busy.ended(t.TaskID, t.LaunchTime, end, measured)
}

func (a *App) stageTaskEnd(st *stage, e *sparkevent.TaskEnd, exec int32, duration int64, completed, failed, killed int, wasRunning, withMetrics bool) {
	if withMetrics {
		st.m.add(e.Metrics)
	}
	if wasRunning && st.active > 0 {
		st.active--
	}
	st.complete += completed
	st.failed += failed
	st.killed += killed
	at, ok := st.execAt.get(exec)
	if !ok {
		at = st.execs.add(execStage{exec: exec, durations: durationQuantiles{limit: execStageExactDurations}})
		st.execAt.put(exec, at)
	}
	es := st.execs.at(at)
	es.taskTime += duration
	es.succeeded += int32(completed)
	es.failed += int32(failed)
	es.killed += int32(killed)
	if withMetrics {
		es.m.add(e.Metrics)
	}
	if completed == 1 { // Spark's task summaries cover successful tasks only
		st.durations.add(duration)
		es.durations.add(duration)
	}
	if st.active == 0 && (st.status == StatusComplete || st.status == StatusFailed) {
		st.live = false
	}
}
