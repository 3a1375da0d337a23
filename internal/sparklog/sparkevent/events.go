package sparkevent

// Event is one decoded line of an event log. The concrete types below are
// the events the analysis needs; every other line decodes to *Other.
type Event interface {
	// EventType is the line's "Event" field, e.g. "SparkListenerTaskEnd" or
	// "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart".
	EventType() string
}

// Spark's names for the typed events.
const (
	TypeLogStart                   = "SparkListenerLogStart"
	TypeApplicationStart           = "SparkListenerApplicationStart"
	TypeApplicationEnd             = "SparkListenerApplicationEnd"
	TypeEnvironmentUpdate          = "SparkListenerEnvironmentUpdate"
	TypeResourceProfileAdded       = "SparkListenerResourceProfileAdded"
	TypeExecutorAdded              = "SparkListenerExecutorAdded"
	TypeExecutorRemoved            = "SparkListenerExecutorRemoved"
	TypeBlockManagerAdded          = "SparkListenerBlockManagerAdded"
	TypeBlockManagerRemoved        = "SparkListenerBlockManagerRemoved"
	TypeJobStart                   = "SparkListenerJobStart"
	TypeJobEnd                     = "SparkListenerJobEnd"
	TypeStageSubmitted             = "SparkListenerStageSubmitted"
	TypeStageCompleted             = "SparkListenerStageCompleted"
	TypeTaskStart                  = "SparkListenerTaskStart"
	TypeTaskEnd                    = "SparkListenerTaskEnd"
	TypeStageExecutorMetrics       = "SparkListenerStageExecutorMetrics"
	TypeSQLExecutionStart          = "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart"
	TypeSQLExecutionEnd            = "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd"
	TypeSQLAdaptiveExecutionUpdate = "org.apache.spark.sql.execution.ui.SparkListenerSQLAdaptiveExecutionUpdate"
	TypeDriverAccumUpdates         = "org.apache.spark.sql.execution.ui.SparkListenerDriverAccumUpdates"
	// Executors and nodes excluded for a stage attempt: Spark 3.1 renamed
	// the events and writes both names for each exclusion.
	TypeExecutorExcludedForStage    = "org.apache.spark.scheduler.SparkListenerExecutorExcludedForStage"
	TypeExecutorBlacklistedForStage = "org.apache.spark.scheduler.SparkListenerExecutorBlacklistedForStage"
	TypeNodeExcludedForStage        = "org.apache.spark.scheduler.SparkListenerNodeExcludedForStage"
	TypeNodeBlacklistedForStage     = "org.apache.spark.scheduler.SparkListenerNodeBlacklistedForStage"
	// TypeDatabricksMetadata opens each rolled file of a Databricks log,
	// which has no LogStart: the only place its Spark version is written.
	TypeDatabricksMetadata = "DBCEventLoggingListenerMetadata"
)

// LogStart is the first line of logs written by Spark 1.3 and later.
type LogStart struct {
	SparkVersion string // "Spark Version"
}

// DatabricksMetadata is Databricks' "DBCEventLoggingListenerMetadata", written
// at the start of every rolled file of its event logs.
type DatabricksMetadata struct {
	SparkVersion   string // "Spark Version"
	Timestamp      int64  // epoch ms
	RolloverNumber int    // "Rollover Number"
}

// ApplicationStart names the application. The app id comes from here, not
// from the file name.
type ApplicationStart struct {
	AppName   string // "App Name"
	AppID     string // "App ID" (absent in some very old logs)
	AttemptID string // "App Attempt ID" ("" when the cluster manager has no attempts)
	User      string // "User"
	Timestamp int64  // epoch ms
}

// ApplicationEnd closes a finished application.
type ApplicationEnd struct {
	Timestamp   int64 // epoch ms
	ExitCode    int   // "ExitCode", valid when HasExitCode
	HasExitCode bool
}

// EnvironmentUpdate carries the configuration. Only the maps the analysis
// reads are kept; the classpath and Hadoop properties are skipped.
type EnvironmentUpdate struct {
	JVMInformation   map[string]string // "JVM Information"
	SparkProperties  map[string]string // "Spark Properties"
	SystemProperties map[string]string // "System Properties"
}

