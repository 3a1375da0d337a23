package eventlog

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// simulatedHalves returns a finished simulated log's lines split in two.
func simulatedHalves(t *testing.T, appID string) (first, second []byte) {
	t.Helper()
	data, err := os.ReadFile(writeSimulatedLog(t, t.TempDir(), appID, false))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	return bytes.Join(lines[:len(lines)/2], nil), bytes.Join(lines[len(lines)/2:], nil)
}

// atLine is the end of the line around len(b)/n.
func atLine(b []byte, n int) int { return bytes.LastIndexByte(b[:len(b)/n], '\n') + 1 }

func appendFile(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// A live log truncated mid-follow and written again from its start is read
// again as a new generation of the same application: its counters restart
// and then match an analysis of the new content, and it finishes.
func TestShrunkLiveLogReadAgain(t *testing.T) {
	const appID = "app-20261130090000-0011"
	first, second := simulatedHalves(t, appID)
	dir := t.TempDir()
	live := filepath.Join(dir, appID+".inprogress")
	appendFile(t, live, first)
	appendFile(t, live, second[:atLine(second, 2)])
	w := startWatcher(t, testConfig(dir))
	waitReady(t, w)
	waitFor(t, 10*time.Second, "the application is seen", func() bool {
		_, ok := series(gather(t, w), "spark_app_info", map[string]string{"app_id": appID})
		return ok
	})
	before, _ := series(gather(t, w), "spark_app_tasks_total", map[string]string{"app_id": appID, "status": "success"})

	// Rewritten from the start: shorter than what was read, then growing.
	if err := os.Truncate(live, 0); err != nil {
		t.Fatal(err)
	}
	third := atLine(first, 3)
	appendFile(t, live, first[:third])
	waitFor(t, 10*time.Second, "the rewrite is noticed", func() bool {
		v, _ := series(gather(t, w), "sparkglance_eventlog_errors_total", map[string]string{"reason": "log-rewritten"})
		return v == 1
	})
	appendFile(t, live, first[third:])
	appendFile(t, live, second)
	if err := os.Rename(live, filepath.Join(dir, appID)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the application finishes", func() bool {
		v, _ := series(gather(t, w), "sparkglance_eventlog_apps", map[string]string{"state": "finished"})
		return v == 1
	})
	mfs := gather(t, w)
	ref := referenceReport(t, filepath.Join(dir, appID), testConfig().Interval)
	got, _ := series(mfs, "spark_app_core_seconds_total", map[string]string{"app_id": appID})
	if !near(got, ref.Totals.AvailableCoreSecs) {
		t.Errorf("core seconds %v after the rewrite, an analysis of the log says %v (generations mixed?)", got, ref.Totals.AvailableCoreSecs)
	}
	after, _ := series(mfs, "spark_app_tasks_total", map[string]string{"app_id": appID, "status": "success"})
	var want float64
	for _, st := range ref.Stages {
		want += float64(st.NumCompleteTasks)
	}
	if after != want || before == 0 {
		t.Errorf("successful tasks: %v before the rewrite, %v after, want %v after", before, after, want)
	}
	if v, _ := series(mfs, "sparkglance_eventlog_apps", map[string]string{"state": "running"}); v != 0 {
		t.Errorf("%v applications still running", v)
	}
}

// A live log replaced by another application's log is followed as that
// application; the first ends and stays until the retention drops it.
func TestLiveLogReplacedByAnotherApplication(t *testing.T) {
	const oldID, newID = "app-20261130090000-0021", "app-20261130090000-0022"
	oldFirst, _ := simulatedHalves(t, oldID)
	newFirst, newSecond := simulatedHalves(t, newID)
	dir := t.TempDir()
	live := filepath.Join(dir, "driver-log.inprogress")
	appendFile(t, live, oldFirst)
	w := startWatcher(t, testConfig(dir))
	waitReady(t, w)
	waitFor(t, 10*time.Second, "the first application runs", func() bool {
		_, ok := series(gather(t, w), "spark_app_info", map[string]string{"app_id": oldID})
		return ok
	})
	// Replaced the way tools replace files: a new file renamed over it.
	tmp := filepath.Join(t.TempDir(), "next")
	appendFile(t, tmp, newFirst)
	if err := os.Rename(tmp, live); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the second application is followed", func() bool {
		_, ok := series(gather(t, w), "spark_app_info", map[string]string{"app_id": newID})
		return ok
	})
	appendFile(t, live, newSecond)
	waitFor(t, 10*time.Second, "the second application reads to its end", func() bool {
		_, ok := series(gather(t, w), "spark_app_end_time_seconds", map[string]string{"app_id": newID})
		return ok
	})
	mfs := gather(t, w)
	if _, ok := series(mfs, "spark_app_info", map[string]string{"app_id": oldID}); !ok {
		t.Errorf("the replaced application vanished before its retention")
	}
	if _, ok := series(mfs, "sparkglance_eventlog_lag_seconds", map[string]string{"app_id": oldID}); ok {
		t.Errorf("the replaced application is still taken as running")
	}
	if v, _ := series(mfs, "sparkglance_eventlog_apps", map[string]string{"state": "running"}); v != 1 {
		t.Errorf("%v running applications, want 1 (the live second one)", v)
	}
}

