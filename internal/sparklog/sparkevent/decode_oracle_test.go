package sparkevent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// This file holds a reference decoder built on encoding/json, written
// independently of the fast one, and compares the two on real logs.

// refDecode decodes a line the slow, obvious way.
func refDecode(line []byte) (Event, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var top map[string]any
	if err := dec.Decode(&top); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(line[dec.InputOffset():])) > 0 {
		return nil, errors.New("trailing data")
	}
	typ, ok := top["Event"].(string)
	if !ok {
		return nil, errors.New(`no string "Event"`)
	}
	r := &ref{}
	ev := r.event(typ, top)
	return ev, r.err
}

// ref converts generic JSON values, remembering the first type error.
type ref struct{ err error }

func (r *ref) fail(what string, v any) {
	if r.err == nil {
		r.err = fmt.Errorf("expected %s, got %T %v", what, v, v)
	}
}

func (r *ref) int64(v any) int64 {
	switch x := v.(type) {
	case nil:
		return 0
	case json.Number:
		n, err := strconv.ParseInt(string(x), 10, 64)
		if err != nil {
			r.fail("integer", v)
		}
		return n
	case string:
		if n, ok := refDecimal(x); ok {
			return n
		}
	}
	r.fail("integer", v)
	return 0
}

// refDecimal accepts what Spark's old logs quote: an optional '-' and digits.
func refDecimal(s string) (int64, bool) {
	if strings.HasPrefix(s, "+") {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

func (r *ref) int(v any) int { return int(r.int64(v)) }

func (r *ref) str(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	r.fail("string", v)
	return ""
}

func (r *ref) bool(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	}
	r.fail("boolean", v)
	return false
}

func (r *ref) float(v any) float64 {
	switch x := v.(type) {
	case nil:
		return 0
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			r.fail("number", v)
		}
		return f
	case string:
		var n json.Number
		if json.Unmarshal([]byte(x), &n) == nil && x == strings.TrimSpace(x) {
			return r.float(n)
		}
	}
	r.fail("number", v)
	return 0
}

func (r *ref) obj(v any) map[string]any {
	switch x := v.(type) {
	case nil:
		return nil
	case map[string]any:
		return x
	}
	r.fail("object", v)
	return nil
}

func (r *ref) list(v any) []any {
	switch x := v.(type) {
	case nil:
		return nil
	case []any:
		return x
	}
	r.fail("array", v)
	return nil
}

func (r *ref) ints(v any) []int {
	var out []int
	for _, x := range r.list(v) {
		out = append(out, r.int(x))
	}
	return out
}

func (r *ref) strMap(v any) map[string]string {
	out := map[string]string{}
	if l, ok := v.([]any); ok {
		for _, p := range l {
			pair, ok := p.([]any)
			if !ok || len(pair) != 2 {
				r.fail("pair", p)
				continue
			}
			out[r.str(pair[0])] = r.str(pair[1])
		}
		return out
	}
	for k, x := range r.obj(v) {
		out[k] = r.str(x)
	}
	return out
}

func (r *ref) named(v any) []NamedValue {
	// Order matters: the fast decoder keeps the line's order, which a Go
	// map loses, so named values are compared as sets (see normalize).
	var out []NamedValue
	for k, x := range r.obj(v) {
		out = append(out, NamedValue{k, r.int64(x)})
	}
	return out
}

