package metricschema

// The event-log collector's families for running it at scale: sharding
// (--eventlog.shard, --eventlog.total-shards) and the per-application
// executor summaries of --eventlog.executor-metrics=summary, which replace
// the per-executor series for applications with many executors.
var (
	EventlogShardInfo = secReading.New("sparkglance_eventlog_shard_info", Gauge, "1", Open("shard", "total_shards"),
		"Always 1: the shard of the applications this process follows (FNV-1a 64 of the application id from the log's name, modulo total_shards; 0 of 1 when not sharded).")
	EventlogBacklog = secReading.New("sparkglance_eventlog_backlog_logs", Gauge, "{log}", nil,
		"Event logs this process follows that are not read to their end yet (the catch-up after a start, or a shard falling behind).")
	AppExecutorTaskTime = secExecSums.New("spark_app_executor_task_time_seconds", Summary, "s", Labels(AppLabels, TaskTimeCategory.Label()),
		"Task time per executor of the application, by category as spark_executor_task_time_seconds_total, summarised across executors: quantiles 0.5, 0.9 and 1 (the busiest executor), count = executors, sum = the application's total. Exported instead of the per-executor series under --eventlog.executor-metrics=summary.")
	AppExecutorSpillBytes = secExecSums.New("spark_app_executor_spill_bytes", Summary, "By", Labels(AppLabels, SpillMedium.Label()),
		"Bytes spilled per executor, by medium, summarised across executors as spark_app_executor_task_time_seconds (--eventlog.executor-metrics=summary).")
	AppExecutorShuffleReadBytes = secExecSums.New("spark_app_executor_shuffle_read_bytes", Summary, "By", AppLabels,
		"Shuffle bytes read per executor, summarised across executors as spark_app_executor_task_time_seconds (--eventlog.executor-metrics=summary).")
	AppExecutorShuffleWriteBytes = secExecSums.New("spark_app_executor_shuffle_write_bytes", Summary, "By", AppLabels,
		"Shuffle bytes written per executor, summarised across executors as spark_app_executor_task_time_seconds (--eventlog.executor-metrics=summary).")
	AppExecutorInputBytes = secExecSums.New("spark_app_executor_input_bytes", Summary, "By", AppLabels,
		"Input bytes read per executor, summarised across executors as spark_app_executor_task_time_seconds (--eventlog.executor-metrics=summary).")
	AppExecutorOutputBytes = secExecSums.New("spark_app_executor_output_bytes", Summary, "By", AppLabels,
		"Output bytes written per executor, summarised across executors as spark_app_executor_task_time_seconds (--eventlog.executor-metrics=summary).")
)
