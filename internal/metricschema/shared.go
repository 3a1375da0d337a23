package metricschema

// Label sets every per-application, per-executor and per-stage-attempt
// series of the Spark collectors starts with.
var (
	AppLabels      = []string{"app_id", "app_name"}
	ExecutorLabels = []string{"app_id", "app_name", "executor_id"}
	StageLabels    = []string{"app_id", "app_name", "stage_id", "attempt_id"}
)

// Families that both the event-log collector and the spark collector emit.
// When both see one application, only the event-log collector's series
// are exported (the spark collector drops every family of [Shared] for a
// claimed application), so each family has one series per application.
// The HELP texts name both sources; the values mean the same thing.
var (
	AppInfo = New("spark_app_info", Gauge, "1", Labels(AppLabels, []string{"spark_version", "user", "attempt_id"}),
		"Spark application: 1 per application, its name, Spark version, user and latest attempt id as labels.")
	AppStartTime = New("spark_app_start_time_seconds", Gauge, "s", AppLabels,
		"Start of the application's latest attempt, seconds since the epoch (SparkListenerApplicationStart; REST attempt startTime).")
	StageActive = New("spark_stage_active", Gauge, "1", StageLabels,
		"1 for each Spark stage attempt that is running now.")
	ExecutorCores = New("spark_executor_cores", Gauge, "{core}", ExecutorLabels,
		"Cores of a live Spark executor (the driver in local mode).")
	ExecutorActiveTasks = New("spark_executor_active_tasks", Gauge, "{task}", ExecutorLabels,
		"Tasks running now on a Spark executor.")
	ExecutorTaskTime = New("spark_executor_task_time_seconds_total", Counter, "s", Labels(ExecutorLabels, []string{"category"}),
		"Time of the executor's ended tasks by category: cpu, shuffle (fetch wait + write), serde (deserialize CPU + result serialization), gc (JVM GC time, REST totalGCTime), and run (task wall time, launch to finish, REST totalDuration). The spark collector knows only run and gc.")
	ExecutorInputBytes = New("spark_executor_input_bytes_total", Counter, "By", ExecutorLabels,
		"Input bytes read by the executor's ended tasks (REST totalInputBytes).")
	ExecutorShuffleReadBytes = New("spark_executor_shuffle_read_bytes_total", Counter, "By", ExecutorLabels,
		"Shuffle bytes read (remote + local) by the executor's ended tasks (REST totalShuffleRead).")
	ExecutorShuffleWriteBytes = New("spark_executor_shuffle_write_bytes_total", Counter, "By", ExecutorLabels,
		"Shuffle bytes written by the executor's ended tasks (REST totalShuffleWrite).")
)

// Shared lists the families of more than one collector.
func Shared() []*Metric {
	return []*Metric{AppInfo, AppStartTime, StageActive, ExecutorCores, ExecutorActiveTasks,
		ExecutorTaskTime, ExecutorInputBytes, ExecutorShuffleReadBytes, ExecutorShuffleWriteBytes}
}