// A second file claiming an application attempt another log already shows
// is counted and logged as a duplicate and never replaces the first's
// series, whatever order the scrapes meet the two in.
func TestDuplicateAttemptKeepsFirstLog(t *testing.T) {
	const appID = "app-20261130090000-0031"
	dir := t.TempDir()
	writeSimulatedLog(t, dir, appID, false, "name of "+appID, "first")
	w := startWatcher(t, testConfig(dir))
	waitReady(t, w)
	waitFor(t, 10*time.Second, "the first log is read", func() bool {
		_, ok := series(gather(t, w), "spark_app_info", map[string]string{"app_id": appID})
		return ok
	})
	data, err := os.ReadFile(filepath.Join(dir, appID))
	if err != nil {
		t.Fatal(err)
	}
	dup := bytes.ReplaceAll(data, []byte(`"first"`), []byte(`"second"`))
	if err := os.WriteFile(filepath.Join(dir, "copy-of-"+appID), dup, 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the duplicate is counted", func() bool {
		v, _ := series(gather(t, w), "sparkglance_eventlog_errors_total", map[string]string{"reason": "duplicate-app"})
		return v == 1
	})
	for range 20 {
		mfs := gather(t, w)
		if _, ok := series(mfs, "spark_app_info", map[string]string{"app_id": appID, "app_name": "first"}); !ok {
			t.Fatalf("the first log's series were replaced")
		}
		if _, ok := series(mfs, "spark_app_info", map[string]string{"app_name": "second"}); ok {
			t.Fatalf("the duplicate's series are exported")
		}
		if v, _ := series(mfs, "sparkglance_eventlog_errors_total", map[string]string{"reason": "duplicate-app"}); v != 1 {
			t.Fatalf("duplicate counted %v times, want once", v)
		}
		if v, _ := series(mfs, "sparkglance_eventlog_skipped_total", map[string]string{"reason": "duplicate-app"}); v != 1 {
			t.Fatalf("duplicate counted %v times as skipped, want once", v)
		}
	}
}

// A finished log (no .inprogress) that appears before its writer is done —
// copied into the directory with cp, say — is read again once it has grown,
// so the application is shown whole rather than cut where the copy stood.
func TestFinishedLogReadAgainWhenItGrows(t *testing.T) {
	const appID = "app-20261130090000-0051"
	first, second := simulatedHalves(t, appID)
	dir := t.TempDir()
	path := filepath.Join(dir, appID)
	appendFile(t, path, first)
	w := startWatcher(t, testConfig(dir))
	waitReady(t, w)
	waitFor(t, 10*time.Second, "the first half is read", func() bool {
		_, ok := series(gather(t, w), "spark_app_info", map[string]string{"app_id": appID})
		return ok
	})
	if _, ok := series(gather(t, w), "spark_app_end_time_seconds", map[string]string{"app_id": appID}); ok {
		t.Fatal("the first half already has the application's end")
	}
	appendFile(t, path, second)
	waitFor(t, 10*time.Second, "the whole log is read: the application's end is shown", func() bool {
		_, ok := series(gather(t, w), "spark_app_end_time_seconds", map[string]string{"app_id": appID})
		return ok
	})
	if v, _ := series(gather(t, w), "sparkglance_eventlog_errors_total", map[string]string{"reason": "log-rewritten"}); v != 1 {
		t.Errorf("log-rewritten counted %v times, want 1", v)
	}
}