// ResourceProfileAdded describes a resource profile (Spark 3.1+).
type ResourceProfileAdded struct {
	ID                int                        // "Resource Profile Id"
	ExecutorResources map[string]ResourceRequest // "Executor Resource Requests", keyed by resource name ("cores", "memory", …)
	TaskResources     map[string]float64         // "Task Resource Requests": resource name → amount (e.g. "cpus" → 1)
}

// ResourceRequest is one executor resource request of a resource profile.
type ResourceRequest struct {
	Amount int64 // "Amount"
}

// ExecutorAdded registers an executor. The driver never has one.
type ExecutorAdded struct {
	Timestamp         int64  // epoch ms
	ExecutorID        string // "Executor ID"
	Host              string // "Executor Info"."Host"
	TotalCores        int    // "Executor Info"."Total Cores"
	ResourceProfileID int    // "Executor Info"."Resource Profile Id" (0 when absent)
}

// ExecutorRemoved ends an executor's life.
type ExecutorRemoved struct {
	Timestamp  int64  // epoch ms
	ExecutorID string // "Executor ID"
	Reason     string // "Removed Reason"
}

// BlockManagerAdded is how the History Server learns of the driver.
type BlockManagerAdded struct {
	Timestamp     int64  // epoch ms
	ExecutorID    string // "Block Manager ID"."Executor ID"
	Host          string // "Block Manager ID"."Host"
	Port          int    // "Block Manager ID"."Port"
	MaxMem        int64  // "Maximum Memory", bytes
	MaxOnHeapMem  int64  // "Maximum Onheap Memory", bytes (0 when absent)
	MaxOffHeapMem int64  // "Maximum Offheap Memory", bytes (0 when absent)
}

// BlockManagerRemoved ends a block manager.
type BlockManagerRemoved struct {
	Timestamp  int64
	ExecutorID string
	Host       string
	Port       int
}

// JobStart submits a job and lists all its stages, including ones that may
// later be skipped.
type JobStart struct {
	JobID          int
	SubmissionTime int64 // epoch ms, 0 when absent
	StageInfos     []StageInfo
	StageIDs       []int
	Properties     map[string]string // e.g. "spark.sql.execution.id", "spark.jobGroup.id"
}

// JobEnd finishes a job.
type JobEnd struct {
	JobID          int
	CompletionTime int64  // epoch ms, 0 when absent
	Result         string // "Job Result"."Result": "JobSucceeded" or "JobFailed"
}

// StageInfo is Spark's "Stage Info" object.
type StageInfo struct {
	StageID           int    // "Stage ID"
	AttemptID         int    // "Stage Attempt ID"
	Name              string // "Stage Name"
	NumTasks          int    // "Number of Tasks"
	ParentIDs         []int  // "Parent IDs"
	Details           string // "Details"
	SubmissionTime    int64  // epoch ms, 0 when absent
	CompletionTime    int64  // epoch ms, 0 when absent
	FailureReason     string // "" when absent
	ResourceProfileID int    // "Resource Profile Id"
	Accumulables      []Accumulable
	SQLUpdates        []SQLUpdate // instead of Accumulables, with Decoder.SQLUpdatesOnly
}

// StageSubmitted starts a stage attempt.
type StageSubmitted struct {
	Stage      StageInfo
	Properties map[string]string
}

// StageCompleted ends a stage attempt (successfully or not).
type StageCompleted struct {
	Stage StageInfo
}

// TaskInfo is Spark's "Task Info" object.
type TaskInfo struct {
	TaskID            int64  // "Task ID"
	Index             int    // "Index"
	Attempt           int    // "Attempt"
	PartitionID       int    // "Partition ID" (-1 when absent, before Spark 3.3)
	LaunchTime        int64  // epoch ms
	ExecutorID        string // string: "driver" in local mode
	Host              string
	Locality          string
	Speculative       bool
	GettingResultTime int64 // epoch ms, 0 when the result was not fetched remotely
	FinishTime        int64 // epoch ms, 0 while running
	Failed            bool
	Killed            bool
	Accumulables      []Accumulable
	SQLUpdates        []SQLUpdate // instead of Accumulables, with Decoder.SQLUpdatesOnly
}

// Accumulable is one entry of an "Accumulables" list. Update and Value hold
// the number when the JSON value is an integer (or a string holding one);
// otherwise Numeric is false and they are zero.
type Accumulable struct {
	ID                int64
	Name              string
	Update            int64
	Value             int64
	HasUpdate         bool
	Numeric           bool
	Internal          bool
	CountFailedValues bool
	Metadata          string // "sql" for SQL plan metrics
}

