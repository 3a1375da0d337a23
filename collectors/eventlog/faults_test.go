package eventlog

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/simulate"
)

// writeLog writes a whole simulated log at once (Speed 0), unfinished if
// live, and returns its path.
func writeLog(t *testing.T, dir, appID string, start time.Time, live bool, codec string) string {
	t.Helper()
	cfg := simulate.DefaultConfig()
	cfg.AppID, cfg.Start, cfg.Live = appID, start, live
	cfg.TasksPerStage = 32
	p, err := simulate.Live(context.Background(), dir, cfg, simulate.LiveOptions{Codec: codec})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func errorsFor(w *Watcher, reason string) float64 {
	w.stats.mu.Lock()
	defer w.stats.mu.Unlock()
	return w.stats.errors[reason]
}

func exported(t *testing.T, w *Watcher, appID string) bool {
	// A directory away makes Update fail while it still serves what it holds.
	_, ok := series(gatherWith(t, w, func(error) {}), "spark_app_info", map[string]string{"app_id": appID})
	return ok
}

// Faults never stop the collector: each is counted, the other logs go on.
func TestFaults(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "logs")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// A log that stopped growing ten minutes of app time ago.
	writeLog(t, dir, "app-20261130150000-0001", time.Now().Add(-10*time.Minute), true, "plain")
	doomed := writeLog(t, dir, "app-20261130150000-0002", time.Now().Add(-time.Minute), true, "plain")
	// A corrupt zstd frame in the middle of a finished log.
	corrupt := writeLog(t, dir, "app-20261130150000-0003", time.Now().Add(-time.Hour), false, "zstd")
	data, err := os.ReadFile(corrupt)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(data) / 2; i < len(data)/2+64; i++ {
		data[i] ^= 0x5a
	}
	if err := os.WriteFile(corrupt, data, 0o644); err != nil {
		t.Fatal(err)
	}
	// An unreadable file: root reads through chmod 000, so a symlink to
	// nothing stands in for it (both fail at open).
	if err := os.Symlink(filepath.Join(root, "nowhere"), filepath.Join(dir, "app-20261130150000-0004")); err != nil {
		t.Fatal(err)
	}
	clock := newTestClock(time.Now())
	w := startWatcherAt(t, testConfig(dir), clock)
	waitReady(t, w)

	mfs := gather(t, w)
	for _, id := range []string{"app-20261130150000-0001", "app-20261130150000-0002", "app-20261130150000-0003"} {
		if _, ok := series(mfs, "spark_app_info", map[string]string{"app_id": id}); !ok {
			t.Errorf("%s not exported", id)
		}
	}
	if errorsFor(w, "corrupt-data") < 1 {
		t.Errorf("corrupt block not counted: %v", w.stats.errors)
	}
	if errorsFor(w, "open-failed") != 1 {
		t.Errorf("unreadable log counted %v times, want once", errorsFor(w, "open-failed"))
	}

	// The stale log's lag is its age and grows with the clock, second for second.
	lag1, ok := series(mfs, "sparkglance_eventlog_lag_seconds", map[string]string{"app_id": "app-20261130150000-0001"})
	if !ok || lag1 < 6*60 || lag1 > 10*60 {
		t.Errorf("lag of a log 10 min old whose app ran ~3 min = %v s (present %v)", lag1, ok)
	}
	clock.Advance(1100 * time.Millisecond)
	lag2, _ := series(gather(t, w), "sparkglance_eventlog_lag_seconds", map[string]string{"app_id": "app-20261130150000-0001"})
	if math.Abs(lag2-lag1-1.1) > 1e-9 {
		t.Errorf("lag went from %v to %v over 1.1 s of the clock, want %v", lag1, lag2, lag1+1.1)
	}

	// A log deleted while followed: its series go, the others stay.
	if err := os.Remove(doomed); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "deleted log dropped", func() bool { return !exported(t, w, "app-20261130150000-0002") })
	if errorsFor(w, "log-vanished") != 1 {
		t.Errorf("log-vanished = %v, want 1", errorsFor(w, "log-vanished"))
	}

	// The directory vanishes: applications are kept and the error counted
	// once; it comes back with a new log, which is picked up.
	away := filepath.Join(root, "away")
	if err := os.Rename(dir, away); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "vanished directory counted", func() bool { return errorsFor(w, "dir-unreadable") == 1 })
	waitScans(t, w, 3) // scans while it is away
	if !exported(t, w, "app-20261130150000-0001") {
		t.Error("applications dropped while their directory is away")
	}
	if errorsFor(w, "dir-unreadable") != 1 {
		t.Errorf("dir-unreadable = %v, want 1 (counted once per outage)", errorsFor(w, "dir-unreadable"))
	}
	if err := os.Rename(away, dir); err != nil {
		t.Fatal(err)
	}
	writeLog(t, dir, "app-20261130150000-0005", time.Now(), false, "plain")
	waitFor(t, 5*time.Second, "log added after the directory came back", func() bool { return exported(t, w, "app-20261130150000-0005") })
	if !exported(t, w, "app-20261130150000-0001") || !exported(t, w, "app-20261130150000-0003") {
		t.Error("applications lost after the directory came back")
	}
}

// chmod 000 only stops a non-root reader.
func TestUnreadableFileAsNonRoot(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root, which reads any file: TestFaults covers an unopenable log with a dangling symlink")
	}
	dir := t.TempDir()
	p := writeLog(t, dir, "app-20261130160000-0001", time.Now(), false, "plain")
	if err := os.Chmod(p, 0); err != nil {
		t.Fatal(err)
	}
	w := startWatcher(t, testConfig(dir))
	waitReady(t, w)
	if errorsFor(w, "open-failed") != 1 {
		t.Errorf("open-failed = %v, want 1", errorsFor(w, "open-failed"))
	}
}
