package stacks

import (
	"regexp"
	"strconv"
	"strings"

	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// Framework label values (declared in the metric schema).
const (
	Spark = string(sm.FrameworkSpark)
	Flink = string(sm.FrameworkFlink)
)

// TaskThread identifies a thread that runs a task.
type TaskThread struct {
	Framework string // Spark or Flink
	// TaskID is Spark's TID (-1 for Spark 1.x pool names, which carry none,
	// and for Flink).
	TaskID int64
	// Subtask is Flink's 1-based subtask index (0 for Spark).
	Subtask int
}

var (
	// Spark 3.2+: "Executor task launch worker for task 1.0 in stage 3.0 (TID 17)".
	sparkTaskName = regexp.MustCompile(`^Executor task launch worker for task \d+(?:\.\d+)? in stage \d+(?:\.\d+)? \(TID (\d+)\)$`)
	// Spark 2.x to 3.1: "Executor task launch worker for task 17".
	sparkTID = regexp.MustCompile(`^Executor task launch worker for task (\d+)$`)
	// Spark 1.x pool threads: "Executor task launch worker-3" (no TID).
	sparkPool = regexp.MustCompile(`^Executor task launch worker-\d+$`)
	// Flink task threads carry the task name with subtask: "Map (2/4)",
	// since 1.12 with the attempt: "Map (2/4)#0".
	flinkTask = regexp.MustCompile(`^.+ \((\d+)/\d+\)(?:#\d+)?$`)
)

// Flink helper threads whose names end like a task's.
var flinkHelperPrefixes = []string{"OutputFlusher for ", "Time Trigger for ", "Channel state writer ", "Timer service for "}

// TaskThreadOf recognises Spark and Flink task threads by name; ok is false
// for any other thread.
func TaskThreadOf(name string) (TaskThread, bool) {
	if strings.HasPrefix(name, "Executor task launch worker") {
		if m := sparkTaskName.FindStringSubmatch(name); m != nil {
			return sparkTask(m[1]), true
		}
		if m := sparkTID.FindStringSubmatch(name); m != nil {
			return sparkTask(m[1]), true
		}
		if sparkPool.MatchString(name) {
			return TaskThread{Framework: Spark, TaskID: -1}, true
		}
		return TaskThread{}, false
	}
	for _, p := range flinkHelperPrefixes {
		if strings.HasPrefix(name, p) {
			return TaskThread{}, false
		}
	}
	if m := flinkTask.FindStringSubmatch(name); m != nil {
		n, _ := strconv.Atoi(m[1])
		return TaskThread{Framework: Flink, TaskID: -1, Subtask: n}, true
	}
	return TaskThread{}, false
}

func sparkTask(tid string) TaskThread {
	n, err := strconv.ParseInt(tid, 10, 64)
	if err != nil {
		n = -1
	}
	return TaskThread{Framework: Spark, TaskID: n}
}
