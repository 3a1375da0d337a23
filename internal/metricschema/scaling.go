package metricschema

// The event-log collector's families for running it at scale: sharding
// (--eventlog.shard, --eventlog.total-shards) and the per-application
// executor summaries of --eventlog.executor-metrics=summary, which replace
// the per-executor series for applications with many executors.
var (
	EventlogShardInfo = New("sparkglance_eventlog_shard_info", Gauge, "1", []string{"shard", "total_shards"},
		"Always 1: the shard of the applications this process follows (FNV-1a 64 of the application id from the log's name, modulo total_shards; 0 of 1 when not sharded).")
	EventlogBacklog = New("sparkglance_eventlog_backlog_logs", Gauge, "{log}", nil,
		"Event logs this process follows that are not read to their end yet (the catch-up after a start, or a shard falling behind).")
	AppExecutorTaskTime = New("spark_app_executor_task_time_seconds", Summary, "s", Labels(AppLabels, []string{"category"}),
		"Task time per executor of the application, by category as spark_executor_task_time_seconds_total, summarised across executors: quantiles 0.5, 0.9 and 1 (the busiest executor), count = executors, sum = the application's total. Exported instead of the per-executor series under --eventlog.executor-metrics=summary.")
	AppExecutorSpillBytes = New("spark_app_executor_spill_bytes", Summary, "By", Labels(AppLabels, []string{"medium"}),
		"Bytes spilled per executor, by medium, summarised across executors as spark_app_executor_task_time_seconds (--eventlog.executor-metrics=summary).")
	AppExecutorShuffleReadBytes = New("spark_app_executor_shuffle_read_bytes", Summary, "By", AppLabels,
		"Shuffle bytes read per executor, summarised across executors as spark_app_executor_task_time_seconds (--eventlog.executor-metrics=summary).")
	AppExecutorShuffleWriteBytes = New("spark_app_executor_shuffle_write_bytes", Summary, "By", AppLabels,
		"Shuffle bytes written per executor, summarised across executors as spark_app_executor_task_time_seconds (--eventlog.executor-metrics=summary).")
	AppExecutorInputBytes = New("spark_app_executor_input_bytes", Summary, "By", AppLabels,
		"Input bytes read per executor, summarised across executors as spark_app_executor_task_time_seconds (--eventlog.executor-metrics=summary).")
	AppExecutorOutputBytes = New("spark_app_executor_output_bytes", Summary, "By", AppLabels,
		"Output bytes written per executor, summarised across executors as spark_app_executor_task_time_seconds (--eventlog.executor-metrics=summary).")
)