// SQLUpdate is what a SQL metric's accumulable (Metadata "sql", integer
// values) tells: its update by the task or stage, and its value after it.
type SQLUpdate struct {
	ID        int64
	Update    int64
	Value     int64
	HasUpdate bool
}

// SQLUpdate returns the accumulable as a SQL update, and whether it is one.
func (a *Accumulable) SQLUpdate() (SQLUpdate, bool) {
	if a.Metadata != "sql" || !a.Numeric {
		return SQLUpdate{}, false
	}
	return SQLUpdate{ID: a.ID, Update: a.Update, Value: a.Value, HasUpdate: a.HasUpdate}, true
}

// TaskStart launches a task.
type TaskStart struct {
	StageID        int
	StageAttemptID int
	Task           TaskInfo
}

// TaskEndReason is "Task End Reason".
type TaskEndReason struct {
	Reason      string // "Success", "ExceptionFailure", "TaskKilled", "FetchFailed", "ExecutorLostFailure", "Resubmitted", …
	ClassName   string // ExceptionFailure
	Description string // ExceptionFailure
	KillReason  string // TaskKilled
}

// TaskEnd finishes a task attempt with any end reason.
type TaskEnd struct {
	StageID         int
	StageAttemptID  int
	TaskType        string // "ResultTask" / "ShuffleMapTask"
	Reason          TaskEndReason
	Task            TaskInfo
	ExecutorMetrics []NamedValue // "Task Executor Metrics": peak values; may be shared with other TaskEnds (read-only)
	Metrics         *TaskMetrics // nil when "Task Metrics" is absent
}

// NamedValue is one entry of a name → number map, kept as a slice to avoid
// a map per event.
type NamedValue struct {
	Name  string
	Value int64
}

// TaskMetrics is "Task Metrics". Missing keys (old logs) are zero; the Has*
// flags tell the ones whose absence matters.
type TaskMetrics struct {
	ExecutorDeserializeTime    int64 // ms
	ExecutorDeserializeCPUTime int64 // ns
	ExecutorRunTime            int64 // ms, wall time
	ExecutorCPUTime            int64 // ns
	HasExecutorCPUTime         bool  // false in logs before Spark 2.1
	PeakExecutionMemory        int64 // bytes
	ResultSize                 int64 // bytes
	JVMGCTime                  int64 // ms
	ResultSerializationTime    int64 // ms
	MemoryBytesSpilled         int64 // bytes
	DiskBytesSpilled           int64 // bytes
	ShuffleRead                ShuffleReadMetrics
	ShuffleWrite               ShuffleWriteMetrics
	Input                      InputMetrics
	Output                     OutputMetrics
}

// ShuffleReadMetrics is "Shuffle Read Metrics".
type ShuffleReadMetrics struct {
	RemoteBlocksFetched    int64
	LocalBlocksFetched     int64
	FetchWaitTime          int64 // ms
	RemoteBytesRead        int64
	RemoteBytesReadToDisk  int64
	LocalBytesRead         int64
	TotalRecordsRead       int64
	RemoteRequestsDuration int64 // ms
}

// ShuffleWriteMetrics is "Shuffle Write Metrics".
type ShuffleWriteMetrics struct {
	BytesWritten   int64 // "Shuffle Bytes Written"
	WriteTime      int64 // "Shuffle Write Time", ns
	RecordsWritten int64 // "Shuffle Records Written"
}

// InputMetrics is "Input Metrics".
type InputMetrics struct {
	BytesRead   int64
	RecordsRead int64
}

// OutputMetrics is "Output Metrics".
type OutputMetrics struct {
	BytesWritten   int64
	RecordsWritten int64
}

// StageExecutorMetrics carries an executor's peak metrics for one stage.
type StageExecutorMetrics struct {
	ExecutorID     string
	StageID        int
	StageAttemptID int
	Metrics        []NamedValue // "Executor Metrics"
}

// ExecutorExcludedForStage is an executor the scheduler stopped giving a
// stage attempt's tasks after too many of them failed on it.
type ExecutorExcludedForStage struct {
	Legacy         bool   // written under the pre-3.1 name, ...BlacklistedForStage
	Time           int64  // "time", epoch ms
	ExecutorID     string // "executorId"
	TaskFailures   int    // "taskFailures": tasks of the stage that failed on it
	StageID        int    // "stageId"
	StageAttemptID int    // "stageAttemptId"
}

