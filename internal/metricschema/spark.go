package metricschema

// TargetLabels is what every per-target family of the spark collector carries.
var TargetLabels = Open("target")

// CCSparkKey is the sanitized source and name of the ccspark plugin's
// driver gauge, a running total in watt-hours (tvial/ccspark
// CCSparkDriverPlugin: source "plugin.<class>", gauge "energy.total_Wh"),
// which the spark collector exports as [PluginEnergy].
const CCSparkKey = "plugin_io_github_tvial_ccspark_plugin_CCSparkPlugin_energy_total_Wh"

// The spark collector's families (collector spark) other than those it
// shares with the event-log collector (shared.go).
var (
	AppRunning = secSpark.New("spark_app_running", Gauge, "1", AppLabels,
		"Whether the application's latest attempt is still running (1) or completed (0), per the Spark REST API.")
	ExecutorMaxTasks = secSpark.New("spark_executor_max_tasks", Gauge, "{task}", ExecutorLabels,
		"Tasks a live executor can run at once (cores / spark.task.cpus), per the Spark REST API.")
	ExecutorCompletedTasks = secSpark.New("spark_executor_completed_tasks_total", Counter, "{task}", ExecutorLabels,
		"Tasks a live executor has completed, per the Spark REST API.")
	ExecutorFailedTasks = secSpark.New("spark_executor_failed_tasks_total", Counter, "{task}", ExecutorLabels,
		"Tasks that failed on a live executor, per the Spark REST API.")
	ExecutorStorageMemoryUsed = secSpark.New("spark_executor_storage_memory_used_bytes", Gauge, "By", ExecutorLabels,
		"Storage memory in use on a live executor (REST memoryUsed).")
	ExecutorStorageMemoryMax = secSpark.New("spark_executor_storage_memory_max_bytes", Gauge, "By", ExecutorLabels,
		"Storage memory available to a live executor (REST maxMemory).")
	ExecutorDiskUsed = secSpark.New("spark_executor_disk_used_bytes", Gauge, "By", ExecutorLabels,
		"Disk used for cached blocks by a live executor (REST diskUsed).")
	ExecutorPeakMemory = secSpark.New("spark_executor_peak_memory_bytes", Gauge, "By", Labels(ExecutorLabels, Open("area")),
		"Peak memory of a live executor by area, e.g. jvm_heap or on_heap_execution (REST peakMemoryMetrics.<Area>Memory).")
	StageTasks = secSpark.New("spark_stage_tasks", Gauge, "{task}", StageLabels,
		"Tasks of a running stage attempt, per the Spark REST API.")
	StageActiveTasks = secSpark.New("spark_stage_active_tasks", Gauge, "{task}", StageLabels,
		"Tasks of a running stage attempt that run now, per the Spark REST API.")
	StageCompletedTasks = secSpark.New("spark_stage_completed_tasks", Gauge, "{task}", StageLabels,
		"Tasks of a running stage attempt completed so far, per the Spark REST API.")
	StageFailedTasks = secSpark.New("spark_stage_failed_tasks", Gauge, "{task}", StageLabels,
		"Tasks of a running stage attempt failed so far, per the Spark REST API.")
	PluginEnergy = secSpark.New("spark_plugin_energy_total_wh", Gauge, "W.h", AppLabels,
		"Energy used by the application so far, in watt-hours, as estimated by the ccspark plugin (Dropwizard gauge "+CCSparkKey+" on the driver).")
	MetricsSystem = secSpark.NewPattern("spark_metrics_<source>_<name>", "gauge, counter or summary", "", Labels(ExecutorLabels, Open("…")),
		"Spark's metrics system (/metrics/json or PrometheusServlet), one family per registry key: snake_case, counters and meters end in _total, histograms and timers are summaries, units normalised to seconds and bytes; executor_id is driver or the executor id; a listener, queue, scheme or streaming query in the key becomes a label of that name. Families without an executor (master, worker, applications) carry app_id and app_name only. Examples: spark_metrics_executor_metrics_jvm_heap_memory_bytes (gauge), spark_metrics_executor_metrics_total_gc_time_seconds_total and spark_metrics_executor_cpu_time_seconds_total (counters), spark_metrics_dag_scheduler_message_processing_time_seconds (summary).")
	TargetUp = secSpark.New("spark_target_up", Gauge, "1", TargetLabels,
		"Whether the last read of a Spark target (REST API and metrics endpoint) succeeded. With --spark.background-interval the other series of the target come from its last good read.")
	TargetScrapeDuration = secSpark.New("spark_target_scrape_duration_seconds", Gauge, "s", TargetLabels,
		"How long the last read of a Spark target took.")
	TargetScrapeErrors = secSpark.New("spark_target_scrape_errors_total", Counter, "{error}", Labels(TargetLabels, TargetErrorLabel.Label()),
		"Failed reads of a Spark target by reason: timeout, refused, network, redirect, not_found, http_status, html, invalid_body, too_large.")
	TargetsFileLoadSuccess = secSpark.New("spark_targets_file_load_success", Gauge, "1", nil,
		"Whether the last load of --spark.targets-file succeeded (1) or the previous targets are kept (0).")
)
