package eventlog

import (
	"os"
	"testing"
	"time"
)

// A finished log older than the retention is not even read; a fresh one is
// exported and its series disappear once the retention has passed.
func TestRetention(t *testing.T) {
	dir := t.TempDir()
	old := writeLog(t, dir, "app-20261130170000-0001", time.Now().Add(-3*time.Hour), false, "plain")
	longAgo := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(old, longAgo, longAgo); err != nil {
		t.Fatal(err)
	}
	fresh := writeLog(t, dir, "app-20261130170000-0002", time.Now(), false, "plain")
	cfg := testConfig(dir)
	cfg.Retention = time.Hour
	w := startWatcher(t, cfg)
	waitReady(t, w)
	if exported(t, w, "app-20261130170000-0001") {
		t.Error("finished log older than the retention exported")
	}
	if !exported(t, w, "app-20261130170000-0002") {
		t.Fatal("fresh finished log not exported")
	}
	oneLog := w.stats.events.Load()

	cfg.Retention = 300 * time.Millisecond
	// Written just now again: the first watcher may have taken longer
	// than the short retention (the race detector slows it).
	if now := time.Now(); os.Chtimes(fresh, now, now) != nil {
		t.Fatal("cannot touch the fresh log")
	}
	w2 := startWatcher(t, cfg)
	waitReady(t, w2)
	if got := w2.stats.events.Load(); got != oneLog {
		t.Errorf("with a 300 ms retention %d events were read, want %d (only the fresh log)", got, oneLog)
	}
	waitFor(t, 5*time.Second, "fresh log dropped after the retention", func() bool {
		return !exported(t, w2, "app-20261130170000-0002")
	})
	if v, _ := series(gather(t, w2), "sparkglance_eventlog_apps", map[string]string{"state": "finished"}); v != 0 {
		t.Errorf("finished applications after the retention = %v, want 0", v)
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
