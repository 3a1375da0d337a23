package eventlog

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/exporter/exportertest"
	"github.com/sparkglance/sparkglance/internal/simulate"
)

// writeLiveApps writes n unfinished simulated logs of execs executors each.
func writeLiveApps(b *testing.B, dir string, n, execs int) {
	b.Helper()
	for i := range n {
		cfg := simulate.DefaultConfig()
		cfg.AppID = fmt.Sprintf("app-20261130190000-%04d", i)
		cfg.Start = time.Now()
		cfg.Executors, cfg.CoresPerExecutor, cfg.TasksPerStage, cfg.Live = execs, 2, execs, true
		if _, err := simulate.Live(context.Background(), dir, cfg, simulate.LiveOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// scrapeBenchConfig polls the logs as often as a deployment does by
// default, not 20 times a second as the tests do: 100 followers polling
// every 50 ms would cost the scrape's cores more than some scrapes do.
func scrapeBenchConfig(dir string) Config {
	c := testConfig(dir)
	c.PollInterval = DefaultConfig().PollInterval
	return c
}

// BenchmarkScrape100Apps100Executors: a whole gzip'd scrape over HTTP
// (the text path: each view's parts encoded once, see families.go), and
// the registry path's gather and text encoding (used for protobuf and
// OTLP), of 100 live applications with 100 executors each.
func BenchmarkScrape100Apps100Executors(b *testing.B) {
	dir := b.TempDir()
	writeLiveApps(b, dir, 100, 100)
	w := startWatcher(b, scrapeBenchConfig(dir))
	waitFor(b, 5*time.Minute, "100 logs read", func() bool { return w.Ready() == nil })
	b.Run("http", func(b *testing.B) {
		base, ew := startExporter(b, scrapeBenchConfig(dir))
		waitFor(b, 5*time.Minute, "exporter's watcher ready", func() bool { return ew.Ready() == nil })
		b.ReportAllocs() // client and server: both run in this process
		for b.Loop() {
			httpGet(b, base+"/metrics")
		}
	})
	// What a scrape adds when every application changed since the last one
	// (live apps republish within seconds): encoding all views afresh.
	// The realistic case for live applications: every one republished its
	// view since the previous scrape, so the scrape encodes them all anew.
	b.Run("http-all-changed", func(b *testing.B) {
		base, ew := startExporter(b, scrapeBenchConfig(dir))
		waitFor(b, 5*time.Minute, "exporter's watcher ready", func() bool { return ew.Ready() == nil })
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			for _, a := range ew.snapshot() {
				if v := a.view.Load(); v != nil {
					a.view.Store(freshView(v))
				}
			}
			b.StartTimer()
			httpGet(b, base+"/metrics")
		}
	})
	// What a scrape costs the exporter: the handler until the last
	// compressed byte is written, read by a client that keeps the body
	// compressed, as Prometheus un-gzips on its own machine.
	// The process' CPU time per scrape is reported too (cpu-ms/op): on a
	// shared machine it varies less than the wall time, and over the cores
	// it bounds what the wall time can be.
	b.Run("server", func(b *testing.B) {
		benchServerScrape(b, dir, false, nil)
	})
	b.Run("server-all-changed", func(b *testing.B) {
		benchServerScrape(b, dir, false, func(ew *Watcher) {
			for _, a := range ew.snapshot() {
				if v := a.view.Load(); v != nil {
					a.view.Store(freshView(v))
				}
			}
		})
	})
	// Quiet live applications (no new events) scraped less often than they
	// republish (every refreshEvery): each republished an equal view since
	// the previous scrape. The first scrape, which builds every view's
	// parts, is not timed.
	b.Run("server-quiet-republished", func(b *testing.B) {
		wait := refreshEvery + scrapeBenchConfig(dir).PollInterval + time.Second
		benchServerScrape(b, dir, true, func(*Watcher) {
			time.Sleep(wait) // every app republished
		})
	})
	// Every application published one new view since the previous scrape,
	// as a moderately busy one does between scrapes: the application's
	// goroutine built and encoded its parts as it published the view
	// (trackedApp.store), so the scrape copies their text and gzips it.
	b.Run("server-all-changed-published", func(b *testing.B) {
		benchServerScrape(b, dir, false, func(ew *Watcher) {
			for _, a := range ew.snapshot() {
				if v := a.view.Load(); v != nil {
					fresh := freshView(v)
					fresh.encode()
					a.view.Store(fresh)
				}
			}
		})
	})
	b.Run("parts+encode-all-changed", func(b *testing.B) {
		views := latestAttempts(w.snapshot())
		b.ReportAllocs()
		var size int
		for b.Loop() {
			fresh := make([]*appView, len(views))
			for i, v := range views { // new views, as after every app republished
				fresh[i] = freshView(v)
			}
			parts, err := partsOfAll(context.Background(), fresh)
			if err != nil {
				b.Fatal(err)
			}
			size = 0
			for _, vp := range parts {
				for _, p := range vp {
					if p == nil {
						continue
					}
					text, err := p.Text()
					if err != nil {
						b.Fatal(err)
					}
					size += len(text)
				}
			}
		}
		b.ReportMetric(float64(size), "bytes/scrape")
	})
	b.Run("gather+encode", func(b *testing.B) {
		cat := exporter.NewCatalog()
		cat.Register(CollectorName, true, exportertest.Fixed(exporter.FromFamilies(w)))
		cfg := exportertest.ParseConfig(b, cat)
		e, err := exporter.New(*cfg, cat, testLogger(b))
		if err != nil {
			b.Fatal(err)
		}
		var series int
		var size int64
		b.ReportAllocs()
		for b.Loop() {
			mfs, err := e.Gatherer(context.Background()).Gather()
			if err != nil {
				b.Fatal(err)
			}
			var sb countingWriter
			enc := expfmt.NewEncoder(&sb, expfmt.NewFormat(expfmt.TypeTextPlain))
			series = 0
			for _, mf := range mfs {
				series += len(mf.GetMetric())
				if err := enc.Encode(mf); err != nil {
					b.Fatal(err)
				}
			}
			size = int64(sb)
		}
		b.ReportMetric(float64(series), "series")
		b.ReportMetric(float64(size), "bytes/scrape")
	})
}

// BenchmarkMemoryPerApp measures the heap a followed live application
// holds, and what each executor adds, from two loads of 20 applications.
func BenchmarkMemoryPerApp(b *testing.B) {
	heap := func(execs int) float64 {
		dir := b.TempDir()
		writeLiveApps(b, dir, 20, execs)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		ctx, cancel := context.WithCancel(context.Background())
		w, err := New(testConfig(dir), testLogger(b))
		if err != nil {
			b.Fatal(err)
		}
		done := make(chan struct{})
		go func() { defer close(done); _ = w.Run(ctx) }()
		waitFor(b, 5*time.Minute, "logs read", func() bool { return w.Ready() == nil })
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(w)
		cancel()
		<-done
		return float64(after.HeapAlloc-before.HeapAlloc) / 20
	}
	for b.Loop() {
		small, big := heap(10), heap(100)
		perExec := (big - small) / 90
		b.ReportMetric(small-10*perExec, "bytes/app")
		b.ReportMetric(perExec, "bytes/executor")
	}
}

// BenchmarkAppendToMetricsLag: one event appended to a live log, until
// /metrics (over HTTP, through the exporter) shows it.
func BenchmarkAppendToMetricsLag(b *testing.B) {
	dir := b.TempDir()
	cfg := simulate.DefaultConfig()
	cfg.AppID, cfg.Start, cfg.Live = "app-20261130200000-0001", time.Now(), true
	path, err := simulate.Live(context.Background(), dir, cfg, simulate.LiveOptions{})
	if err != nil {
		b.Fatal(err)
	}
	base, w := startExporter(b, testConfig(dir))
	waitFor(b, time.Minute, "ready", func() bool { return w.Ready() == nil })
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var worst time.Duration
	i := 0
	for b.Loop() {
		i++
		id := fmt.Sprintf("9%04d", i)
		line := fmt.Sprintf(`{"Event":"SparkListenerExecutorAdded","Timestamp":%d,"Executor ID":"%s","Executor Info":{"Host":"h%s","Total Cores":3,"Log Urls":{}}}`+"\n",
			cfg.Start.UnixMilli()+1000, id, id)
		start := time.Now()
		if _, err := f.WriteString(line); err != nil {
			b.Fatal(err)
		}
		want := `spark_executor_cores{app_id="` + cfg.AppID + `",app_name="` + cfg.AppName + `",executor_id="` + id + `"} 3`
		for !strings.Contains(httpGet(b, base+"/metrics"), want) {
			if time.Since(start) > 10*time.Second {
				b.Fatalf("appended executor %s not in /metrics after 10 s", id)
			}
			time.Sleep(5 * time.Millisecond)
		}
		worst = max(worst, time.Since(start))
	}
	b.ReportMetric(float64(worst.Milliseconds()), "worst-ms")
}

// compressedClient asks for gzip itself, so that the transport hands the
// body over still compressed.
func compressedClient() *http.Client {
	return &http.Client{Timeout: time.Minute, Transport: &http.Transport{DisableCompression: true}}
}

// scrapeCompressed GETs u in the text format with gzip accepted, as
// Prometheus does, and reads the body without un-gzipping it; it returns
// the bytes on the wire.
func scrapeCompressed(b *testing.B, client *http.Client, u string) int64 {
	b.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		b.Fatalf("GET %s: reading body: %v", u, err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "gzip" {
		b.Fatalf("GET %s: status %d, Content-Encoding %q; want 200, gzip", u, resp.StatusCode, resp.Header.Get("Content-Encoding"))
	}
	return n
}

// countingWriter stands for the HTTP response: it only counts.
type countingWriter int

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}

// freshView copies v's data into a new view with nothing encoded yet.
func freshView(v *appView) *appView {
	return &appView{viewData: viewData{appID: v.appID, appName: v.appName, attemptID: v.attemptID, sparkVersion: v.sparkVersion,
		user: v.user, start: v.start, end: v.end, ended: v.ended, running: v.running, lastEventMs: v.lastEventMs,
		cores: v.cores, coreSeconds: v.coreSeconds, activeTasks: v.activeTasks, tasks: v.tasks, interval: v.interval,
		activeStages: v.activeStages, findings: v.findings, executors: v.executors, sql: v.sql}}
}

// benchServerScrape times scrapes of an exporter following dir as the
// server sees them (the client reads the gzip'd body without un-gzipping
// it), after warm, an untimed first scrape, if asked; between runs untimed
// before each scrape.
func benchServerScrape(b *testing.B, dir string, warm bool, between func(*Watcher)) {
	base, ew := startExporter(b, scrapeBenchConfig(dir))
	waitFor(b, 5*time.Minute, "exporter's watcher ready", func() bool { return ew.Ready() == nil })
	client := compressedClient()
	if warm {
		scrapeCompressed(b, client, base+"/metrics")
	}
	b.ReportAllocs()
	var wire int64
	var cpu time.Duration
	for b.Loop() {
		if between != nil {
			b.StopTimer()
			between(ew)
			b.StartTimer()
		}
		before := processCPU(b)
		wire = scrapeCompressed(b, client, base+"/metrics")
		cpu += processCPU(b) - before
	}
	b.ReportMetric(float64(wire), "gzip-bytes/scrape")
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}