// NodeExcludedForStage is a host all of whose executors the scheduler
// stopped giving a stage attempt's tasks.
type NodeExcludedForStage struct {
	Legacy           bool   // written under the pre-3.1 name, ...BlacklistedForStage
	Time             int64  // "time", epoch ms
	Host             string // "hostId"
	ExecutorFailures int    // "executorFailures": its executors excluded for the stage
	StageID          int    // "stageId"
	StageAttemptID   int    // "stageAttemptId"
}

// PlanNode is one node of "sparkPlanInfo".
type PlanNode struct {
	NodeName     string
	SimpleString string
	Children     []*PlanNode
	Metadata     map[string]string
	Metrics      []PlanMetric
}

// PlanMetric is one SQL metric of a plan node.
type PlanMetric struct {
	Name          string
	AccumulatorID int64
	MetricType    string // "sum", "size", "timing" (ms), "nsTiming" (ns), "average"
}

// SQLExecutionStart starts a SQL query execution.
type SQLExecutionStart struct {
	ExecutionID             int64
	RootExecutionID         int64 // -1 when absent
	Description             string
	Details                 string
	PhysicalPlanDescription string
	Plan                    *PlanNode
	Time                    int64 // epoch ms
}

// SQLExecutionEnd ends a SQL query execution.
type SQLExecutionEnd struct {
	ExecutionID  int64
	Time         int64 // epoch ms
	ErrorMessage string
}

// SQLAdaptiveExecutionUpdate replaces the plan of an execution under AQE.
type SQLAdaptiveExecutionUpdate struct {
	ExecutionID             int64
	PhysicalPlanDescription string
	Plan                    *PlanNode
}

// DriverAccumUpdates carries SQL metric values computed on the driver.
type DriverAccumUpdates struct {
	ExecutionID int64
	Updates     []AccumUpdate // "accumUpdates": [[id, value], …]
}

// AccumUpdate is one (accumulator id, value) pair.
type AccumUpdate struct {
	ID    int64
	Value int64
}

// Other is any event type the analysis does not need; it is counted and
// skipped without decoding the rest of the line.
type Other struct {
	Type string
}

func (*LogStart) EventType() string                   { return TypeLogStart }
func (*DatabricksMetadata) EventType() string         { return TypeDatabricksMetadata }
func (*ApplicationStart) EventType() string           { return TypeApplicationStart }
func (*ApplicationEnd) EventType() string             { return TypeApplicationEnd }
func (*EnvironmentUpdate) EventType() string          { return TypeEnvironmentUpdate }
func (*ResourceProfileAdded) EventType() string       { return TypeResourceProfileAdded }
func (*ExecutorAdded) EventType() string              { return TypeExecutorAdded }
func (*ExecutorRemoved) EventType() string            { return TypeExecutorRemoved }
func (*BlockManagerAdded) EventType() string          { return TypeBlockManagerAdded }
func (*BlockManagerRemoved) EventType() string        { return TypeBlockManagerRemoved }
func (*JobStart) EventType() string                   { return TypeJobStart }
func (*JobEnd) EventType() string                     { return TypeJobEnd }
func (*StageSubmitted) EventType() string             { return TypeStageSubmitted }
func (*StageCompleted) EventType() string             { return TypeStageCompleted }
func (*TaskStart) EventType() string                  { return TypeTaskStart }
func (*TaskEnd) EventType() string                    { return TypeTaskEnd }
func (*StageExecutorMetrics) EventType() string       { return TypeStageExecutorMetrics }
func (*SQLExecutionStart) EventType() string          { return TypeSQLExecutionStart }
func (*SQLExecutionEnd) EventType() string            { return TypeSQLExecutionEnd }
func (*SQLAdaptiveExecutionUpdate) EventType() string { return TypeSQLAdaptiveExecutionUpdate }
func (*DriverAccumUpdates) EventType() string         { return TypeDriverAccumUpdates }
func (e *ExecutorExcludedForStage) EventType() string {
	if e.Legacy {
		return TypeExecutorBlacklistedForStage
	}
	return TypeExecutorExcludedForStage
}
func (e *NodeExcludedForStage) EventType() string {
	if e.Legacy {
		return TypeNodeBlacklistedForStage
	}
	return TypeNodeExcludedForStage
}
func (o *Other) EventType() string { return o.Type }