func (r *ref) event(typ string, m map[string]any) Event {
	switch typ {
	case TypeLogStart:
		return &LogStart{SparkVersion: r.str(m["Spark Version"])}
	case TypeDatabricksMetadata:
		return &DatabricksMetadata{SparkVersion: r.str(m["Spark Version"]), Timestamp: r.int64(m["Timestamp"]),
			RolloverNumber: int(r.int64(m["Rollover Number"]))}
	case TypeApplicationStart:
		return &ApplicationStart{AppName: r.str(m["App Name"]), AppID: r.str(m["App ID"]),
			AttemptID: r.str(m["App Attempt ID"]), User: r.str(m["User"]), Timestamp: r.int64(m["Timestamp"])}
	case TypeApplicationEnd:
		ev := &ApplicationEnd{Timestamp: r.int64(m["Timestamp"])}
		if c, ok := m["ExitCode"]; ok && c != nil {
			ev.ExitCode, ev.HasExitCode = r.int(c), true
		}
		return ev
	case TypeEnvironmentUpdate:
		return &EnvironmentUpdate{JVMInformation: r.strMap(m["JVM Information"]),
			SparkProperties: r.strMap(m["Spark Properties"]), SystemProperties: r.strMap(m["System Properties"])}
	case TypeResourceProfileAdded:
		ev := &ResourceProfileAdded{ID: r.int(m["Resource Profile Id"]),
			ExecutorResources: map[string]ResourceRequest{}, TaskResources: map[string]float64{}}
		for k, x := range r.obj(m["Executor Resource Requests"]) {
			ev.ExecutorResources[k] = ResourceRequest{Amount: r.int64(r.obj(x)["Amount"])}
		}
		for k, x := range r.obj(m["Task Resource Requests"]) {
			ev.TaskResources[k] = r.float(r.obj(x)["Amount"])
		}
		return ev
	case TypeExecutorAdded:
		info := r.obj(m["Executor Info"])
		return &ExecutorAdded{Timestamp: r.int64(m["Timestamp"]), ExecutorID: r.str(m["Executor ID"]),
			Host: r.str(info["Host"]), TotalCores: r.int(info["Total Cores"]), ResourceProfileID: r.int(info["Resource Profile Id"])}
	case TypeExecutorRemoved:
		return &ExecutorRemoved{Timestamp: r.int64(m["Timestamp"]), ExecutorID: r.str(m["Executor ID"]), Reason: r.str(m["Removed Reason"])}
	case TypeBlockManagerAdded:
		id := r.obj(m["Block Manager ID"])
		return &BlockManagerAdded{Timestamp: r.int64(m["Timestamp"]), ExecutorID: r.str(id["Executor ID"]),
			Host: r.str(id["Host"]), Port: r.int(id["Port"]), MaxMem: r.int64(m["Maximum Memory"]),
			MaxOnHeapMem: r.int64(m["Maximum Onheap Memory"]), MaxOffHeapMem: r.int64(m["Maximum Offheap Memory"])}
	case TypeBlockManagerRemoved:
		id := r.obj(m["Block Manager ID"])
		return &BlockManagerRemoved{Timestamp: r.int64(m["Timestamp"]), ExecutorID: r.str(id["Executor ID"]),
			Host: r.str(id["Host"]), Port: r.int(id["Port"])}
	case TypeJobStart:
		ev := &JobStart{JobID: r.int(m["Job ID"]), SubmissionTime: r.int64(m["Submission Time"]),
			StageIDs: r.ints(m["Stage IDs"]), Properties: r.strMap(m["Properties"])}
		for _, s := range r.list(m["Stage Infos"]) {
			ev.StageInfos = append(ev.StageInfos, r.stageInfo(s))
		}
		return ev
	case TypeJobEnd:
		return &JobEnd{JobID: r.int(m["Job ID"]), CompletionTime: r.int64(m["Completion Time"]),
			Result: r.str(r.obj(m["Job Result"])["Result"])}
	case TypeStageSubmitted:
		return &StageSubmitted{Stage: r.stageInfo(m["Stage Info"]), Properties: r.strMap(m["Properties"])}
	case TypeStageCompleted:
		return &StageCompleted{Stage: r.stageInfo(m["Stage Info"])}
	case TypeTaskStart:
		return &TaskStart{StageID: r.int(m["Stage ID"]), StageAttemptID: r.int(m["Stage Attempt ID"]), Task: r.taskInfo(m["Task Info"])}
	case TypeTaskEnd:
		reason := r.obj(m["Task End Reason"])
		ev := &TaskEnd{StageID: r.int(m["Stage ID"]), StageAttemptID: r.int(m["Stage Attempt ID"]),
			TaskType: r.str(m["Task Type"]), Task: r.taskInfo(m["Task Info"]),
			Reason: TaskEndReason{Reason: r.str(reason["Reason"]), ClassName: r.str(reason["Class Name"]),
				Description: r.str(reason["Description"]), KillReason: r.str(reason["Kill Reason"])},
			ExecutorMetrics: r.named(m["Task Executor Metrics"])}
		if tm := r.obj(m["Task Metrics"]); tm != nil {
			ev.Metrics = r.taskMetrics(tm)
		}
		return ev
	case TypeStageExecutorMetrics:
		return &StageExecutorMetrics{ExecutorID: r.str(m["Executor ID"]), StageID: r.int(m["Stage ID"]),
			StageAttemptID: r.int(m["Stage Attempt ID"]), Metrics: r.named(m["Executor Metrics"])}
	case TypeSQLExecutionStart:
		ev := &SQLExecutionStart{ExecutionID: r.int64(m["executionId"]), RootExecutionID: -1,
			Description: r.str(m["description"]), Details: r.str(m["details"]),
			PhysicalPlanDescription: r.str(m["physicalPlanDescription"]), Plan: r.plan(m["sparkPlanInfo"]), Time: r.int64(m["time"])}
		if v := m["rootExecutionId"]; v != nil {
			ev.RootExecutionID = r.int64(v)
		}
		return ev
	case TypeSQLExecutionEnd:
		return &SQLExecutionEnd{ExecutionID: r.int64(m["executionId"]), Time: r.int64(m["time"]), ErrorMessage: r.str(m["errorMessage"])}
	case TypeSQLAdaptiveExecutionUpdate:
		return &SQLAdaptiveExecutionUpdate{ExecutionID: r.int64(m["executionId"]),
			PhysicalPlanDescription: r.str(m["physicalPlanDescription"]), Plan: r.plan(m["sparkPlanInfo"])}
	case TypeDriverAccumUpdates:
		ev := &DriverAccumUpdates{ExecutionID: r.int64(m["executionId"])}
		for _, p := range r.list(m["accumUpdates"]) {
			pair := r.list(p)
			if len(pair) != 2 {
				r.fail("pair", p)
				continue
			}
			ev.Updates = append(ev.Updates, AccumUpdate{ID: r.int64(pair[0]), Value: r.int64(pair[1])})
		}
		return ev
	case TypeExecutorExcludedForStage, TypeExecutorBlacklistedForStage:
		return &ExecutorExcludedForStage{Legacy: typ == TypeExecutorBlacklistedForStage, Time: r.int64(m["time"]),
			ExecutorID: r.str(m["executorId"]), TaskFailures: r.int(m["taskFailures"]),
			StageID: r.int(m["stageId"]), StageAttemptID: r.int(m["stageAttemptId"])}
	case TypeNodeExcludedForStage, TypeNodeBlacklistedForStage:
		return &NodeExcludedForStage{Legacy: typ == TypeNodeBlacklistedForStage, Time: r.int64(m["time"]),
			Host: r.str(m["hostId"]), ExecutorFailures: r.int(m["executorFailures"]),
			StageID: r.int(m["stageId"]), StageAttemptID: r.int(m["stageAttemptId"])}
	}
	if ev := r.streamingEvent(typ, m); ev != nil {
		return ev
	}
	return &Other{Type: typ}
}

