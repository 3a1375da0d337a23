package analysis

import (
	"cmp"
	"math"
	"slices"
)

// Stage is one stage attempt with the REST API's StageData field names and
// units (times in epoch ms, 0 = absent), plus per-executor summaries and
// task-duration quantiles of the successful tasks.
type Stage struct {
	StageID                    int    `json:"stageId"`
	AttemptID                  int    `json:"attemptId"`
	Name                       string `json:"name"`
	Status                     string `json:"status"`
	NumTasks                   int    `json:"numTasks"`
	NumActiveTasks             int    `json:"numActiveTasks"`
	NumCompleteTasks           int    `json:"numCompleteTasks"`
	NumFailedTasks             int    `json:"numFailedTasks"`
	NumKilledTasks             int    `json:"numKilledTasks"`
	ExecutorRunTime            int64  `json:"executorRunTime"`
	ExecutorCPUTime            int64  `json:"executorCpuTime"`
	ExecutorDeserializeTime    int64  `json:"executorDeserializeTime"`
	ExecutorDeserializeCPUTime int64  `json:"executorDeserializeCpuTime"`
	ResultSize                 int64  `json:"resultSize"`
	JVMGCTime                  int64  `json:"jvmGcTime"`
	ResultSerializationTime    int64  `json:"resultSerializationTime"`
	MemoryBytesSpilled         int64  `json:"memoryBytesSpilled"`
	DiskBytesSpilled           int64  `json:"diskBytesSpilled"`
	PeakExecutionMemory        int64  `json:"peakExecutionMemory"`
	InputBytes                 int64  `json:"inputBytes"`
	InputRecords               int64  `json:"inputRecords"`
	OutputBytes                int64  `json:"outputBytes"`
	OutputRecords              int64  `json:"outputRecords"`
	ShuffleFetchWaitTime       int64  `json:"shuffleFetchWaitTime"`
	ShuffleRemoteBytesRead     int64  `json:"shuffleRemoteBytesRead"`
	ShuffleLocalBytesRead      int64  `json:"shuffleLocalBytesRead"`
	ShuffleReadBytes           int64  `json:"shuffleReadBytes"`
	ShuffleReadRecords         int64  `json:"shuffleReadRecords"`
	ShuffleWriteBytes          int64  `json:"shuffleWriteBytes"`
	ShuffleWriteTime           int64  `json:"shuffleWriteTime"`
	ShuffleWriteRecords        int64  `json:"shuffleWriteRecords"`
	SubmissionTime             int64  `json:"submissionTime,omitempty"`
	FirstTaskLaunchedTime      int64  `json:"firstTaskLaunchedTime,omitempty"`
	CompletionTime             int64  `json:"completionTime,omitempty"`
	FailureReason              string `json:"failureReason,omitempty"`

	TaskDurations   *Quantiles                      `json:"taskDurations,omitempty"`
	SingleTaskMs    int64                           `json:"singleTaskMs"` // time with exactly one task running (enough cores available)
	ExecutorSummary map[string]ExecutorStageSummary `json:"executorSummary"`
}

// ExecutorStageSummary is the REST API's ExecutorStageSummary subset plus
// task-duration quantiles.
type ExecutorStageSummary struct {
	TaskTime            int64      `json:"taskTime"`
	FailedTasks         int        `json:"failedTasks"`
	SucceededTasks      int        `json:"succeededTasks"`
	KilledTasks         int        `json:"killedTasks"`
	InputBytes          int64      `json:"inputBytes"`
	InputRecords        int64      `json:"inputRecords"`
	OutputBytes         int64      `json:"outputBytes"`
	OutputRecords       int64      `json:"outputRecords"`
	ShuffleRead         int64      `json:"shuffleRead"`
	ShuffleReadRecords  int64      `json:"shuffleReadRecords"`
	ShuffleWrite        int64      `json:"shuffleWrite"`
	ShuffleWriteRecords int64      `json:"shuffleWriteRecords"`
	MemoryBytesSpilled  int64      `json:"memoryBytesSpilled"`
	DiskBytesSpilled    int64      `json:"diskBytesSpilled"`
	TaskDurations       *Quantiles `json:"taskDurations,omitempty"`
	// ExecutorCPUTime (ns) is not in Spark's summary: the live exporter
	// divides an executor's measured energy among its stages by it.
	ExecutorCPUTime int64 `json:"executorCpuTime"`
}

