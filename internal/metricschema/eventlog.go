package metricschema

// The event-log collector's families (collector eventlog) other than those
// it shares with the spark collector (shared.go).
var (
	AppEndTime = secApps.New("spark_app_end_time_seconds", Gauge, "s", AppLabels,
		"Application end (SparkListenerApplicationEnd), seconds since the epoch; absent while the application runs.")
	AppCores = secApps.New("spark_app_cores", Gauge, "{core}", AppLabels,
		"Executor cores available now (the driver's cores in local mode; 0 once the application ended).")
	AppCoreSeconds = secApps.New("spark_app_core_seconds_total", Counter, "s", AppLabels,
		"Core-seconds made available by executors since the application started (cores × time alive).")
	AppActiveTasks = secApps.New("spark_app_active_tasks", Gauge, "{task}", AppLabels,
		"Tasks running now (sum of spark_executor_active_tasks).")
	AppTasks = secApps.New("spark_app_tasks_total", Counter, "{task}", Labels(AppLabels, TaskStatusLabel.Label()),
		"Tasks ended, by status: success, failed or killed (as the History Server counts them per stage).")
	AppIntervalEfficiency = secApps.New("spark_app_interval_efficiency", Gauge, "1", AppLabels,
		"CPU efficiency of the latest published interval: executor CPU time over available core time (ratio). Computed in the background; an interval is published once settled or after --eventlog.settle-timeout.")
	AppIntervalTimeRatio = secApps.New("spark_app_interval_time_ratio", Gauge, "1", Labels(AppLabels, IntervalCategory.Label()),
		"Share of the latest published interval's available core time spent in cpu, shuffle (fetch wait + write), serde (deserialize CPU + result serialization) or gc (ratio).")
	AppIntervalStartTime = secApps.New("spark_app_interval_start_time_seconds", Gauge, "s", AppLabels,
		"Start of the latest published interval, seconds since the epoch.")
	AppSettledTaskSeconds = secApps.New("spark_app_settled_task_seconds_total", Counter, "s", Labels(AppLabels, IntervalCategory.Label()),
		"Task time of the application's settled intervals, by category: cpu, shuffle, serde or gc (as spark_app_interval_time_ratio); advances by each interval's exact values when it settles, so increase() over any range counts every interval once.")
	AppSettledCoreSeconds = secApps.New("spark_app_settled_core_seconds_total", Counter, "s", AppLabels,
		"Available core-seconds of the application's settled intervals; the share of a category over a range is increase(spark_app_settled_task_seconds_total) over increase(this).")
	AppFinding = secApps.New("spark_app_finding", Gauge, "1", Labels(AppLabels, FindingKindLabel.Label(), Open("stage_id", "executor_id")),
		"1 while the analysis reports a finding of this kind (stage_id and executor_id are empty when the finding has none).")
	ExecutorSpillBytes = secExecutors.New("spark_executor_spill_bytes_total", Counter, "By", Labels(ExecutorLabels, SpillMedium.Label()),
		"Bytes spilled by the executor's ended tasks, by medium: memory (deserialized size) or disk (serialized size).")
	ExecutorIntervalSpillBytes = secExecutors.New("spark_executor_interval_spill_bytes", Gauge, "By", Labels(ExecutorLabels, SpillMedium.Label()),
		"Bytes the executor spilled within the latest published interval (tasks' spill spread over their run time), by medium.")
	ExecutorSettledSpillBytes = secExecutors.New("spark_executor_settled_spill_bytes_total", Counter, "By", Labels(ExecutorLabels, SpillMedium.Label()),
		"Bytes the executor spilled within the application's settled intervals (tasks' spill spread over their run time), by medium; advances by each interval's values when it settles.")
	ExecutorOutputBytes = secExecutors.New("spark_executor_output_bytes_total", Counter, "By", ExecutorLabels,
		"Output bytes written by the executor's ended tasks.")
	SQLExecutions = secApps.New("spark_sql_executions_total", Counter, "{execution}", Labels(AppLabels, SQLStatusLabel.Label()),
		"SQL query executions seen, by status: running, completed or failed.")
	SQLExecutionDuration = secApps.New("spark_sql_execution_duration_seconds", Summary, "s", AppLabels,
		"Duration of the application's finished SQL executions (start to end), with quantiles.")
	SQLOperatorTime = secApps.New("spark_sql_operator_time_seconds_total", Counter, "s", Labels(AppLabels, Open("operator")),
		"Exclusive time of SQL plan operators, summed over the application's executions, by operator name (the --sql.max-operators with the most time; the rest summed as other).")
	SQLOperatorSpillBytes = secApps.New("spark_sql_operator_spill_bytes_total", Counter, "By", Labels(AppLabels, Open("operator")),
		"Bytes spilled by SQL plan operators, by operator name (bounded as spark_sql_operator_time_seconds_total).")
	SQLOperatorPeakMemoryBytes = secApps.New("spark_sql_operator_peak_memory_bytes", Gauge, "By", Labels(AppLabels, Open("operator")),
		"Largest peak memory of an SQL plan operator of this name in the application's executions.")
	EventlogApps = secReading.New("sparkglance_eventlog_apps", Gauge, "{application}", AppStateLabel.Label(),
		"Application attempts followed by the event-log collector, by state: running or finished (kept for --eventlog.retention).")
	EventlogBytesRead = secReading.New("sparkglance_eventlog_bytes_read_total", Counter, "By", nil,
		"Event-log bytes read as stored (compressed).")
	EventlogEvents = secReading.New("sparkglance_eventlog_events_total", Counter, "{event}", nil,
		"Event-log lines decoded into events.")
	EventlogErrors = secReading.New("sparkglance_eventlog_errors_total", Counter, "{error}", EventlogErrorLabel.Label(),
		"Problems met while reading event logs, by reason (a damage kind of the reader, or open-failed, dir-unreadable, log-vanished, log-rewritten, duplicate-app, max-apps).")
	EventlogSkipped = secReading.New("sparkglance_eventlog_skipped_total", Counter, "{log}", SkipReasonLabel.Label(),
		"Event logs not shown, each counted once, by reason: retention (the application ended longer ago than --eventlog.retention), max-apps (--eventlog.max-apps applications held already) or duplicate-app (another log admitted earlier shows the same application attempt, App ID and attempt ID; the first is kept).")
	EventlogObjectRequests = secReading.New("sparkglance_eventlog_object_requests_total", Counter, "{request}", Labels(ObjectOpLabel.Label(), ObjectResultLabel.Label()),
		"Requests sent to object stores for event logs (s3://, gs://, abfss://… locations), retries included, by op (list, stat, get, other) and result (ok, not_found, denied, throttled: HTTP 429 or 503 SlowDown, backed off; error).")
	EventlogLag = secReading.New("sparkglance_eventlog_lag_seconds", Gauge, "s", AppLabels,
		"Age of the newest event processed, per running application (wall clock now minus the event's timestamp).")
)