func (r *ref) stageInfo(v any) StageInfo {
	m := r.obj(v)
	return StageInfo{StageID: r.int(m["Stage ID"]), AttemptID: r.int(m["Stage Attempt ID"]), Name: r.str(m["Stage Name"]),
		NumTasks: r.int(m["Number of Tasks"]), ParentIDs: r.ints(m["Parent IDs"]), Details: r.str(m["Details"]),
		SubmissionTime: r.int64(m["Submission Time"]), CompletionTime: r.int64(m["Completion Time"]),
		FailureReason: r.str(m["Failure Reason"]), ResourceProfileID: r.int(m["Resource Profile Id"]),
		Accumulables: r.accumulables(m["Accumulables"])}
}

func (r *ref) taskInfo(v any) TaskInfo {
	m := r.obj(v)
	t := TaskInfo{TaskID: r.int64(m["Task ID"]), Index: r.int(m["Index"]), Attempt: r.int(m["Attempt"]), PartitionID: -1,
		LaunchTime: r.int64(m["Launch Time"]), ExecutorID: r.str(m["Executor ID"]), Host: r.str(m["Host"]),
		Locality: r.str(m["Locality"]), Speculative: r.bool(m["Speculative"]), GettingResultTime: r.int64(m["Getting Result Time"]),
		FinishTime: r.int64(m["Finish Time"]), Failed: r.bool(m["Failed"]), Killed: r.bool(m["Killed"]),
		Accumulables: r.accumulables(m["Accumulables"])}
	if p := m["Partition ID"]; p != nil {
		t.PartitionID = r.int(p)
	}
	return t
}

