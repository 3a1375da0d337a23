package eventlog

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/exporter/exportertest"
	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/appdoc"
	"github.com/sparkglance/sparkglance/internal/inorder"
	"github.com/sparkglance/sparkglance/internal/simulate"
	"github.com/sparkglance/sparkglance/internal/sparklog"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// writeFinishedApps writes n small finished simulated applications (about
// 70 kB each) with their own ids, started a minute apart, and returns the
// ids.
func writeFinishedApps(tb testing.TB, dir string, n int) []string {
	tb.Helper()
	return writeFinishedAppsOf(tb, dir, n, 4)
}

// writeFinishedAppsOf is writeFinishedApps with tasks (and up to 3 more)
// tasks per stage.
func writeFinishedAppsOf(tb testing.TB, dir string, n, tasks int) []string {
	tb.Helper()
	ids := make([]string, n)
	for i := range n {
		cfg := simulate.DefaultConfig()
		cfg.AppID = fmt.Sprintf("app-20261201%06d-%04d", i, i)
		cfg.Start = cfg.Start.Add(time.Duration(i) * time.Minute)
		cfg.Executors, cfg.CoresPerExecutor, cfg.TasksPerStage, cfg.Seed = 2, 2, tasks+i%4, uint64(i)
		var b strings.Builder
		if _, err := simulate.Write(&b, cfg); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, cfg.AppID), []byte(b.String()), 0o644); err != nil {
			tb.Fatal(err)
		}
		ids[i] = cfg.AppID
	}
	return ids
}

// catchUpConfig watches dir holding n finished applications, all of them
// kept, polling at the default interval as serve does.
func catchUpConfig(dir string, n int) Config {
	cfg := testConfig(dir)
	cfg.MaxApps, cfg.PollInterval = n, DefaultConfig().PollInterval
	return cfg
}

// appsInfo counts the spark_app_info series of a text exposition.
func appsInfo(text string) int { return strings.Count(text, "\nspark_app_info{") }

// BenchmarkCatchUp2000Apps: serve started on a directory of 2,000 finished
// applications, until /-/ready answers 200 and a first scrape of /metrics
// holds all 2,000 in spark_app_info, against `sparkglance analyze` over the
// same directory: its reading (appdoc.Read of every log on one worker per
// core, as the command does) and, for the whole `analyze --json`, the JSON
// array encoded to io.Discard after it. Reported: each in seconds (wall
// clock), serve's ratio to the reading alone and to the whole command
// (goal: serve ≤ 2 × analyze), the same ratios of the CPU time used, and
// the most analyses alive at once.
func BenchmarkCatchUp2000Apps(b *testing.B) {
	const n = 2000
	dir := b.TempDir()
	writeFinishedApps(b, dir, n)
	syscall.Sync()                      // the logs' write-back must not land in the first timing
	var jsonTime, jsonCPU time.Duration // of the output, within analyze's
	analyze := func() time.Duration {
		start := time.Now()
		logs, err := sparklog.DiscoverGiven(dir)
		if err != nil {
			b.Fatal(err)
		}
		var docs []appdoc.Doc
		type result struct {
			doc appdoc.Doc
			err error
		}
		inorder.Each(len(logs), runtime.GOMAXPROCS(0), len(logs), func(i int) result {
			doc, err := appdoc.Read(context.Background(), logs[i], analysis.DefaultConfig(), nil)
			return result{doc, err}
		}, func(_ int, r result) bool {
			if r.err != nil {
				b.Fatal(r.err)
			}
			docs = append(docs, r.doc)
			return true
		})
		if len(docs) != n {
			b.Fatalf("analyze read %d logs, want %d", len(docs), n)
		}
		read, cpu := time.Since(start), processCPU(b)
		enc := json.NewEncoder(io.Discard)
		enc.SetIndent("", "  ")
		if err := enc.Encode(docs); err != nil {
			b.Fatal(err)
		}
		jsonTime += time.Since(start) - read
		jsonCPU += processCPU(b) - cpu
		return read
	}
	var peak int64
	serve := func() time.Duration {
		text, took := serveOnceWith(b, catchUpConfig(dir, n), func(w *Watcher) {
			peak = max(peak, w.peakAnalyses.Load())
		})
		if got := appsInfo(text); got != n {
			b.Fatalf("first scrape after ready: %d applications in spark_app_info, want %d", got, n)
		}
		return took
	}
	// CPU time too: on a busy machine the wall-clock ratio says more about
	// the neighbours than about the code.
	var analyzeTime, serveTime, analyzeCPU, serveCPU time.Duration
	timed := func(f func() time.Duration, wall, cpu *time.Duration) {
		runtime.GC() // the other phase's garbage is not this one's
		before := processCPU(b)
		*wall += f()
		*cpu += processCPU(b) - before
	}
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 { // alternate, so that neither always runs on a warmer machine
			timed(analyze, &analyzeTime, &analyzeCPU)
			timed(serve, &serveTime, &serveCPU)
		} else {
			timed(serve, &serveTime, &serveCPU)
			timed(analyze, &analyzeTime, &analyzeCPU)
		}
	}
	// analyzeTime and analyzeCPU hold the reading only; the JSON output
	// was timed apart.
	analyzeCPU -= jsonCPU
	nOps := float64(b.N)
	b.ReportMetric(analyzeTime.Seconds()/nOps, "analyze-read-s/op")
	b.ReportMetric((analyzeTime+jsonTime).Seconds()/nOps, "analyze-json-s/op")
	b.ReportMetric(serveTime.Seconds()/nOps, "ready+scrape-s/op")
	b.ReportMetric(serveTime.Seconds()/analyzeTime.Seconds(), "serve/read")
	b.ReportMetric(serveTime.Seconds()/(analyzeTime+jsonTime).Seconds(), "serve/json")
	b.ReportMetric(serveCPU.Seconds()/analyzeCPU.Seconds(), "serve/read-cpu")
	b.ReportMetric(serveCPU.Seconds()/(analyzeCPU+jsonCPU).Seconds(), "serve/json-cpu")
	b.ReportMetric(float64(peak), "peak-analyses")
}

