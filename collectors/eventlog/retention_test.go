package eventlog

import (
	"os"
	"testing"
	"time"
)

// A finished log older than the retention is not even read; a fresh one is
// exported and its series disappear once the retention has passed. The
// watchers run on a test clock, so a slow machine changes nothing.
func TestRetention(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	old := writeLog(t, dir, "app-20261130170000-0001", start.Add(-3*time.Hour), false, "plain")
	longAgo := start.Add(-2 * time.Hour)
	if err := os.Chtimes(old, longAgo, longAgo); err != nil {
		t.Fatal(err)
	}
	writeLog(t, dir, "app-20261130170000-0002", start, false, "plain")
	cfg := testConfig(dir)
	cfg.Retention = time.Hour
	w := startWatcherAt(t, cfg, newTestClock(start))
	waitReady(t, w)
	if exported(t, w, "app-20261130170000-0001") {
		t.Error("finished log older than the retention exported")
	}
	if !exported(t, w, "app-20261130170000-0002") {
		t.Fatal("fresh finished log not exported")
	}
	oneLog := w.stats.events.Load()

	// A second watcher, whose clock moves past the fresh application's
	// end (the simulated application lasts less than a day) plus the
	// retention once it has read the log.
	clock := newTestClock(start)
	w2 := startWatcherAt(t, cfg, clock)
	waitReady(t, w2)
	if got := w2.stats.events.Load(); got != oneLog {
		t.Errorf("%d events were read, want %d (only the fresh log)", got, oneLog)
	}
	waitScans(t, w2, 2)
	if !exported(t, w2, "app-20261130170000-0002") {
		t.Fatal("fresh log dropped before the retention passed")
	}
	clock.Advance(cfg.Retention + 24*time.Hour)
	waitFor(t, 20*time.Second, "fresh log dropped after the retention", func() bool {
		w2.requestScan()
		return !exported(t, w2, "app-20261130170000-0002")
	})
	if v, _ := series(gather(t, w2), "sparkglance_eventlog_apps", map[string]string{"state": "finished"}); v != 0 {
		t.Errorf("finished applications after the retention = %v, want 0", v)
	}
	if v, _ := series(gather(t, w2), "sparkglance_eventlog_skipped_total", map[string]string{"reason": "retention"}); v != 1 {
		t.Errorf("skipped_total{reason=retention} = %v, want 1 (the old log only: the fresh one was shown for its retention)", v)
	}
}

// --eventlog.max-apps keeps the newest finished logs.
func TestMaxAppsKeepsNewest(t *testing.T) {
	dir := t.TempDir()
	for i, id := range []string{"app-20261130180000-0001", "app-20261130180000-0002", "app-20261130180000-0003"} {
		p := writeLog(t, dir, id, time.Now().Add(-time.Hour), false, "plain")
		m := time.Now().Add(time.Duration(i-3) * time.Minute)
		if err := os.Chtimes(p, m, m); err != nil {
			t.Fatal(err)
		}
	}
	cfg := testConfig(dir)
	cfg.MaxApps = 2
	w := startWatcher(t, cfg)
	waitReady(t, w)
	for id, want := range map[string]bool{"app-20261130180000-0001": false, "app-20261130180000-0002": true, "app-20261130180000-0003": true} {
		if got := exported(t, w, id); got != want {
			t.Errorf("%s exported = %v, want %v", id, got, want)
		}
	}
	if errorsFor(w, "max-apps") < 1 {
		t.Error("the log left out for max-apps is not counted")
	}
	if v, _ := series(gather(t, w), "sparkglance_eventlog_skipped_total", map[string]string{"reason": "max-apps"}); v != 1 {
		t.Errorf("skipped_total{reason=max-apps} = %v, want 1", v)
	}
}
