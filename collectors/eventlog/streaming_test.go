package eventlog

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/simulate"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// A simulated streaming application's queries in a scrape: counters,
// latest-batch gauges, the lags, and the finding of the slow query.
func TestStreamingSeriesSimulated(t *testing.T) {
	dir := t.TempDir()
	cfg := simulate.DefaultConfig()
	cfg.Executors, cfg.CoresPerExecutor, cfg.TasksPerStage, cfg.StreamingBatches = 2, 2, 8, 10
	writeSimulatedFile(t, filepath.Join(dir, cfg.AppID), cfg)
	w := startWatcher(t, testConfig(dir))
	waitReady(t, w)
	mfs := gather(t, w)
	ref := referenceReport(t, filepath.Join(dir, cfg.AppID), testConfig(dir).Interval)
	if len(ref.Streaming) != 2 {
		t.Fatalf("reference analysis: %d queries", len(ref.Streaming))
	}
	for _, q := range ref.Streaming {
		l := map[string]string{"app_id": cfg.AppID, "query_id": q.ID, "query_name": q.Name}
		b := q.Last
		for name, want := range map[string]float64{
			"spark_streaming_batches_total": 10, "spark_streaming_input_rows_total": float64(q.InputRows),
			"spark_streaming_batch_duration_seconds": b.DurationSeconds, "spark_streaming_trigger_interval_seconds": simulate.StreamingTrigger.Seconds(),
			"spark_streaming_input_rows_per_second": *b.InputRowsPerSecond, "spark_streaming_processed_rows_per_second": *b.ProcessedRowsPerSecond,
			"spark_streaming_state_rows": float64(b.StateRows), "spark_streaming_state_memory_bytes": float64(b.StateMemoryBytes),
			"spark_streaming_watermark_lag_seconds": *b.WatermarkLagSeconds, "spark_streaming_source_offset_lag": *b.OffsetLag,
			"spark_streaming_behind_batches": float64(q.BehindStreak),
		} {
			if got, ok := series(mfs, name, l); !ok || !near(got, want) {
				t.Errorf("%s %s: %v (present %v), want %v", q.Name, name, got, ok, want)
			}
		}
		for phase, ms := range b.DurationMs {
			if got, ok := series(mfs, "spark_streaming_batch_phase_seconds", map[string]string{"query_id": q.ID, "phase": phase}); !ok || !near(got, float64(ms)/1e3) {
				t.Errorf("%s phase %s: %v (present %v), want %v ms", q.Name, phase, got, ok, ms)
			}
		}
	}
	if got, _ := series(mfs, "spark_streaming_behind_batches", map[string]string{"query_name": simulate.StreamingSlowQuery}); got != 7 {
		t.Errorf("slow query behind %v batches, want 7 (batches 3–9)", got)
	}
	if got, ok := series(mfs, "spark_app_finding", map[string]string{"app_id": cfg.AppID, "kind": analysis.KindStreamingFallingBehind}); !ok || got != 1 {
		t.Errorf("finding series %v (present %v)", got, ok)
	}
}

// The real log's last batch (7), values read by hand from its JSON:
// batchDuration 341, addBatch 271, numRowsTotal 1, memoryUsedBytes 1184,
// inputRowsPerSecond 101.69491525423729, processedRowsPerSecond
// 105.57184750733137; no watermark, no latestOffset, no trigger property.
func TestStreamingSeriesRealLog(t *testing.T) {
	src := testkit.Events(t, "extra/apache-spark/sql-core-spark-events/local-1596020211915")
	dir := t.TempDir()
	if err := os.Symlink(src, filepath.Join(dir, filepath.Base(src))); err != nil {
		t.Fatal(err)
	}
	w := startWatcher(t, testConfig(dir))
	waitReady(t, w)
	mfs := gather(t, w)
	l := map[string]string{"app_id": "local-1596020211915", "query_id": "8d268dc2-bc9c-4be8-97a9-b135d2943028", "query_name": ""}
	for name, want := range map[string]float64{
		"spark_streaming_batches_total": 8, "spark_streaming_input_rows_total": 641, "spark_streaming_batch_duration_seconds": 0.341,
		"spark_streaming_state_rows": 1, "spark_streaming_state_memory_bytes": 1184,
		"spark_streaming_input_rows_per_second": 101.69491525423729, "spark_streaming_processed_rows_per_second": 105.57184750733137,
		"spark_streaming_behind_batches": 0,
	} {
		if got, ok := series(mfs, name, l); !ok || got != want {
			t.Errorf("%s: %v (present %v), want %v", name, got, ok, want)
		}
	}
	if got, _ := series(mfs, "spark_streaming_batch_phase_seconds", map[string]string{"phase": "addBatch"}); got != 0.271 {
		t.Errorf("addBatch %v, want 0.271", got)
	}
	for _, absent := range []string{"spark_streaming_watermark_lag_seconds", "spark_streaming_source_offset_lag", "spark_streaming_trigger_interval_seconds"} {
		if mf := mfs[absent]; mf != nil {
			t.Errorf("%s present although the log has no value: %v", absent, mf)
		}
	}
}
