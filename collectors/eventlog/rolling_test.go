package eventlog

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A live rolling log is followed from the moment its directory appears,
// in the order Spark writes it: the directory, the appstatus marker, the
// first events file, the second, then the marker renamed on finish. Both
// with file-system notifications and with polling alone.
func TestRollingLogFollowedAsSparkStartsIt(t *testing.T) {
	for _, mode := range []struct {
		name     string
		pollOnly bool
	}{{"fsnotify", false}, {"polling", true}} {
		t.Run(mode.name, func(t *testing.T) {
			const appID = "app-20261130090000-0007"
			src := t.TempDir()
			data, err := os.ReadFile(writeSimulatedLog(t, src, appID, false))
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.SplitAfter(data, []byte("\n"))
			half := len(lines) / 2
			part1, part2 := bytes.Join(lines[:half], nil), bytes.Join(lines[half:], nil)

			dir := t.TempDir()
			cfg := testConfig(dir)
			w, err := New(cfg, testLogger(t))
			if err != nil {
				t.Fatal(err)
			}
			w.pollOnly = mode.pollOnly
			runWatcher(t, w)
			waitReady(t, w)

			rolling := filepath.Join(dir, "eventlog_v2_"+appID)
			marker := filepath.Join(rolling, "appstatus_"+appID+".inprogress")
			write := func(path string, b []byte) {
				t.Helper()
				if err := os.WriteFile(path, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Mkdir(rolling, 0o755); err != nil {
				t.Fatal(err)
			}
			waitFor(t, 5*time.Second, "the empty directory is followed", func() bool {
				return len(w.snapshot()) == 1
			})
			write(marker, nil)
			write(filepath.Join(rolling, "events_1_"+appID), part1)
			waitFor(t, 8*time.Second, "the application runs after its first events file", func() bool {
				v, _ := series(gather(t, w), "sparkglance_eventlog_apps", map[string]string{"state": "running"})
				return v == 1
			})
			write(filepath.Join(rolling, "events_2_"+appID), part2)
			if err := os.Rename(marker, filepath.Join(rolling, "appstatus_"+appID)); err != nil {
				t.Fatal(err)
			}
			waitFor(t, 8*time.Second, "the application is finished with every event read", func() bool {
				v, _ := series(gather(t, w), "sparkglance_eventlog_apps", map[string]string{"state": "finished"})
				return v == 1
			})
			mfs := gather(t, w)
			ref := referenceReport(t, filepath.Join(src, appID), cfg.Interval)
			if v, ok := series(mfs, "spark_app_core_seconds_total", map[string]string{"app_id": appID}); !ok || !near(v, ref.Totals.AvailableCoreSecs) {
				t.Errorf("core seconds %v (present %v), an analysis of the whole log says %v", v, ok, ref.Totals.AvailableCoreSecs)
			}
			if _, ok := series(mfs, "spark_app_end_time_seconds", map[string]string{"app_id": appID}); !ok {
				t.Errorf("no end time: the second events file was not read")
			}
			if n := sumSeries(mfs, "sparkglance_eventlog_errors_total", nil); n != 0 {
				t.Errorf("%v errors counted for a log written as Spark writes it", n)
			}
		})
	}
}
