package spark

import sm "github.com/sparkglance/sparkglance/internal/metricschema"

var (
	appLabels      = sm.AppLabels
	executorLabels = sm.ExecutorLabels
	stageLabels    = sm.StageLabels
	targetLabels   = []string{"target"}
)

// Families the event-log collector emits too: the one definition lives in
// package metricschema, so that name, type, HELP and labels agree exactly
// (Prometheus' registry rejects a family whose HELP differs between
// collectors). Kept under these names for callers of this package.
var (
	AppInfoDesc             = sm.AppInfo.Desc()
	ExecutorCoresDesc       = sm.ExecutorCores.Desc()
	ExecutorActiveTasksDesc = sm.ExecutorActiveTasks.Desc()
	StageActiveDesc         = sm.StageActive.Desc()
)

// Series only this collector emits, from the REST API.
var (
	appRunning = sm.New("spark_app_running", sm.Gauge, "1", appLabels,
		"Whether the application's latest attempt is still running (1) or completed (0), per the Spark REST API.")
	executorMaxTasks = sm.New("spark_executor_max_tasks", sm.Gauge, "{task}", executorLabels,
		"Tasks a live executor can run at once (cores / spark.task.cpus), per the Spark REST API.")
	executorCompleted = sm.New("spark_executor_completed_tasks_total", sm.Counter, "{task}", executorLabels,
		"Tasks a live executor has completed, per the Spark REST API.")
	executorFailed = sm.New("spark_executor_failed_tasks_total", sm.Counter, "{task}", executorLabels,
		"Tasks that failed on a live executor, per the Spark REST API.")
	executorStorageUsed = sm.New("spark_executor_storage_memory_used_bytes", sm.Gauge, "By", executorLabels,
		"Storage memory in use on a live executor (REST memoryUsed).")
	executorStorageMax = sm.New("spark_executor_storage_memory_max_bytes", sm.Gauge, "By", executorLabels,
		"Storage memory available to a live executor (REST maxMemory).")
	executorDiskUsed = sm.New("spark_executor_disk_used_bytes", sm.Gauge, "By", executorLabels,
		"Disk used for cached blocks by a live executor (REST diskUsed).")
	executorPeakMemory = sm.New("spark_executor_peak_memory_bytes", sm.Gauge, "By", sm.Labels(executorLabels, []string{"area"}),
		"Peak memory of a live executor by area, e.g. jvm_heap or on_heap_execution (REST peakMemoryMetrics.<Area>Memory).")
	stageTasks = sm.New("spark_stage_tasks", sm.Gauge, "{task}", stageLabels,
		"Tasks of a running stage attempt, per the Spark REST API.")
	stageActiveTasks = sm.New("spark_stage_active_tasks", sm.Gauge, "{task}", stageLabels,
		"Tasks of a running stage attempt that run now, per the Spark REST API.")
	stageCompletedTasks = sm.New("spark_stage_completed_tasks", sm.Gauge, "{task}", stageLabels,
		"Tasks of a running stage attempt completed so far, per the Spark REST API.")
	stageFailedTasks = sm.New("spark_stage_failed_tasks", sm.Gauge, "{task}", stageLabels,
		"Tasks of a running stage attempt failed so far, per the Spark REST API.")
)

// Metrics-system families: the ccspark gauge has a fixed name, the others
// are named from Spark's registry keys at run time (see describe).
var (
	pluginEnergy = sm.New("spark_plugin_energy_total_wh", sm.Gauge, "W.h", appLabels,
		"Energy used by the application so far, in watt-hours, as estimated by the ccspark plugin (Dropwizard gauge "+ccsparkKey+" on the driver).")
	metricsSystem = sm.NewPattern("spark_metrics_<source>_<name>", "gauge, counter or summary", "", sm.Labels(executorLabels, []string{"…"}),
		"Spark's metrics system (/metrics/json or PrometheusServlet), one family per registry key: snake_case, counters and meters end in _total, histograms and timers are summaries, units normalised to seconds and bytes; executor_id is driver or the executor id; a listener, queue, scheme or streaming query in the key becomes a label of that name. Families without an executor (master, worker, applications) carry app_id and app_name only. Examples: spark_metrics_executor_metrics_jvm_heap_memory_bytes (gauge), spark_metrics_executor_metrics_total_gc_time_seconds_total and spark_metrics_executor_cpu_time_seconds_total (counters), spark_metrics_dag_scheduler_message_processing_time_seconds (summary).")
)

// Per-target health.
var (
	targetUp = sm.New("spark_target_up", sm.Gauge, "1", targetLabels,
		"Whether the last read of a Spark target (REST API and metrics endpoint) succeeded. With --spark.background-interval the other series of the target come from its last good read.")
	targetDuration = sm.New("spark_target_scrape_duration_seconds", sm.Gauge, "s", targetLabels,
		"How long the last read of a Spark target took.")
	targetErrors = sm.New("spark_target_scrape_errors_total", sm.Counter, "{error}", sm.Labels(targetLabels, []string{"reason"}),
		"Failed reads of a Spark target by reason: timeout, refused, network, redirect, not_found, http_status, html, invalid_body, too_large.")
	targetsFile = sm.New("spark_targets_file_load_success", sm.Gauge, "1", nil,
		"Whether the last load of --spark.targets-file succeeded (1) or the previous targets are kept (0).")
)

// Metrics lists every family of the spark collector in documentation
// order, the shared ones first.
func Metrics() []*sm.Metric {
	return append(sm.Shared(),
		appRunning, executorMaxTasks, executorCompleted, executorFailed,
		executorStorageUsed, executorStorageMax, executorDiskUsed, executorPeakMemory,
		stageTasks, stageActiveTasks, stageCompletedTasks, stageFailedTasks,
		pluginEnergy, metricsSystem,
		targetUp, targetDuration, targetErrors, targetsFile)
}

// emit is a shorthand for a definition's descriptor and value type.
func (e *emitter) emit(m *sm.Metric, v float64, lvs ...string) {
	e.send(m.Desc(), m.ValueType(), v, lvs...)
}
