package metricschema

// StreamingLabels identify one Structured Streaming query of an
// application (at most --streaming.max-queries per application).
var StreamingLabels = Labels(AppLabels, Open("query_id", "query_name"))

// The event-log collector's Structured Streaming families: the latest
// batch of each query as gauges, its running totals as counters.
var (
	StreamingBatches = secStreaming.New("spark_streaming_batches_total", Counter, "{batch}", StreamingLabels,
		"Micro-batches the query reported progress for (QueryProgressEvent).")
	StreamingInputRows = secStreaming.New("spark_streaming_input_rows_total", Counter, "{row}", StreamingLabels,
		"Input rows of the query's batches, over all its sources.")
	StreamingBatchDuration = secStreaming.New("spark_streaming_batch_duration_seconds", Gauge, "s", StreamingLabels,
		"Wall time of the query's latest batch (batchDuration, else durationMs.triggerExecution).")
	StreamingBatchPhase = secStreaming.New("spark_streaming_batch_phase_seconds", Gauge, "s", Labels(StreamingLabels, Open("phase")),
		"Time of the latest batch by phase, as Spark's durationMs names them: addBatch, getBatch, latestOffset, queryPlanning, walCommit, triggerExecution (the whole), …")
	StreamingTriggerInterval = secStreaming.New("spark_streaming_trigger_interval_seconds", Gauge, "s", StreamingLabels,
		"The query's processing-time trigger interval, when the application gives it (Spark property spark.sparkglance.streaming.triggerInterval[.<query name>]); absent otherwise.")
	StreamingInputRate = secStreaming.New("spark_streaming_input_rows_per_second", Gauge, "{row}/s", StreamingLabels,
		"Rate at which rows arrived for the latest batch, summed over sources; absent when Spark reported none (a first batch).")
	StreamingProcessedRate = secStreaming.New("spark_streaming_processed_rows_per_second", Gauge, "{row}/s", StreamingLabels,
		"Rate at which the latest batch processed its rows, summed over sources; below the input rate the query falls behind.")
	StreamingStateRows = secStreaming.New("spark_streaming_state_rows", Gauge, "{row}", StreamingLabels,
		"Rows held in the query's state stores after the latest batch (stateOperators numRowsTotal, summed).")
	StreamingStateMemory = secStreaming.New("spark_streaming_state_memory_bytes", Gauge, "By", StreamingLabels,
		"Memory used by the query's state stores after the latest batch (stateOperators memoryUsedBytes, summed).")
	StreamingWatermarkLag = secStreaming.New("spark_streaming_watermark_lag_seconds", Gauge, "s", StreamingLabels,
		"The latest batch's trigger time minus its event-time watermark; absent for queries without a watermark.")
	StreamingOffsetLag = secStreaming.New("spark_streaming_source_offset_lag", Gauge, "{offset}", StreamingLabels,
		"Offsets available but not yet read after the latest batch (latestOffset minus endOffset, summed over sources and partitions whose offsets are numbers, e.g. Kafka); absent when no source reports both.")
	StreamingBehindBatches = secStreaming.New("spark_streaming_behind_batches", Gauge, "{batch}", StreamingLabels,
		"Consecutive latest batches that fell behind (processed rate below input rate, or longer than the trigger interval); 0 when the latest kept up.")
)