// processCPU is the CPU time (user and system) this process used so far.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// serveOnceWith runs an exporter with the event-log collector on cfg until
// /-/ready answers 200, calls atReady with the collector, scrapes /metrics
// once, stops the exporter and returns the scrape and how long it took
// from the start to the end of the scrape.
func serveOnceWith(tb testing.TB, cfg Config, atReady func(*Watcher)) (string, time.Duration) {
	tb.Helper()
	start := time.Now()
	w, err := New(cfg, testLogger(tb))
	if err != nil {
		tb.Fatal(err)
	}
	cat := exporter.NewCatalog()
	cat.Register(CollectorName, true, exportertest.Fixed(exporter.FromFamilies(w)))
	e, err := exporter.New(*exportertest.ParseConfig(tb, cat, "--web.listen-address=127.0.0.1:0"), cat, testLogger(tb))
	if err != nil {
		tb.Fatal(err)
	}
	addrs, err := e.Listen()
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	defer func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				tb.Errorf("exporter Run: %v", err)
			}
		case <-time.After(30 * time.Second):
			tb.Error("exporter did not stop within 30 s")
		}
	}()
	base := "http://" + addrs[0].String()
	// Asked every 10 ms: often enough to time a catch-up of seconds, seldom
	// enough not to take the cores it is timing.
	for deadline := start.Add(5 * time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if code, _ := testkit.HTTPGet(tb, http.DefaultClient, base+"/-/ready", nil); code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			tb.Fatalf("not ready within 5 minutes: %v", w.Ready())
		}
	}
	if atReady != nil {
		atReady(w)
	}
	text := httpGet(tb, base+"/metrics")
	return text, time.Since(start)
}

// Catching up on a directory of finished applications: /-/ready waits
// until every one was read and reduced to its views (no analysis is left
// then), the first scrape after it shows every application, and no more
// analyses were ever alive at once than --eventlog.max-apps allows, nor,
// as a log found finished gets its analysis only with a worker and a
// catch-up place, more than there are workers: also when big logs hand
// their worker on in the middle (the slice time of the "yielding" case
// makes them yield every 1,024 events). With fewer max-apps than logs,
// the peak stays within max-apps too.
func TestCatchUpIsBoundedAndReadyMeansComplete(t *testing.T) {
	small, big := t.TempDir(), t.TempDir()
	smallIDs := writeFinishedApps(t, small, 24)
	bigIDs := writeFinishedAppsOf(t, big, 5, 100) // about 1,600 events each
	for _, tc := range []struct {
		dir              string
		ids              []string
		maxApps, workers int
		slice            time.Duration
		want             int
	}{
		{dir: small, ids: smallIDs, maxApps: 24, workers: 2, slice: time.Hour, want: 24},
		{dir: small, ids: smallIDs, maxApps: 15, workers: 3, slice: time.Hour, want: 15},
		{dir: big, ids: bigIDs, maxApps: 5, workers: 2, slice: time.Nanosecond, want: 5},
	} {
		name := fmt.Sprintf("apps%d-max-apps%d-workers%d", len(tc.ids), tc.maxApps, tc.workers)
		if tc.slice < time.Millisecond {
			name += "-yielding"
		}
		t.Run(name, func(t *testing.T) {
			cfg := catchUpConfig(tc.dir, tc.maxApps)
			cfg.Workers, cfg.SliceTime = tc.workers, tc.slice
			var w *Watcher
			text, _ := serveOnceWith(t, cfg, func(ready *Watcher) {
				w = ready
				if n := ready.analyses.Load(); n != 0 {
					t.Errorf("ready with %d analyses still alive: catch-up had not ended", n)
				}
			})
			if got := appsInfo(text); got != tc.want {
				t.Errorf("first scrape after ready: %d applications in spark_app_info, want %d", got, tc.want)
			}
			if tc.want == len(tc.ids) {
				for _, id := range tc.ids {
					if !strings.Contains(text, `spark_app_info{app_id="`+id+`"`) {
						t.Errorf("first scrape after ready lacks %s", id)
					}
				}
			}
			peak := w.peakAnalyses.Load()
			if peak > int64(tc.maxApps) || peak > int64(tc.workers) {
				t.Errorf("%d analyses alive at once, want at most %d (max-apps) and %d (workers)", peak, tc.maxApps, tc.workers)
			}
			if peak == 0 {
				t.Error("no analysis was ever counted")
			}
		})
	}
}

