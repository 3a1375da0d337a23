package analysis

import "github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"

// The task-time categories, as indexes of TaskSums.Time and in the order
// of TaskTimeCategories.
const (
	TaskTimeCPU = iota
	TaskTimeShuffle
	TaskTimeSerde
	TaskTimeGC
	TaskTimeRun
)

// TaskTimeCategories are the label values of the task-time categories, by
// index.
var TaskTimeCategories = [...]string{"cpu", "shuffle", "serde", "gc", "run"}

// TaskSums are ended tasks' values summed by category. They are the one
// definition of what a task contributes and of which tasks count: the
// timeline's intervals, the totals, the per-executor sums of the report
// (and through them the event-log collector's executor series and its
// cardinality budget) are all made from taskSumsOf.
type TaskSums struct {
	Time                      [len(TaskTimeCategories)]float64 // seconds; run is launch to finish
	MemorySpill, DiskSpill    float64                          // bytes
	ShuffleRead, ShuffleWrite float64                          // bytes
	Input, Output             float64                          // bytes
}

// Add sums o into s.
func (s *TaskSums) Add(o *TaskSums) {
	for i := range s.Time {
		s.Time[i] += o.Time[i]
	}
	s.MemorySpill += o.MemorySpill
	s.DiskSpill += o.DiskSpill
	s.ShuffleRead += o.ShuffleRead
	s.ShuffleWrite += o.ShuffleWrite
	s.Input += o.Input
	s.Output += o.Output
}

// taskSumsOf is what one ended task adds, from launch to finish (finish
// not before launch) and its metrics (which checkedTaskEnd made
// non-negative).
func taskSumsOf(launch, finish int64, m *sparkevent.TaskMetrics) TaskSums {
	var s TaskSums
	s.Time[TaskTimeRun] = float64(finish-launch) / 1e3
	if m == nil {
		return s
	}
	s.setMetrics(m)
	return s
}

// setMetrics sets the categories and bytes that task metrics give.
func (s *TaskSums) setMetrics(m *sparkevent.TaskMetrics) {
	s.Time[TaskTimeCPU] = float64(m.ExecutorCPUTime) / 1e9
	s.Time[TaskTimeShuffle] = float64(m.ShuffleRead.FetchWaitTime)/1e3 + float64(m.ShuffleWrite.WriteTime)/1e9
	s.Time[TaskTimeSerde] = float64(m.ExecutorDeserializeCPUTime)/1e9 + float64(m.ResultSerializationTime)/1e3
	s.Time[TaskTimeGC] = float64(m.JVMGCTime) / 1e3
	s.MemorySpill = float64(m.MemoryBytesSpilled)
	s.DiskSpill = float64(m.DiskBytesSpilled)
	s.ShuffleRead = float64(m.ShuffleRead.RemoteBytesRead) + float64(m.ShuffleRead.LocalBytesRead)
	s.ShuffleWrite = float64(m.ShuffleWrite.BytesWritten)
	s.Input = float64(m.Input.BytesRead)
	s.Output = float64(m.Output.BytesWritten)
}

// TaskSums are the stage attempt's task metrics by category, from Spark's
// stage sums; its run time is Spark's executorRunTime, the time the tasks'
// code ran, not launch to finish.
func (st *Stage) TaskSums() TaskSums {
	var s TaskSums
	s.setMetrics(&sparkevent.TaskMetrics{
		ExecutorCPUTime: st.ExecutorCPUTime, ExecutorDeserializeCPUTime: st.ExecutorDeserializeCPUTime,
		ResultSerializationTime: st.ResultSerializationTime, JVMGCTime: st.JVMGCTime,
		MemoryBytesSpilled: st.MemoryBytesSpilled, DiskBytesSpilled: st.DiskBytesSpilled,
		ShuffleRead:  sparkevent.ShuffleReadMetrics{FetchWaitTime: st.ShuffleFetchWaitTime, RemoteBytesRead: st.ShuffleReadBytes},
		ShuffleWrite: sparkevent.ShuffleWriteMetrics{WriteTime: st.ShuffleWriteTime, BytesWritten: st.ShuffleWriteBytes},
		Input:        sparkevent.InputMetrics{BytesRead: st.InputBytes},
		Output:       sparkevent.OutputMetrics{BytesWritten: st.OutputBytes},
	})
	s.Time[TaskTimeRun] = float64(st.ExecutorRunTime) / 1e3
	return s
}

// addExecutorTask adds a spread task's sums to its executor's (by the
// executor id's index, across re-registrations, so they never go
// backwards).
func (a *App) addExecutorTask(exec int32, s *TaskSums) {
	slot := a.slots.at(exec)
	slot.hasSums = true
	slot.sums.Add(s)
}

// reportExecutorTaskSums copies the per-executor sums for a report: every
// executor id with a task on the timeline.
func (a *App) reportExecutorTaskSums() map[string]TaskSums {
	a.executorsVisited += 2 * int64(a.slots.len())
	n := 0
	for i := range int32(a.slots.len()) {
		if a.slots.at(i).hasSums {
			n++
		}
	}
	out := make(map[string]TaskSums, n)
	for i := range int32(a.slots.len()) {
		if s := a.slots.at(i); s.hasSums {
			out[a.execIDs[i]] = s.sums
		}
	}
	return out
}