func (r *ref) accumulables(v any) []Accumulable {
	var out []Accumulable
	for _, x := range r.list(v) {
		m := r.obj(x)
		a := Accumulable{ID: r.int64(m["ID"]), Name: r.str(m["Name"]), Internal: r.bool(m["Internal"]),
			CountFailedValues: r.bool(m["Count Failed Values"]), Metadata: r.str(m["Metadata"])}
		upd, updOK := refFlex(m["Update"])
		val, valOK := refFlex(m["Value"])
		a.HasUpdate = m["Update"] != nil
		hasVal := m["Value"] != nil
		if (a.HasUpdate || hasVal) && (!a.HasUpdate || updOK) && (!hasVal || valOK) {
			a.Numeric, a.Update, a.Value = true, upd, val
		}
		out = append(out, a)
	}
	return out
}

// refFlex reads an accumulable value: an integer, a string holding one, or
// anything else (not numeric).
func refFlex(v any) (int64, bool) {
	switch x := v.(type) {
	case json.Number:
		n, err := strconv.ParseInt(string(x), 10, 64)
		return n, err == nil
	case string:
		return refDecimal(x)
	}
	return 0, false
}

func (r *ref) taskMetrics(m map[string]any) *TaskMetrics {
	sr, sw := r.obj(m["Shuffle Read Metrics"]), r.obj(m["Shuffle Write Metrics"])
	in, out := r.obj(m["Input Metrics"]), r.obj(m["Output Metrics"])
	tm := &TaskMetrics{
		ExecutorDeserializeTime: r.int64(m["Executor Deserialize Time"]), ExecutorDeserializeCPUTime: r.int64(m["Executor Deserialize CPU Time"]),
		ExecutorRunTime: r.int64(m["Executor Run Time"]), ExecutorCPUTime: r.int64(m["Executor CPU Time"]),
		HasExecutorCPUTime: m["Executor CPU Time"] != nil, PeakExecutionMemory: r.int64(m["Peak Execution Memory"]),
		ResultSize: r.int64(m["Result Size"]), JVMGCTime: r.int64(m["JVM GC Time"]), ResultSerializationTime: r.int64(m["Result Serialization Time"]),
		MemoryBytesSpilled: r.int64(m["Memory Bytes Spilled"]), DiskBytesSpilled: r.int64(m["Disk Bytes Spilled"]),
		ShuffleRead: ShuffleReadMetrics{RemoteBlocksFetched: r.int64(sr["Remote Blocks Fetched"]), LocalBlocksFetched: r.int64(sr["Local Blocks Fetched"]),
			FetchWaitTime: r.int64(sr["Fetch Wait Time"]), RemoteBytesRead: r.int64(sr["Remote Bytes Read"]),
			RemoteBytesReadToDisk: r.int64(sr["Remote Bytes Read To Disk"]), LocalBytesRead: r.int64(sr["Local Bytes Read"]),
			TotalRecordsRead: r.int64(sr["Total Records Read"]), RemoteRequestsDuration: r.int64(sr["Remote Requests Duration"])},
		ShuffleWrite: ShuffleWriteMetrics{BytesWritten: r.int64(sw["Shuffle Bytes Written"]), WriteTime: r.int64(sw["Shuffle Write Time"]),
			RecordsWritten: r.int64(sw["Shuffle Records Written"])},
		Input:  InputMetrics{BytesRead: r.int64(in["Bytes Read"]), RecordsRead: r.int64(in["Records Read"])},
		Output: OutputMetrics{BytesWritten: r.int64(out["Bytes Written"]), RecordsWritten: r.int64(out["Records Written"])},
	}
	return tm
}

func (r *ref) plan(v any) *PlanNode {
	m := r.obj(v)
	if m == nil {
		return nil
	}
	n := &PlanNode{NodeName: r.str(m["nodeName"]), SimpleString: r.str(m["simpleString"]), Metadata: r.strMap(m["metadata"])}
	for _, c := range r.list(m["children"]) {
		n.Children = append(n.Children, r.plan(c))
	}
	for _, x := range r.list(m["metrics"]) {
		mm := r.obj(x)
		n.Metrics = append(n.Metrics, PlanMetric{Name: r.str(mm["name"]), AccumulatorID: r.int64(mm["accumulatorId"]), MetricType: r.str(mm["metricType"])})
	}
	return n
}
