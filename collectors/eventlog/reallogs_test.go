package eventlog

import (
	"path/filepath"
	"testing"
	"time"
)

// Every real log of Spark's History Server test directory is exported with
// the values an independent analysis of the same log gives.
func TestRealLogsMatchIndependentAnalysis(t *testing.T) {
	dir, names := mainSetLogs(t)
	w := startWatcher(t, testConfig(dir))
	waitReady(t, w)
	mfs := gather(t, w)

	// 18 files, 16 applications: two apps have two attempt files each and
	// only the later attempt is exported.
	if got := len(mfs["spark_app_info"].GetMetric()); got != 16 {
		t.Errorf("spark_app_info has %d series, want 16 (one per application id)", got)
	}
	if v, _ := series(mfs, "sparkglance_eventlog_apps", map[string]string{"state": "finished"}); v != 18 {
		t.Errorf("finished attempts = %v, want 18", v)
	}
	if v, _ := series(mfs, "sparkglance_eventlog_events_total", nil); v != 1192 {
		t.Errorf("events_total = %v, want 1192 (README: 1192 lines, none malformed)", v)
	}
	if v, _ := series(mfs, "sparkglance_eventlog_bytes_read_total", nil); v != 1851327 {
		t.Errorf("bytes_read_total = %v, want 1851327 (README total)", v)
	}

	checked := 0
	for _, name := range names {
		r := referenceReport(t, filepath.Join(dir, name), 10*time.Second)
		app := map[string]string{"app_id": r.AppID, "app_name": r.AppName}
		info, ok := series(mfs, "spark_app_info", map[string]string{"app_id": r.AppID, "attempt_id": r.AttemptID})
		if !ok {
			if name == "local-1426533911241" || name == "local-1430917381535_1" {
				continue // first attempts, superseded by the second
			}
			t.Errorf("%s: no spark_app_info for %s attempt %q", name, r.AppID, r.AttemptID)
			continue
		}
		checked++
		if info != 1 {
			t.Errorf("%s: spark_app_info = %v", name, info)
		}
		checks := []valueCheck{
			{"spark_app_start_time_seconds", app, float64(r.Start) / 1e3, false},
			{"spark_app_end_time_seconds", app, float64(r.End) / 1e3, false},
			{"spark_app_core_seconds_total", app, r.Totals.AvailableCoreSecs, false},
			{"spark_app_cores", app, 0, false},
			{"spark_executor_task_time_seconds_total", merge(app, "category", "cpu"), r.Totals.CPUSeconds, true},
			{"spark_executor_task_time_seconds_total", merge(app, "category", "gc"), r.Totals.GCSeconds, true},
			{"spark_executor_task_time_seconds_total", merge(app, "category", "serde"), r.Totals.SerdeSeconds, true},
			{"spark_executor_task_time_seconds_total", merge(app, "category", "shuffle"), r.Totals.ShuffleSeconds, true},
			{"spark_executor_task_time_seconds_total", merge(app, "category", "run"), r.Totals.TaskSeconds, true},
			{"spark_executor_spill_bytes_total", merge(app, "medium", "memory"), r.Totals.MemoryBytesSpill, true},
		}
		var success, failed, killed, input float64
		for _, st := range r.Stages {
			success += float64(st.NumCompleteTasks)
			failed += float64(st.NumFailedTasks)
			killed += float64(st.NumKilledTasks)
			input += float64(st.InputBytes)
		}
		checks = append(checks,
			valueCheck{"spark_app_tasks_total", merge(app, "status", "success"), success, false},
			valueCheck{"spark_app_tasks_total", merge(app, "status", "failed"), failed, false},
			valueCheck{"spark_app_tasks_total", merge(app, "status", "killed"), killed, false},
			valueCheck{"spark_executor_input_bytes_total", app, input, true},
		)
		if n := len(r.Intervals); n > 0 {
			last := r.Intervals[n-1]
			checks = append(checks,
				valueCheck{"spark_app_interval_efficiency", app, last.Efficiency, false},
				valueCheck{"spark_app_interval_start_time_seconds", app, float64(last.Start) / 1e3, false},
			)
		}
		for _, c := range checks {
			var got float64
			if c.sum {
				got = sumSeries(mfs, c.metric, c.labels)
			} else {
				var ok bool
				if got, ok = series(mfs, c.metric, c.labels); !ok {
					t.Errorf("%s: %s%v missing", name, c.metric, c.labels)
					continue
				}
			}
			if !near(got, c.want) {
				t.Errorf("%s: %s%v = %v, independent analysis says %v", name, c.metric, c.labels, got, c.want)
			}
		}
	}
	if checked != 16 {
		t.Errorf("checked %d applications, want 16", checked)
	}
}

// valueCheck is one expected value: of a series, or of the sum of the
// series matching labels.
type valueCheck struct {
	metric string
	labels map[string]string
	want   float64
	sum    bool
}

func merge(base map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}
