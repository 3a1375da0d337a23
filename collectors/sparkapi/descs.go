package sparkapi

import "github.com/prometheus/client_golang/prometheus"

var (
	appLabels      = []string{"app_id", "app_name"}
	executorLabels = []string{"app_id", "app_name", "executor_id"}
	stageLabels    = []string{"app_id", "app_name", "stage_id", "attempt_id"}
	targetLabels   = []string{"target"}
)

func newDesc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, labels, nil)
}

// Descriptors shared with the event-log collector: reuse these values so
// that name, HELP and labels agree exactly (Prometheus' registry rejects a
// family whose HELP differs between collectors).
var (
	AppInfoDesc = newDesc("spark_app_info",
		"Spark application: 1 per application, its name, Spark version and user as labels.",
		"app_id", "app_name", "spark_version", "spark_user")
	ExecutorCoresDesc = newDesc("spark_executor_cores",
		"Cores of a live Spark executor (the driver in local mode).", executorLabels...)
	ExecutorActiveTasksDesc = newDesc("spark_executor_active_tasks",
		"Tasks running now on a Spark executor.", executorLabels...)
	StageActiveDesc = newDesc("spark_stage_active",
		"1 for each Spark stage attempt that is running now.", stageLabels...)
)

// Series only this collector emits, from the REST API.
var (
	appRunningDesc = newDesc("spark_app_running",
		"Whether the application's latest attempt is still running (1) or completed (0), per the Spark REST API.", appLabels...)
	appStartDesc = newDesc("spark_app_start_time_seconds",
		"Start of the application's latest attempt, Unix time, per the Spark REST API.", appLabels...)
	executorMaxTasksDesc = newDesc("spark_executor_max_tasks",
		"Tasks a live executor can run at once (cores / spark.task.cpus), per the Spark REST API.", executorLabels...)
	executorCompletedDesc = newDesc("spark_executor_completed_tasks_total",
		"Tasks a live executor has completed, per the Spark REST API.", executorLabels...)
	executorFailedDesc = newDesc("spark_executor_failed_tasks_total",
		"Tasks that failed on a live executor, per the Spark REST API.", executorLabels...)
	executorTaskTimeDesc = newDesc("spark_executor_task_time_seconds_total",
		"Wall time of a live executor's tasks, launch to finish (REST totalDuration, ms converted to seconds).", executorLabels...)
	executorGCTimeDesc = newDesc("spark_executor_gc_time_seconds_total",
		"JVM GC time during a live executor's tasks (REST totalGCTime, ms converted to seconds).", executorLabels...)
	executorInputDesc = newDesc("spark_executor_input_bytes_total",
		"Bytes a live executor's tasks read as input (REST totalInputBytes).", executorLabels...)
	executorShuffleReadDesc = newDesc("spark_executor_shuffle_read_bytes_total",
		"Shuffle bytes a live executor's tasks read, local plus remote (REST totalShuffleRead).", executorLabels...)
	executorShuffleWriteDesc = newDesc("spark_executor_shuffle_write_bytes_total",
		"Shuffle bytes a live executor's tasks wrote (REST totalShuffleWrite).", executorLabels...)
	executorStorageUsedDesc = newDesc("spark_executor_storage_memory_used_bytes",
		"Storage memory in use on a live executor (REST memoryUsed).", executorLabels...)
	executorStorageMaxDesc = newDesc("spark_executor_storage_memory_max_bytes",
		"Storage memory available to a live executor (REST maxMemory).", executorLabels...)
	executorDiskUsedDesc = newDesc("spark_executor_disk_used_bytes",
		"Disk used for cached blocks by a live executor (REST diskUsed).", executorLabels...)
	executorPeakMemoryDesc = newDesc("spark_executor_peak_memory_bytes",
		"Peak memory of a live executor by area, e.g. jvm_heap or on_heap_execution (REST peakMemoryMetrics.<Area>Memory).",
		"app_id", "app_name", "executor_id", "area")
	stageTasksDesc = newDesc("spark_stage_tasks",
		"Tasks of a running stage attempt, per the Spark REST API.", stageLabels...)
	stageActiveTasksDesc = newDesc("spark_stage_active_tasks",
		"Tasks of a running stage attempt that run now, per the Spark REST API.", stageLabels...)
	stageCompletedTasksDesc = newDesc("spark_stage_completed_tasks",
		"Tasks of a running stage attempt completed so far, per the Spark REST API.", stageLabels...)
	stageFailedTasksDesc = newDesc("spark_stage_failed_tasks",
		"Tasks of a running stage attempt failed so far, per the Spark REST API.", stageLabels...)
)

// Per-target health.
var (
	targetUpDesc = newDesc("spark_target_up",
		"Whether the last read of a Spark target (REST API and metrics endpoint) succeeded. With --spark.background-interval the other series of the target come from its last good read.",
		targetLabels...)
	targetDurationDesc = newDesc("spark_target_scrape_duration_seconds",
		"How long the last read of a Spark target took.", targetLabels...)
	targetErrorsDesc = newDesc("spark_target_scrape_errors_total",
		"Failed reads of a Spark target by reason: timeout, refused, network, redirect, not_found, http_status, html, invalid_body, too_large.",
		"target", "reason")
	targetsFileDesc = newDesc("spark_targets_file_load_success",
		"Whether the last load of --spark.targets-file succeeded (1) or the previous targets are kept (0).")
)
