package eventlog

import (
	"maps"
	"slices"
	"testing"

	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// Every series the collector exports of the real logs, per executor or
// summarised, its workloads' and its own, carries only the labels its
// family declares, closed ones with their declared values.
func TestRealLogsSeriesCarryDeclaredLabels(t *testing.T) {
	dir, _ := mainSetLogs(t)
	for _, mode := range []string{ExecutorMetricsAll, ExecutorMetricsSummary} {
		t.Run(mode, func(t *testing.T) {
			cfg := testConfig(dir)
			cfg.ExecutorMetrics = mode
			w := startWatcher(t, cfg)
			waitReady(t, w)
			mfs := gather(t, w)
			want := []string{"spark_executor_spill_bytes_total"}
			if mode == ExecutorMetricsSummary {
				want = []string{"spark_app_executor_spill_bytes", "spark_app_executor_task_time_seconds"}
			}
			for _, name := range append(want, "spark_app_tasks_total", "spark_stage_task_time_seconds_total", "spark_jobs_total",
				"spark_workload_last_run_value", "spark_workload_runs_total", "sparkglance_eventlog_apps", "sparkglance_eventlog_skipped_total") {
				if len(mfs[name].GetMetric()) == 0 {
					t.Errorf("%s has no series: the check below would not see its labels", name)
				}
			}
			if err := sm.CheckSeries(slices.Collect(maps.Values(mfs))); err != nil {
				t.Error(err)
			}
		})
	}
}