// The collector says once, in its log, that it caught up on the logs found
// at start, with how many applications and the most analyses held at once
// (the figure BenchmarkCatchUpCorpus reads from the binary); later scans
// say nothing more.
func TestCatchUpIsLoggedOnce(t *testing.T) {
	dir := t.TempDir()
	writeFinishedApps(t, dir, 6)
	var logs testkit.SyncBuffer
	cfg := catchUpConfig(dir, 6)
	cfg.Workers = 2
	w, err := New(cfg, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	runWatcher(t, w)
	const msg = `msg="event logs caught up"`
	text, ok := logs.Await(20*time.Second, func(s string) bool { return strings.Contains(s, msg) })
	if !ok {
		t.Fatalf("no %s line within 20 s:\n%s", msg, text)
	}
	if err := w.Ready(); err != nil {
		t.Errorf("caught up logged before ready: %v", err)
	}
	waitScans(t, w, 2)
	lines := logs.Lines(msg)
	if len(lines) != 1 {
		t.Fatalf("%d lines say the logs caught up, want 1:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	peak := w.peakAnalyses.Load()
	for _, want := range []string{" applications=6 ", fmt.Sprintf(" peak_analyses=%d", peak)} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("caught-up line lacks %q: %s", want, lines[0])
		}
	}
	if peak < 1 || peak > 2 {
		t.Errorf("peak analyses %d, want 1 or 2 (the workers)", peak)
	}
}

// The polls' directory scans are paced by their cost: a cheap scan waits the
// poll interval, one of a directory of thousands of logs waits 50 times as
// long as it took, so that a catch-up of minutes does not spend 5 % of a core
// and more listing the same 10,000 names every second.
func TestScanWaitFollowsScanCost(t *testing.T) {
	for _, tc := range []struct{ poll, took, want time.Duration }{
		{time.Second, 0, time.Second},
		{time.Second, 5 * time.Millisecond, time.Second},
		{time.Second, 20 * time.Millisecond, time.Second},
		{time.Second, 60 * time.Millisecond, 3 * time.Second},
		{50 * time.Millisecond, 10 * time.Millisecond, 500 * time.Millisecond},
	} {
		if got := scanWait(tc.poll, tc.took); got != tc.want {
			t.Errorf("scanWait(%v, scan took %v) = %v, want %v", tc.poll, tc.took, got, tc.want)
		}
	}
}

// A log read in slices (it hands its worker on every 1,024 events) shows
// its application only once read to its end: a view of part of it would
// hold counters below the whole log's, which a Prometheus that scraped the
// whole before a restart takes for a reset (increase() would count the
// application twice). Every scrape during the catch-up that shows the
// application shows its final counters. The log (2,000 tasks a stage,
// 30,000 events, about 30 slices) is long enough that, with the fix
// undone, some 400 of its 2,000-odd scrapes show part of it.
func TestSlicedLogShownOnlyWhole(t *testing.T) {
	dir := t.TempDir()
	ids := writeFinishedAppsOf(t, dir, 1, 2000)
	cfg := catchUpConfig(dir, 1)
	cfg.Workers, cfg.SliceTime = 1, time.Nanosecond
	w := startWatcher(t, cfg)
	counters := []string{"spark_app_core_seconds_total", "spark_app_settled_core_seconds_total"}
	type seen struct {
		values  []float64
		ready   bool
		scrapes int
	}
	var during []seen
	scrapes := 0
	for deadline := time.Now().Add(2 * time.Minute); ; {
		ready := w.Ready() == nil
		mfs := gather(t, w)
		scrapes++
		var vals []float64
		for _, name := range counters {
			if mf := mfs[name]; mf != nil && len(mf.GetMetric()) > 0 {
				vals = append(vals, mf.GetMetric()[0].GetCounter().GetValue())
			}
		}
		if len(vals) > 0 {
			during = append(during, seen{vals, ready, scrapes})
		}
		if ready {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("not ready after 2 minutes")
		}
	}
	final := during[len(during)-1]
	if len(final.values) != len(counters) || !final.ready {
		t.Fatalf("the ready scrape shows %v of %s (%v)", final.values, ids[0], counters)
	}
	for _, s := range during {
		if !slices.Equal(s.values, final.values) {
			t.Errorf("scrape %d of %d (ready %v) shows %v = %v, want the whole log's %v", s.scrapes, scrapes, s.ready, counters, s.values, final.values)
		}
	}
	t.Logf("%d scrapes during the catch-up, %d showed the application", scrapes, len(during))
}
