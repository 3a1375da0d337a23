//lint:file-ignore SA1019 the classic dashboard schema (v1), as glance.go explains.

package dashboards

import (
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

// streamingRow adds the Structured Streaming row: per query, the latest
// batch's duration against the trigger interval, input against processed
// rows per second (the falling-behind signal), where batch time goes, the
// backlog (offset and watermark lag) and the state.
func streamingRow(b *dashboard.DashboardBuilder, n *ids) *dashboard.DashboardBuilder {
	return b.WithRow(dashboard.NewRowBuilder("Structured Streaming").Id(n.id())).
		WithPanel(series(n, "Batch duration vs trigger interval", "s", 12,
			query("A", `spark_streaming_batch_duration_seconds`+sel(app), "{{query_name}} {{query_id}} batch"),
			query("B", `spark_streaming_trigger_interval_seconds`+sel(app), "{{query_name}} {{query_id}} trigger")).
			Description("Wall time of each query's latest batch; above its trigger interval the query falls behind. The trigger shows when the application sets spark.sparkglance.streaming.triggerInterval.")).
		WithPanel(series(n, "Input vs processed rows per second", "short", 12,
			query("A", `spark_streaming_input_rows_per_second`+sel(app), "{{query_name}} {{query_id}} input"),
			query("B", `spark_streaming_processed_rows_per_second`+sel(app), "{{query_name}} {{query_id}} processed")).
			Description("Processed below input, batch after batch, is a growing backlog (the streaming_falling_behind finding).")).
		WithPanel(stacked(series(n, "Latest batch by phase", "s", 8,
			query("A", `spark_streaming_batch_phase_seconds`+sel(app, `phase!="triggerExecution"`), "{{query_name}} {{phase}}"))).
			Description("Spark's durationMs of each query's latest batch: addBatch is the query's own work, latestOffset and getBatch the source, walCommit the checkpoint.")).
		WithPanel(series(n, "Backlog", "short", 8,
			query("A", `spark_streaming_source_offset_lag`+sel(app), "{{query_name}} offsets not read"),
			query("B", `spark_streaming_behind_batches`+sel(app), "{{query_name}} batches behind in a row")).
			Description("Offsets available but not yet read (Kafka-like sources) and consecutive batches that fell behind.")).
		WithPanel(series(n, "Watermark lag", "s", 8,
			query("A", `spark_streaming_watermark_lag_seconds`+sel(app), "{{query_name}}")).
			Description("Trigger time minus the event-time watermark of each query's latest batch.")).
		WithPanel(series(n, "State rows", "short", 12,
			query("A", `spark_streaming_state_rows`+sel(app), "{{query_name}}"))).
		WithPanel(series(n, "State memory", "bytes", 12,
			query("A", `spark_streaming_state_memory_bytes`+sel(app), "{{query_name}}")))
}
