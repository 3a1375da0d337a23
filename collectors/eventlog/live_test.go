package eventlog

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/simulate"
)

// liveConfig is the demo application, shortened, with a fresh start time
// so that the wall clock and the log's clock agree.
func liveConfig(appID string) simulate.Config {
	cfg := simulate.DefaultConfig()
	cfg.AppID = appID
	cfg.Start = time.Now()
	return cfg
}

// A log written live (50× real time) is followed as it grows: the
// application shows as running with executors and a lag, its counters never
// go backwards between scrapes, and once it ends the values equal an
// independent analysis of the finished log.
func TestLiveLogFollowed(t *testing.T) {
	dir := t.TempDir()
	w := startWatcher(t, testConfig(dir))
	waitReady(t, w)

	cfg := liveConfig("app-20261130120000-0007")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	var final string
	go func() {
		var err error
		final, err = simulate.Live(ctx, dir, cfg, simulate.LiveOptions{Codec: "zstd", Speed: 50})
		done <- err
	}()

	app := map[string]string{"app_id": cfg.AppID}
	sawRunning, sawStage, sawLag := false, false, false
	prev := map[string]float64{}
	scrapes := 0
	for running := true; running; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("simulate.Live: %v", err)
			}
			running = false
		case <-time.After(100 * time.Millisecond):
		}
		mfs := gather(t, w)
		scrapes++
		if v, _ := series(mfs, "sparkglance_eventlog_apps", map[string]string{"state": "running"}); v == 1 {
			sawRunning = true
		}
		if _, ok := series(mfs, "spark_stage_active", app); ok {
			sawStage = true
		}
		if v, ok := series(mfs, "sparkglance_eventlog_lag_seconds", app); ok && v >= 0 && v < 60 {
			sawLag = true
		}
		for _, name := range []string{"spark_app_core_seconds_total", "spark_app_tasks_total", "spark_executor_task_time_seconds_total"} {
			for _, status := range []string{"", "success"} {
				labels := app
				if status != "" {
					labels = merge(app, "status", status)
				}
				v := sumSeries(mfs, name, labels)
				key := name + status
				if v < prev[key] {
					t.Errorf("%s went backwards: %v after %v", key, v, prev[key])
				}
				prev[key] = v
			}
		}
	}
	t.Logf("%d scrapes while the log grew", scrapes)
	if !sawRunning || !sawStage || !sawLag {
		t.Errorf("while live: running=%v, stage_active=%v, lag=%v; want all", sawRunning, sawStage, sawLag)
	}

	waitFor(t, 10*time.Second, "application seen finished", func() bool {
		v, _ := series(gather(t, w), "sparkglance_eventlog_apps", map[string]string{"state": "finished"})
		return v == 1
	})
	mfs := gather(t, w)
	r := referenceReport(t, final, 10*time.Second)
	if filepath.Ext(final) != ".zstd" {
		t.Errorf("final log %s, want the .zstd name after the rename", final)
	}
	for _, c := range []valueCheck{
		{"spark_app_core_seconds_total", app, r.Totals.AvailableCoreSecs, false},
		{"spark_executor_task_time_seconds_total", merge(app, "category", "cpu"), r.Totals.CPUSeconds, true},
		{"spark_executor_spill_bytes_total", merge(app, "medium", "disk"), r.Totals.DiskBytesSpill, true},
		{"spark_app_end_time_seconds", app, float64(r.End) / 1e3, false},
		{"spark_app_cores", app, 0, false},
		{"spark_app_finding", merge(app, "kind", "skewed_spill"), 1, true},
	} {
		got := sumSeries(mfs, c.metric, c.labels)
		if !near(got, c.want) {
			t.Errorf("%s%v = %v, independent analysis says %v", c.metric, c.labels, got, c.want)
		}
	}
	if _, ok := series(mfs, "sparkglance_eventlog_lag_seconds", app); ok {
		t.Error("lag still exported after the application ended")
	}
}
