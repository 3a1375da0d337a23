package metricschema

import "slices"

// Label is one label of a family: its name and, for a closed label, every
// value it takes. An open label's values come from the logs, the flags or
// the system (an application id, an operator name, a currency).
type Label struct {
	Name   string
	Values []string // nil: open
}

// Open declares labels whose values are open.
func Open(names ...string) []Label {
	out := make([]Label, len(names))
	for i, n := range names {
		out[i] = Label{Name: n}
	}
	return out
}

// ClosedLabel is a label that takes only the values declared with it, of
// type V: emitting code ranges over Values and keys its label pairs by V.
type ClosedLabel[V ~string] struct {
	Name   string
	Values []V // in the order their series sort in (by value), the order the collectors emit them
}

// Closed declares a closed label.
func Closed[V ~string](name string, values ...V) ClosedLabel[V] {
	return ClosedLabel[V]{Name: name, Values: values}
}

// Label is c as one label of a family's list (for [Labels]).
func (c ClosedLabel[V]) Label() []Label {
	l := Label{Name: c.Name, Values: make([]string, len(c.Values))}
	for i, v := range c.Values {
		l.Values[i] = string(v)
	}
	return []Label{l}
}

// Labels joins label lists, copying so that no caller shares a backing
// array with another.
func Labels(lists ...[]Label) []Label {
	var out []Label
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// names lists the labels' names.
func names(labels []Label) []string {
	if len(labels) == 0 {
		return nil
	}
	out := make([]string, len(labels))
	for i, l := range labels {
		out[i] = l.Name
	}
	return out
}

// Label sets every per-application, per-executor and per-stage-attempt
// series of the Spark collectors starts with.
var (
	AppLabels      = Open("app_id", "app_name")
	ExecutorLabels = Open("app_id", "app_name", "executor_id")
	StageLabels    = Open("app_id", "app_name", "stage_id", "attempt_id")
)

// Category is a category of task time (the category label).
type Category string

// The categories of task time, in label order: executor CPU time, JVM GC
// time, task run time (launch to finish), (de)serialization and shuffle
// (fetch wait + write).
const (
	CategoryCPU     Category = "cpu"
	CategoryGC      Category = "gc"
	CategoryRun     Category = "run"
	CategorySerde   Category = "serde"
	CategoryShuffle Category = "shuffle"
)

// Medium is where spilled bytes went (the medium label).
type Medium string

// The spill media, in label order: disk (serialized size) and memory
// (deserialized size).
const (
	MediumDisk   Medium = "disk"
	MediumMemory Medium = "memory"
)

// TaskStatus is how a task ended (the status label of task counts).
type TaskStatus string

// Task end statuses, in label order.
const (
	TaskFailed  TaskStatus = "failed"
	TaskKilled  TaskStatus = "killed"
	TaskSuccess TaskStatus = "success"
)

// JobStatus is how a job ended (the status label of spark_jobs_total).
type JobStatus string

// Job end statuses, in label order.
const (
	JobFailed    JobStatus = "failed"
	JobSucceeded JobStatus = "succeeded"
)

// SQLStatus is the state of an SQL execution (the status label of
// spark_sql_executions_total).
type SQLStatus string

// SQL execution statuses, in label order.
const (
	SQLCompleted SQLStatus = "completed"
	SQLFailed    SQLStatus = "failed"
	SQLRunning   SQLStatus = "running"
)

// AppState is whether a followed application runs (the state label of
// sparkglance_eventlog_apps).
type AppState string

// Application states, in label order.
const (
	AppStateFinished AppState = "finished"
	AppStateRunning  AppState = "running"
)

// SkipReason is why an event log is not shown (the reason label of
// sparkglance_eventlog_skipped_total).
type SkipReason string

// Skip reasons, in label order.
const (
	SkipDuplicateApp SkipReason = "duplicate-app"
	SkipMaxApps      SkipReason = "max-apps"
	SkipRetention    SkipReason = "retention"
)

// EnergySource is where the event-log collector's energy comes from (the
// source label of its energy families): the CPU model, or a node agent's
// measurement.
type EnergySource string

// Energy sources of the event-log collector, in label order.
const (
	EnergyMeasured EnergySource = "measured"
	EnergyModel    EnergySource = "model"
)

// PowerSource is how the node agent (collector process) gets power: RAPL
// counters or the TDP model.
type PowerSource string

// Power sources of the node agent.
const (
	PowerRAPL PowerSource = "rapl"
	PowerTDP  PowerSource = "tdp"
)

// WorkloadStatus is how a workload's finished run compared with its
// baseline (the status label of spark_workload_runs_total).
type WorkloadStatus string

// Workload run statuses, in label order.
const (
	WorkloadExplainedByInput WorkloadStatus = "explained_by_input"
	WorkloadNoBaseline       WorkloadStatus = "no_baseline"
	WorkloadOK               WorkloadStatus = "ok"
	WorkloadRegressed        WorkloadStatus = "regressed"
)

// Measure is a measure of a workload's runs (the measure label).
type Measure string

// Workload measures, in label order.
const (
	MeasureCoreHours       Measure = "core_hours"
	MeasureCost            Measure = "cost"
	MeasureEfficiency      Measure = "efficiency"
	MeasureEnergy          Measure = "energy"
	MeasureInput           Measure = "input"
	MeasureShuffleRead     Measure = "shuffle_read"
	MeasureShuffleWrite    Measure = "shuffle_write"
	MeasureSpillDisk       Measure = "spill_disk"
	MeasureSpillMemory     Measure = "spill_memory"
	MeasureTaskCPUTime     Measure = "task_cpu_time"
	MeasureWallTime        Measure = "wall_time"
	MeasureWastedCoreHours Measure = "wasted_core_hours"
)

// ExportResult is how an OTLP push ended (the result label of
// sparkglance_otlp_exports_total).
type ExportResult string

// OTLP push results, in label order.
const (
	ExportFailure ExportResult = "failure"
	ExportSuccess ExportResult = "success"
)

// TargetError is why a read of a Spark target failed (the reason label of
// spark_target_scrape_errors_total).
type TargetError string

// Target read failures, in label order.
const (
	TargetErrorHTML        TargetError = "html"         // an HTML page instead of JSON or text
	TargetErrorHTTPStatus  TargetError = "http_status"  // any other non-2xx status
	TargetErrorInvalidBody TargetError = "invalid_body" // truncated or malformed JSON or text
	TargetErrorNetwork     TargetError = "network"      // DNS, reset, TLS and other transport errors
	TargetErrorNotFound    TargetError = "not_found"    // 404: endpoint missing (old Spark, wrong URL)
	TargetErrorRedirect    TargetError = "redirect"     // 3xx, typically to a login page
	TargetErrorRefused     TargetError = "refused"      // connection refused
	TargetErrorTimeout     TargetError = "timeout"      // deadline passed (connect, headers or body)
	TargetErrorTooLarge    TargetError = "too_large"    // body over --spark.max-body-bytes
)

// ThreadState is what a sampled task thread was doing (the state label of
// spark_thread_samples_total).
type ThreadState string

// Thread states, in label order.
const (
	ThreadBackpressure ThreadState = "backpressure"  // Flink: waiting for an output buffer
	ThreadIO           ThreadState = "io"            // blocked in a socket or file read/write
	ThreadLock         ThreadState = "lock"          // BLOCKED on a monitor or parked on a lock
	ThreadMemoryWait   ThreadState = "memory_wait"   // waiting to acquire execution memory
	ThreadOtherWait    ThreadState = "other_wait"    // any other WAITING / TIMED_WAITING
	ThreadRunning      ThreadState = "running"       // on CPU or runnable in Java code
	ThreadShuffleFetch ThreadState = "shuffle_fetch" // waiting for shuffle blocks
	ThreadSpill        ThreadState = "spill"         // writing spill or shuffle files
)

// Framework is the framework of a JVM the node agents follow (the
// framework label).
type Framework string

// Frameworks, in label order.
const (
	FrameworkFlink Framework = "flink"
	FrameworkSpark Framework = "spark"
)

// Role is the role of a JVM the node agents follow (the role label).
type Role string

// Roles, in label order.
const (
	RoleDriver      Role = "driver"
	RoleExecutor    Role = "executor"
	RoleJobManager  Role = "jobmanager"
	RoleTaskManager Role = "taskmanager"
)

// FindingKind is a kind of finding of the analysis, its SQL operators'
// included (the kind label of spark_app_finding).
type FindingKind string

// Finding kinds, in label order.
const (
	FindingBottleneckOperator       FindingKind = "bottleneck_operator"
	FindingColdCache                FindingKind = "cold_cache"
	FindingDriverMemoryPressure     FindingKind = "driver_memory_pressure"
	FindingDynamicFilterUnused      FindingKind = "dynamic_filter_unused"
	FindingExecutorCountOversized   FindingKind = "executor_count_oversized"
	FindingExpensiveFilterOrProject FindingKind = "expensive_filter_or_project"
	FindingGCPressure               FindingKind = "gc_pressure"
	FindingIdleExecutors            FindingKind = "idle_executors"
	FindingIOBoundScan              FindingKind = "io_bound_scan"
	FindingJoinBuildDominated       FindingKind = "join_build_dominated"
	FindingJoinProbeDominated       FindingKind = "join_probe_dominated"
	FindingLowEfficiency            FindingKind = "low_efficiency"
	FindingNativeSpill              FindingKind = "native_spill"
	FindingPushdownNotApplied       FindingKind = "pushdown_not_applied"
	FindingShuffleWait              FindingKind = "shuffle_wait"
	FindingSingleCoreStage          FindingKind = "single_core_stage"
	FindingSkewedSpill              FindingKind = "skewed_spill"
	FindingStageRetries             FindingKind = "stage_retries"
	FindingStreamingFallingBehind   FindingKind = "streaming_falling_behind"
	FindingTaskSkew                 FindingKind = "task_skew"
	FindingUniformSpill             FindingKind = "uniform_spill"
	FindingWorkloadRegression       FindingKind = "workload_regression"
)

// EventlogError is a problem the event-log collector met (the reason
// label of sparkglance_eventlog_errors_total): a damage kind of the reader
// (package sparklog's ProblemKind) or one of the collector's own.
type EventlogError string

// Event-log collector errors, in label order.
const (
	EventlogErrorCodecMismatch EventlogError = "codec-mismatch" // the reader's (sparklog.ProblemKind)
	EventlogErrorCorruptData   EventlogError = "corrupt-data"   // the reader's (sparklog.ProblemKind)
	EventlogErrorDirUnreadable EventlogError = "dir-unreadable" // the collector's own: a directory could not be listed
	EventlogErrorDuplicateApp  EventlogError = "duplicate-app"  // the collector's own: a log shows an application attempt another log shows already
	EventlogErrorEmptyFile     EventlogError = "empty-file"     // the reader's (sparklog.ProblemKind)
	EventlogErrorExternalLink  EventlogError = "external-link"  // the reader's (sparklog.ProblemKind)
	EventlogErrorFileShrank    EventlogError = "file-shrank"    // the reader's (sparklog.ProblemKind)
	EventlogErrorIO            EventlogError = "io-error"       // the reader's (sparklog.ProblemKind)
	EventlogErrorLayout        EventlogError = "layout"         // the reader's (sparklog.ProblemKind)
	EventlogErrorLineTooLong   EventlogError = "line-too-long"  // the reader's (sparklog.ProblemKind)
	EventlogErrorLogRewritten  EventlogError = "log-rewritten"  // the collector's own: a finished log changed after it was read
	EventlogErrorLogVanished   EventlogError = "log-vanished"   // the collector's own: a followed log disappeared
	EventlogErrorMalformedJSON EventlogError = "malformed-json" // the reader's (sparklog.ProblemKind)
	EventlogErrorMaxApps       EventlogError = "max-apps"       // the collector's own: a log left out, --eventlog.max-apps applications held already
	EventlogErrorMissingFile   EventlogError = "missing-file"   // the reader's (sparklog.ProblemKind)
	EventlogErrorNotEventLog   EventlogError = "not-event-log"  // the reader's (sparklog.ProblemKind)
	EventlogErrorNotRegular    EventlogError = "not-regular"    // the reader's (sparklog.ProblemKind)
	EventlogErrorOpenFailed    EventlogError = "open-failed"    // the collector's own: a log could not be opened
	EventlogErrorTruncatedData EventlogError = "truncated-data" // the reader's (sparklog.ProblemKind)
	EventlogErrorTruncatedLine EventlogError = "truncated-line" // the reader's (sparklog.ProblemKind)
	EventlogErrorUnknownCodec  EventlogError = "unknown-codec"  // the reader's (sparklog.ProblemKind)
	EventlogErrorUnreadable    EventlogError = "unreadable"     // the reader's (sparklog.ProblemKind)
)

// ObjectOp is an object-store request's operation (the op label of
// sparkglance_eventlog_object_requests_total; package sparklog counts them).
type ObjectOp string

// Object-store operations, in label order.
const (
	ObjectOpGet   ObjectOp = "get"   // a (ranged) read
	ObjectOpList  ObjectOp = "list"  // a listing page
	ObjectOpOther ObjectOp = "other" // anything else the SDKs send (token refresh, …)
	ObjectOpStat  ObjectOp = "stat"  // an object's size, time and ETag
)

// ObjectResult is how an object-store request ended (the result label of
// sparkglance_eventlog_object_requests_total).
type ObjectResult string

// Object-store request results, in label order.
const (
	ObjectResultDenied    ObjectResult = "denied"    // 401, 403
	ObjectResultError     ObjectResult = "error"     // other failures, network errors included
	ObjectResultNotFound  ObjectResult = "not_found" // 404
	ObjectResultOK        ObjectResult = "ok"
	ObjectResultThrottled ObjectResult = "throttled" // 429, 503 (S3's SlowDown)
)

// StacksError is why a thread dump failed (the reason label of
// sparkglance_stacks_errors_total): attaching to the JVM or reading the
// Spark UI's REST dump.
type StacksError string

// Thread-dump failures, in label order.
const (
	StacksErrorAttachDisabled  StacksError = "attach_disabled"  // the JVM refuses attach (-XX:+DisableAttachMechanism)
	StacksErrorCommandFailed   StacksError = "command_failed"   // the JVM ran the dump command and failed
	StacksErrorNoPID           StacksError = "no_pid"           // a target without a pid to attach to
	StacksErrorNoSource        StacksError = "no_source"        // no way to dump the target
	StacksErrorNotJVM          StacksError = "not_jvm"          // the process is not a HotSpot JVM
	StacksErrorOther           StacksError = "other"            // any other failure
	StacksErrorParse           StacksError = "parse"            // the thread dump could not be parsed
	StacksErrorPermission      StacksError = "permission"       // not allowed to attach
	StacksErrorProcessGone     StacksError = "process_gone"     // the process ended
	StacksErrorProtocol        StacksError = "protocol"         // the attach protocol broke
	StacksErrorRESTConfig      StacksError = "rest_config"      // a Spark UI address that cannot be used
	StacksErrorRESTDecode      StacksError = "rest_decode"      // a REST thread dump that cannot be read
	StacksErrorRESTStatus      StacksError = "rest_status"      // the Spark UI answered with an error status
	StacksErrorRESTUnreachable StacksError = "rest_unreachable" // the Spark UI could not be reached
	StacksErrorTimeout         StacksError = "timeout"          // the dump took too long
)

// The closed labels.
var (
	// TaskTimeCategory is the category of the task-time families.
	TaskTimeCategory = Closed("category", CategoryCPU, CategoryGC, CategoryRun, CategorySerde, CategoryShuffle)
	// IntervalCategory is the category of the interval families: the
	// parts of available core time, so without run.
	IntervalCategory    = Closed("category", CategoryCPU, CategoryGC, CategorySerde, CategoryShuffle)
	SpillMedium         = Closed("medium", MediumDisk, MediumMemory)
	TaskStatusLabel     = Closed("status", TaskFailed, TaskKilled, TaskSuccess)
	JobStatusLabel      = Closed("status", JobFailed, JobSucceeded)
	SQLStatusLabel      = Closed("status", SQLCompleted, SQLFailed, SQLRunning)
	AppStateLabel       = Closed("state", AppStateFinished, AppStateRunning)
	SkipReasonLabel     = Closed("reason", SkipDuplicateApp, SkipMaxApps, SkipRetention)
	EnergySourceLabel   = Closed("source", EnergyMeasured, EnergyModel)
	PowerSourceLabel    = Closed("source", PowerRAPL, PowerTDP)
	WorkloadStatusLabel = Closed("status", WorkloadExplainedByInput, WorkloadNoBaseline, WorkloadOK, WorkloadRegressed)
	MeasureLabel        = Closed("measure", MeasureCoreHours, MeasureCost, MeasureEfficiency, MeasureEnergy, MeasureInput,
		MeasureShuffleRead, MeasureShuffleWrite, MeasureSpillDisk, MeasureSpillMemory, MeasureTaskCPUTime,
		MeasureWallTime, MeasureWastedCoreHours)
	EventlogErrorLabel = Closed("reason", EventlogErrorCodecMismatch, EventlogErrorCorruptData,
		EventlogErrorDirUnreadable, EventlogErrorDuplicateApp, EventlogErrorEmptyFile, EventlogErrorExternalLink,
		EventlogErrorFileShrank, EventlogErrorIO, EventlogErrorLayout, EventlogErrorLineTooLong, EventlogErrorLogRewritten,
		EventlogErrorLogVanished, EventlogErrorMalformedJSON, EventlogErrorMaxApps, EventlogErrorMissingFile,
		EventlogErrorNotEventLog, EventlogErrorNotRegular, EventlogErrorOpenFailed, EventlogErrorTruncatedData,
		EventlogErrorTruncatedLine, EventlogErrorUnknownCodec, EventlogErrorUnreadable)
	ObjectOpLabel     = Closed("op", ObjectOpGet, ObjectOpList, ObjectOpOther, ObjectOpStat)
	ObjectResultLabel = Closed("result", ObjectResultDenied, ObjectResultError, ObjectResultNotFound, ObjectResultOK, ObjectResultThrottled)
	StacksErrorLabel  = Closed("reason", StacksErrorAttachDisabled, StacksErrorCommandFailed, StacksErrorNoPID,
		StacksErrorNoSource, StacksErrorNotJVM, StacksErrorOther, StacksErrorParse, StacksErrorPermission,
		StacksErrorProcessGone, StacksErrorProtocol, StacksErrorRESTConfig, StacksErrorRESTDecode, StacksErrorRESTStatus,
		StacksErrorRESTUnreachable, StacksErrorTimeout)
	ExportResultLabel = Closed("result", ExportFailure, ExportSuccess)
	FindingKindLabel  = Closed("kind", FindingBottleneckOperator, FindingColdCache, FindingDriverMemoryPressure,
		FindingDynamicFilterUnused, FindingExecutorCountOversized, FindingExpensiveFilterOrProject, FindingGCPressure,
		FindingIdleExecutors, FindingIOBoundScan, FindingJoinBuildDominated, FindingJoinProbeDominated, FindingLowEfficiency,
		FindingNativeSpill, FindingPushdownNotApplied, FindingShuffleWait, FindingSingleCoreStage, FindingSkewedSpill,
		FindingStageRetries, FindingStreamingFallingBehind, FindingTaskSkew, FindingUniformSpill, FindingWorkloadRegression)
	FrameworkLabel   = Closed("framework", FrameworkFlink, FrameworkSpark)
	RoleLabel        = Closed("role", RoleDriver, RoleExecutor, RoleJobManager, RoleTaskManager)
	TargetErrorLabel = Closed("reason", TargetErrorHTML, TargetErrorHTTPStatus, TargetErrorInvalidBody, TargetErrorNetwork,
		TargetErrorNotFound, TargetErrorRedirect, TargetErrorRefused, TargetErrorTimeout, TargetErrorTooLarge)
	ThreadStateLabel = Closed("state", ThreadBackpressure, ThreadIO, ThreadLock, ThreadMemoryWait, ThreadOtherWait,
		ThreadRunning, ThreadShuffleFetch, ThreadSpill)
)

// Values lists the values a closed label of m takes, in label order; nil
// for an open label or one m does not have.
func (m *Metric) Values(label string) []string {
	for _, l := range m.labels {
		if l.Name == label {
			return l.Values
		}
	}
	return nil
}

// LabelDefs lists m's labels with their values, in declared order.
func (m *Metric) LabelDefs() []Label { return m.labels }

// CheckLabels reports whether a series of m may carry these labels (name
// → value): every name one of m's, every value of a closed label one it
// declares.
func (m *Metric) CheckLabels(labels map[string]string) error {
	for name, value := range labels {
		i := slices.Index(m.Labels, name)
		if i < 0 {
			return &LabelError{Family: m.Name, Label: name, Value: value}
		}
		if vs := m.labels[i].Values; vs != nil && !slices.Contains(vs, value) {
			return &LabelError{Family: m.Name, Label: name, Value: value, Closed: vs}
		}
	}
	return nil
}

// LabelError is a series label its family does not declare, or a value
// outside a closed label's.
type LabelError struct {
	Family, Label, Value string
	Closed               []string // the declared values, when the value is not one
}

func (e *LabelError) Error() string {
	if e.Closed != nil {
		return e.Family + ": label " + e.Label + "=\"" + e.Value + "\" is not one of the declared values " + quoteAll(e.Closed)
	}
	return e.Family + ": label " + e.Label + " (value \"" + e.Value + "\") is not declared"
}
