package eventlog

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
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
	ids := make([]string, n)
	for i := range n {
		cfg := simulate.DefaultConfig()
		cfg.AppID = fmt.Sprintf("app-20261201%06d-%04d", i, i)
		cfg.Start = cfg.Start.Add(time.Duration(i) * time.Minute)
		cfg.Executors, cfg.CoresPerExecutor, cfg.TasksPerStage, cfg.Seed = 2, 2, 4+i%4, uint64(i)
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
// holds all 2,000 in spark_app_info, against analyze's reading of the same
// directory (appdoc.Read of every log on one worker per core, as
// `sparkglance analyze` does, without printing). Reported: both in seconds
// and their ratio (goal: serve ≤ 2 × analyze).
func BenchmarkCatchUp2000Apps(b *testing.B) {
	const n = 2000
	dir := b.TempDir()
	writeFinishedApps(b, dir, n)
	analyze := func() time.Duration {
		start := time.Now()
		logs, err := sparklog.DiscoverGiven(dir)
		if err != nil {
			b.Fatal(err)
		}
		read := 0
		inorder.Each(len(logs), runtime.GOMAXPROCS(0), len(logs), func(i int) error {
			_, err := appdoc.Read(context.Background(), logs[i], analysis.DefaultConfig(), nil)
			return err
		}, func(_ int, err error) bool {
			if err != nil {
				b.Fatal(err)
			}
			read++
			return true
		})
		if read != n {
			b.Fatalf("analyze read %d logs, want %d", read, n)
		}
		return time.Since(start)
	}
	serve := func() time.Duration {
		text, took := serveOnce(b, catchUpConfig(dir, n))
		if got := appsInfo(text); got != n {
			b.Fatalf("first scrape after ready: %d applications in spark_app_info, want %d", got, n)
		}
		return took
	}
	var analyzeTime, serveTime time.Duration
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 { // alternate, so that neither always runs on a warmer machine
			analyzeTime += analyze()
			serveTime += serve()
		} else {
			serveTime += serve()
			analyzeTime += analyze()
		}
	}
	nOps := float64(b.N)
	b.ReportMetric(analyzeTime.Seconds()/nOps, "analyze-s/op")
	b.ReportMetric(serveTime.Seconds()/nOps, "ready+scrape-s/op")
	b.ReportMetric(serveTime.Seconds()/analyzeTime.Seconds(), "serve/analyze")
}

// serveOnce runs an exporter with the event-log collector on cfg until
// /-/ready answers 200, scrapes /metrics once, stops it and returns the
// scrape and how long it took from the start to the end of the scrape.
func serveOnce(tb testing.TB, cfg Config) (string, time.Duration) {
	tb.Helper()
	return serveOnceWith(tb, cfg, nil)
}

// serveOnceWith is serveOnce calling atReady (if not nil) with the
// collector as soon as /-/ready answered 200, before the scrape.
func serveOnceWith(tb testing.TB, cfg Config, atReady func(*Watcher)) (string, time.Duration) {
	tb.Helper()
	start := time.Now()
	w, err := New(cfg, testLogger(tb))
	if err != nil {
		tb.Fatal(err)
	}
	cat := exporter.NewCatalog()
	cat.Register(CollectorName, true, exportertest.Fixed(w))
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
	for deadline := start.Add(5 * time.Minute); ; time.Sleep(2 * time.Millisecond) {
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
// as each log gets its analysis only with a worker and the slices are too
// long to yield here, more than there are workers. With fewer max-apps
// than logs, the peak stays within max-apps too.
func TestCatchUpIsBoundedAndReadyMeansComplete(t *testing.T) {
	dir := t.TempDir()
	ids := writeFinishedApps(t, dir, 40)
	for _, tc := range []struct{ maxApps, workers, want int }{
		{maxApps: 40, workers: 2, want: 40},
		{maxApps: 40, workers: 5, want: 40},
		{maxApps: 25, workers: 3, want: 25},
	} {
		t.Run(fmt.Sprintf("max-apps%d-workers%d", tc.maxApps, tc.workers), func(t *testing.T) {
			cfg := catchUpConfig(dir, tc.maxApps)
			cfg.Workers, cfg.SliceTime = tc.workers, time.Hour
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
			if tc.want == len(ids) {
				for _, id := range ids {
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
