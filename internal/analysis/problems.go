package analysis

import (
	"fmt"
	"strings"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// ProblemKind classifies what the analysis could not take at face value.
type ProblemKind string

const (
	// ProblemNegativeValue: a metric or core count that cannot be negative
	// was; it is counted as 0.
	ProblemNegativeValue ProblemKind = "negative-value"
	// ProblemEndWithoutStart: a TaskEnd for a task whose TaskStart was never
	// seen; active task counts are not decremented for it.
	ProblemEndWithoutStart ProblemKind = "task-end-without-start"
	// ProblemPlanTooLarge: a SQL plan had more nodes than
	// Config.SQLMaxPlanNodes; the rest were dropped.
	ProblemPlanTooLarge ProblemKind = "plan-too-large"
)

// maxProblems bounds Report.Problems; Report.ProblemCount counts them all.
const maxProblems = 100

// Problem is one event value the analysis did not take as it was: where it
// was read (when known), and what was done about it.
type Problem struct {
	File   string      `json:"file,omitempty"`
	Line   int64       `json:"line,omitempty"`
	Kind   ProblemKind `json:"kind"`
	Reason string      `json:"reason"`
}

// String renders the problem like a compiler message: file:line: reason.
func (p Problem) String() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(p.File)
		if p.Line > 0 {
			fmt.Fprintf(&b, ":%d", p.Line)
		}
		b.WriteString(": ")
	} else if p.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", p.Line)
	}
	fmt.Fprintf(&b, "%s: %s", p.Kind, p.Reason)
	return b.String()
}

func (a *App) problem(kind ProblemKind, format string, args ...any) {
	a.problemCount++
	if len(a.problems) < maxProblems {
		a.problems = append(a.problems, Problem{File: a.pos.File, Line: a.pos.Line, Kind: kind, Reason: fmt.Sprintf(format, args...)})
	}
}

// taskMetricFields visits every TaskMetrics counter with its name in the
// event log, so that none is forgotten when checking them.
func taskMetricFields(m *sparkevent.TaskMetrics, visit func(name string, v *int64)) {
	visit("Executor Deserialize Time", &m.ExecutorDeserializeTime)
	visit("Executor Deserialize CPU Time", &m.ExecutorDeserializeCPUTime)
	visit("Executor Run Time", &m.ExecutorRunTime)
	visit("Executor CPU Time", &m.ExecutorCPUTime)
	visit("Peak Execution Memory", &m.PeakExecutionMemory)
	visit("Result Size", &m.ResultSize)
	visit("JVM GC Time", &m.JVMGCTime)
	visit("Result Serialization Time", &m.ResultSerializationTime)
	visit("Memory Bytes Spilled", &m.MemoryBytesSpilled)
	visit("Disk Bytes Spilled", &m.DiskBytesSpilled)
	r := &m.ShuffleRead
	visit("Shuffle Read Metrics.Remote Blocks Fetched", &r.RemoteBlocksFetched)
	visit("Shuffle Read Metrics.Local Blocks Fetched", &r.LocalBlocksFetched)
	visit("Shuffle Read Metrics.Fetch Wait Time", &r.FetchWaitTime)
	visit("Shuffle Read Metrics.Remote Bytes Read", &r.RemoteBytesRead)
	visit("Shuffle Read Metrics.Remote Bytes Read To Disk", &r.RemoteBytesReadToDisk)
	visit("Shuffle Read Metrics.Local Bytes Read", &r.LocalBytesRead)
	visit("Shuffle Read Metrics.Total Records Read", &r.TotalRecordsRead)
	visit("Shuffle Read Metrics.Remote Requests Duration", &r.RemoteRequestsDuration)
	w := &m.ShuffleWrite
	visit("Shuffle Write Metrics.Shuffle Bytes Written", &w.BytesWritten)
	visit("Shuffle Write Metrics.Shuffle Write Time", &w.WriteTime)
	visit("Shuffle Write Metrics.Shuffle Records Written", &w.RecordsWritten)
	visit("Input Metrics.Bytes Read", &m.Input.BytesRead)
	visit("Input Metrics.Records Read", &m.Input.RecordsRead)
	visit("Output Metrics.Bytes Written", &m.Output.BytesWritten)
	visit("Output Metrics.Records Written", &m.Output.RecordsWritten)
}

// checkedTaskEnd returns e itself, or, when a task metric is negative, a
// copy whose negative metrics are 0, each counted as a problem. The
// caller's event is never changed.
func (a *App) checkedTaskEnd(e *sparkevent.TaskEnd) *sparkevent.TaskEnd {
	if e.Metrics == nil {
		return e
	}
	negative := false
	taskMetricFields(e.Metrics, func(_ string, v *int64) { negative = negative || *v < 0 })
	if !negative {
		return e
	}
	m := *e.Metrics
	taskMetricFields(&m, func(name string, v *int64) {
		if *v < 0 {
			a.problem(ProblemNegativeValue, "%s of task %d (stage %d.%d): field %q = %d, counted as 0",
				sparkevent.TypeTaskEnd, e.Task.TaskID, e.StageID, e.StageAttemptID, "Task Metrics."+name, *v)
			*v = 0
		}
	})
	fixed := *e
	fixed.Metrics = &m
	return &fixed
}
