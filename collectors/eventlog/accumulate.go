package eventlog

import (
	"github.com/sparkglance/sparkglance/internal/sparklog"
)

// Task-time categories of spark_executor_task_time_seconds_total, in
// output order.
var taskTimeCategories = [...]string{"cpu", "shuffle", "serde", "gc", "run"}

// execTotals are one executor id's counters, summed over every ended task
// the executor ran (across re-registrations, so they never go backwards).
type execTotals struct {
	taskTime                  [len(taskTimeCategories)]float64 // seconds
	memSpill, diskSpill       float64
	shuffleRead, shuffleWrite float64
	input, output             float64
}

// maxTaskSpanMs matches the analysis: longer tasks are clock trouble.
const maxTaskSpanMs = 31 * 24 * 3600 * 1000

// addTask adds one ended task with the analysis' own definitions and
// choice of tasks (collectors/analysis: taskEnd, spreadTask), so that the
// sums over executors equal the analysis totals. Resubmitted ends repeat
// an earlier success's metrics and are skipped, as there.
func (t *execTotals) addTask(e *sparklog.TaskEnd) {
	if e.Reason.Reason == "Resubmitted" || e.Task.LaunchTime <= 0 || e.Task.FinishTime-e.Task.LaunchTime > maxTaskSpanMs {
		return
	}
	if finish, launch := e.Task.FinishTime, e.Task.LaunchTime; finish > launch {
		t.taskTime[4] += float64(finish-launch) / 1e3
	}
	m := e.Metrics
	if m == nil {
		return
	}
	t.taskTime[0] += nonNeg(m.ExecutorCPUTime) / 1e9
	t.taskTime[1] += nonNeg(m.ShuffleRead.FetchWaitTime)/1e3 + nonNeg(m.ShuffleWrite.WriteTime)/1e9
	t.taskTime[2] += nonNeg(m.ExecutorDeserializeCPUTime)/1e9 + nonNeg(m.ResultSerializationTime)/1e3
	t.taskTime[3] += nonNeg(m.JVMGCTime) / 1e3
	t.memSpill += nonNeg(m.MemoryBytesSpilled)
	t.diskSpill += nonNeg(m.DiskBytesSpilled)
	t.shuffleRead += nonNeg(m.ShuffleRead.RemoteBytesRead) + nonNeg(m.ShuffleRead.LocalBytesRead)
	t.shuffleWrite += nonNeg(m.ShuffleWrite.BytesWritten)
	t.input += nonNeg(m.Input.BytesRead)
	t.output += nonNeg(m.Output.BytesWritten)
}

// nonNeg drops negative values (damaged logs): counters must not go back.
func nonNeg(v int64) float64 { return float64(max(v, 0)) }
