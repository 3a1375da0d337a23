package metricschema

// Families that both the event-log collector and the spark collector emit.
// When both see one application, only the event-log collector's series
// are exported (the spark collector drops every family of [Shared] for a
// claimed application), so each family has one series per application.
// The HELP texts name both sources; the values mean the same thing.
var (
	AppInfo = secApps.New("spark_app_info", Gauge, "1", Labels(AppLabels, Open("spark_version", "user", "attempt_id")),
		"Spark application: 1 per application, its name, Spark version, user and latest attempt id as labels.").AlsoIn(secSpark)
	AppStartTime = secApps.New("spark_app_start_time_seconds", Gauge, "s", AppLabels,
		"Start of the application's latest attempt, seconds since the epoch (SparkListenerApplicationStart; REST attempt startTime).").AlsoIn(secSpark)
	StageActive = secApps.New("spark_stage_active", Gauge, "1", StageLabels,
		"1 for each Spark stage attempt that is running now.").AlsoIn(secSpark)
	ExecutorCores = secExecutors.New("spark_executor_cores", Gauge, "{core}", ExecutorLabels,
		"Cores of a live Spark executor (the driver in local mode).").AlsoIn(secSpark)
	ExecutorActiveTasks = secExecutors.New("spark_executor_active_tasks", Gauge, "{task}", ExecutorLabels,
		"Tasks running now on a Spark executor.").AlsoIn(secSpark)
	ExecutorTaskTime = secExecutors.New("spark_executor_task_time_seconds_total", Counter, "s", Labels(ExecutorLabels, TaskTimeCategory.Label()),
		"Time of the executor's ended tasks by category: cpu, shuffle (fetch wait + write), serde (deserialize CPU + result serialization), gc (JVM GC time, REST totalGCTime), and run (task wall time, launch to finish, REST totalDuration). The spark collector knows only run and gc.").AlsoIn(secSpark)
	ExecutorInputBytes = secExecutors.New("spark_executor_input_bytes_total", Counter, "By", ExecutorLabels,
		"Input bytes read by the executor's ended tasks (REST totalInputBytes).").AlsoIn(secSpark)
	ExecutorShuffleReadBytes = secExecutors.New("spark_executor_shuffle_read_bytes_total", Counter, "By", ExecutorLabels,
		"Shuffle bytes read (remote + local) by the executor's ended tasks (REST totalShuffleRead).").AlsoIn(secSpark)
	ExecutorShuffleWriteBytes = secExecutors.New("spark_executor_shuffle_write_bytes_total", Counter, "By", ExecutorLabels,
		"Shuffle bytes written by the executor's ended tasks (REST totalShuffleWrite).").AlsoIn(secSpark)
)

// Shared lists the families of more than one collector, in documentation
// order.
func Shared() []*Metric {
	var out []*Metric
	emitters := Emitters(Sections())
	for _, m := range All() {
		if len(emitters[m.Name]) > 1 {
			out = append(out, m)
		}
	}
	return out
}
