package eventlog

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/internal/analysis"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
	"github.com/sparkglance/sparkglance/internal/sparklog"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// testLogger discards unless -v.
func testLogger(t testing.TB) *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(tbWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

type tbWriter struct{ t testing.TB }

func (w tbWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// testConfig watches dirs with fast polling and a retention long enough
// for logs copied years ago.
func testConfig(dirs ...string) Config {
	c := DefaultConfig()
	c.Dirs = dirs
	c.PollInterval = 50 * time.Millisecond
	c.Retention = 1e6 * time.Hour
	c.FollowExternalLinks = true // the tests link the shared logs in instead of copying them
	return c
}

// startWatcher runs a watcher until the test ends.
func startWatcher(t testing.TB, cfg Config) *Watcher {
	t.Helper()
	w, err := New(cfg, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	runWatcher(t, w)
	return w
}

// runWatcher runs w until the test ends.
func runWatcher(t testing.TB, w *Watcher) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := w.Run(ctx); err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("watcher did not stop within 10 s")
		}
	})
}

// waitFor polls cond every 20 ms for at most d.
func waitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("not within %v: %s", d, what)
}

func waitReady(t testing.TB, w *Watcher) {
	t.Helper()
	waitFor(t, 2*time.Minute, "watcher ready", func() bool { return w.Ready() == nil })
}

// gather runs one scrape of w through the exporter's registry path (the
// one of every format but text, and of OTLP).
func gather(t testing.TB, w *Watcher) map[string]*dto.MetricFamily {
	t.Helper()
	return gatherWith(t, w, func(err error) { t.Errorf("Families: %v", err) })
}

// gatherWith is gather handing Families' error (the collector's failure,
// its families still served) to onErr. Every test that scrapes checks that
// each series carries only the labels and closed values the schema
// declares for its family.
func gatherWith(t testing.TB, w *Watcher, onErr func(error)) map[string]*dto.MetricFamily {
	t.Helper()
	fs, err := w.Families(context.Background())
	if err != nil {
		onErr(err)
	}
	mfs, err := exporter.GatherFamilies(fs)
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	if err := sm.CheckSeries(mfs); err != nil {
		t.Error(err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, mf := range mfs {
		out[mf.GetName()] = mf
	}
	return out
}

// series finds one series' value by its label values (others ignored);
// ok is false when absent.
func series(mfs map[string]*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
	mf := mfs[name]
	if mf == nil {
		return 0, false
	}
next:
	for _, m := range mf.GetMetric() {
		have := map[string]string{}
		for _, lp := range m.GetLabel() {
			have[lp.GetName()] = lp.GetValue()
		}
		for k, v := range labels {
			if have[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue(), true
		case m.Gauge != nil:
			return m.GetGauge().GetValue(), true
		}
	}
	return 0, false
}

// sumSeries adds the values of every series matching labels.
func sumSeries(mfs map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	var sum float64
	mf := mfs[name]
	if mf == nil {
		return 0
	}
next:
	for _, m := range mf.GetMetric() {
		for _, lp := range m.GetLabel() {
			if v, ok := labels[lp.GetName()]; ok && v != lp.GetValue() {
				continue next
			}
		}
		sum += m.GetCounter().GetValue() + m.GetGauge().GetValue()
	}
	return sum
}

// mainSetLogs symlinks the 18 top-level real logs into a temporary
// directory (README.md and extra/ are not part of Spark's directory).
func mainSetLogs(t testing.TB) (dir string, names []string) {
	t.Helper()
	src := filepath.Dir(testkit.Events(t, "README.md"))
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	for _, e := range entries {
		if e.IsDir() || strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		if err := os.Symlink(filepath.Join(src, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
		names = append(names, e.Name())
	}
	if len(names) != 18 {
		t.Fatalf("found %d top-level logs in %s, the README lists 18", len(names), src)
	}
	return dir, names
}

// referenceReport analyses one log independently of the collector.
func referenceReport(t testing.TB, path string, interval time.Duration) analysis.Report {
	t.Helper()
	logs, err := sparklog.Discover(path)
	if err != nil || len(logs) != 1 {
		t.Fatalf("discover %s: %v (%d logs)", path, err, len(logs))
	}
	cfg := analysis.DefaultConfig()
	cfg.Interval = interval
	app := analysis.New(cfg)
	h := sparklog.HandlerFuncs{OnEvent: func(_ sparklog.Position, ev sparkevent.Event) error { app.Add(ev); return nil }}
	if _, err := sparklog.Read(logs[0], h, sparklog.Options{}); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return app.Report()
}

func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// testClock is a clock a test moves by hand, for the watcher's retention.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func newTestClock(now time.Time) *testClock { return &testClock{now: now} }

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// startWatcherAt runs a watcher on clock until the test ends.
func startWatcherAt(t testing.TB, cfg Config, clock *testClock) *Watcher {
	t.Helper()
	w, err := New(cfg, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	w.now = clock.Now
	runWatcher(t, w)
	return w
}

// waitScans waits until w has finished n more directory scans, asking for
// each one rather than waiting for the poll interval.
func waitScans(t testing.TB, w *Watcher, n uint64) {
	t.Helper()
	target := w.scans.Load() + n
	waitFor(t, 20*time.Second, fmt.Sprintf("%d more directory scans", n), func() bool {
		w.requestScan()
		return w.scans.Load() >= target
	})
}