func (a *App) reportStages() []Stage {
	out := make([]Stage, 0, len(a.stages))
	for _, st := range a.stages {
		if st.known {
			out = append(out, st.report(a.execIDs))
		}
	}
	slices.SortFunc(out, func(x, y Stage) int {
		return cmp.Or(cmp.Compare(x.StageID, y.StageID), cmp.Compare(x.AttemptID, y.AttemptID))
	})
	return out
}

// report is the stage attempt's Stage; execIDs names the executors by
// index.
func (st *stage) report(execIDs []string) Stage {
	m := &st.m
	s := Stage{
		StageID: st.key.id, AttemptID: st.key.attempt, Name: st.name, Status: st.status,
		NumTasks: st.numTasks, NumActiveTasks: st.active, NumCompleteTasks: st.complete,
		NumFailedTasks: st.failed, NumKilledTasks: st.killed,
		ExecutorRunTime: m.runTime, ExecutorCPUTime: m.cpuTime,
		ExecutorDeserializeTime: m.deserTime, ExecutorDeserializeCPUTime: m.deserCPUTime,
		ResultSize: m.resultSize, JVMGCTime: m.gcTime, ResultSerializationTime: m.resultSerTime,
		MemoryBytesSpilled: m.memSpilled, DiskBytesSpilled: m.diskSpilled, PeakExecutionMemory: m.peakExecMem,
		InputBytes: m.inBytes, InputRecords: m.inRecords, OutputBytes: m.outBytes, OutputRecords: m.outRecords,
		ShuffleFetchWaitTime: m.fetchWait, ShuffleRemoteBytesRead: m.remoteBytes, ShuffleLocalBytesRead: m.localBytes,
		ShuffleReadBytes: m.remoteBytes + m.localBytes, ShuffleReadRecords: m.readRecords,
		ShuffleWriteBytes: m.writeBytes, ShuffleWriteTime: m.writeTime, ShuffleWriteRecords: m.writeRecords,
		SubmissionTime: st.submission, CompletionTime: st.completion, FailureReason: st.failureReason,
		SingleTaskMs:    st.singleCoreMs,
		ExecutorSummary: make(map[string]ExecutorStageSummary, st.execs.len()),
	}
	if st.firstLaunch != math.MaxInt64 {
		s.FirstTaskLaunchedTime = st.firstLaunch
	}
	if q, ok := st.durations.summary(); ok {
		s.TaskDurations = &q
	}
	quantiles := make([]Quantiles, st.execs.len()) // one allocation, not one per executor
	for i := range int32(st.execs.len()) {
		es := st.execs.at(i)
		em := &es.m
		e := ExecutorStageSummary{
			TaskTime: es.taskTime, FailedTasks: int(es.failed), SucceededTasks: int(es.succeeded), KilledTasks: int(es.killed),
			InputBytes: em.inBytes, InputRecords: em.inRecords, OutputBytes: em.outBytes, OutputRecords: em.outRecords,
			ShuffleRead: em.shuffleRead, ShuffleReadRecords: em.readRecords,
			ShuffleWrite: em.writeBytes, ShuffleWriteRecords: em.writeRecords,
			MemoryBytesSpilled: em.memSpilled, DiskBytesSpilled: em.diskSpilled,
			ExecutorCPUTime: em.cpuTime,
		}
		if q, ok := es.durations.summary(); ok {
			quantiles[i] = q
			e.TaskDurations = &quantiles[i]
		}
		s.ExecutorSummary[execIDs[es.exec]] = e
	}
	return s
}
