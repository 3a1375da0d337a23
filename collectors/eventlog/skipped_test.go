package eventlog

import (
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// The retention counts from the application's end, not from the file's
// modification time: a History Server directory copied without keeping
// mtimes does not bring back applications that ended hours ago. Such logs
// and logs untouched for longer than the retention are counted in
// sparkglance_eventlog_skipped_total{reason="retention"}, logged once with
// their count and the flag that changes it, and not read again.
func TestRetentionCountsFromApplicationEnd(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	// Ended about 3 h ago, but the file was just written.
	writeLog(t, dir, "app-20261130190000-0001", start.Add(-3*time.Hour), false, "plain")
	// Untouched for 2 h.
	stale := writeLog(t, dir, "app-20261130190000-0002", start.Add(-3*time.Hour), false, "plain")
	longAgo := start.Add(-2 * time.Hour)
	if err := os.Chtimes(stale, longAgo, longAgo); err != nil {
		t.Fatal(err)
	}
	// Ended just now.
	writeLog(t, dir, "app-20261130190000-0003", start.Add(-5*time.Minute), false, "plain")

	var logs testkit.SyncBuffer
	cfg := testConfig(dir)
	cfg.Retention = time.Hour
	w, err := New(cfg, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	w.now = newTestClock(start).Now
	runWatcher(t, w)
	waitReady(t, w)
	waitFor(t, 10*time.Second, "both old logs counted as skipped for the retention", func() bool {
		v, _ := series(gather(t, w), "sparkglance_eventlog_skipped_total", map[string]string{"reason": "retention"})
		return v == 2
	})
	if exported(t, w, "app-20261130190000-0001") || exported(t, w, "app-20261130190000-0002") {
		t.Error("an application that ended more than the retention ago is exported")
	}
	if !exported(t, w, "app-20261130190000-0003") {
		t.Error("the application that ended 5 minutes ago (retention 1 h) is not exported")
	}
	if v, ok := series(gather(t, w), "sparkglance_eventlog_skipped_total", map[string]string{"reason": "max-apps"}); !ok || v != 0 {
		t.Errorf("skipped_total{reason=max-apps} = %v (present %v), want 0 from the start", v, ok)
	}
	// Later scans neither read the dropped log again nor count it again.
	events := w.stats.events.Load()
	waitScans(t, w, 10)
	if got := w.stats.events.Load(); got != events {
		t.Errorf("%d events read after the old log was dropped, want none", got-events)
	}
	if v, _ := series(gather(t, w), "sparkglance_eventlog_skipped_total", map[string]string{"reason": "retention"}); v != 2 {
		t.Errorf("skipped_total{reason=retention} = %v after more scans, want 2", v)
	}
	out := logs.String()
	if n := strings.Count(out, "--eventlog.retention"); n < 1 || n > 2 {
		t.Errorf("the skip is logged %d times, want once or twice (one message per scan that skipped logs):\n%s", n, out)
	}
	if !strings.Contains(out, "skipped_total=2") {
		t.Errorf("no message gives the count of skipped logs:\n%s", out)
	}
}
