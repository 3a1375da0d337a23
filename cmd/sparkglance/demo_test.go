package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/sparkglance/sparkglance/collectors/eventlog"
	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/metricschema"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// serve --demo prints where to look, and the simulated application shows
// in /metrics within seconds.
func TestServeDemo(t *testing.T) {
	stdout := captureStdout(t)
	addr, stop := runServe(t, "--demo", "--demo.tmpdir="+t.TempDir(), "--log.level=warn", "--no-collector.spark")
	body := testkit.PollGet("http://"+addr+"/metrics", 15*time.Second, 100*time.Millisecond, func(body string) bool {
		return strings.Contains(body, "spark_app_info{")
	})
	if !strings.Contains(body, `app_name="sparkglance demo: nightly sales rollup"`) {
		t.Errorf("the demo application is not in /metrics within 15 s:\n%.800s", body)
	}
	stop()
	if out := stdout(); !strings.Contains(out, "http://"+addr+"/metrics") {
		t.Errorf("banner does not say where to look:\n%s", out)
	}
}

// captureStdout redirects os.Stdout until the returned function is called.
func captureStdout(t *testing.T) func() string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	orig := os.Stdout
	os.Stdout = w
	var buf bytes.Buffer
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = io.Copy(&buf, r) })
	var once sync.Once
	restore := func() {
		once.Do(func() {
			os.Stdout = orig
			w.Close()
			wg.Wait()
		})
	}
	t.Cleanup(restore)
	return func() string { restore(); return buf.String() }
}

// From the demo's first seconds, the counter families with a known label
// set (errors and skips by reason) and the settled counters the glance
// dashboard's top charts query are exported, so those panels are not empty
// for lack of an event.
func TestServeDemoExportsCountersFromTheStart(t *testing.T) {
	captureStdout(t)
	addr, stop := runServe(t, "--demo", "--demo.tmpdir="+t.TempDir(), "--log.level=warn", "--no-collector.spark")
	defer stop()
	want := []string{
		`sparkglance_eventlog_errors_total{reason="malformed-json"} 0`,
		`sparkglance_eventlog_skipped_total{reason="retention"} 0`,
		`sparkglance_eventlog_skipped_total{reason="max-apps"} 0`,
		`spark_app_settled_task_seconds_total{`,
		`spark_app_settled_core_seconds_total{`,
		`spark_executor_settled_spill_bytes_total{`,
	}
	body := testkit.PollGet("http://"+addr+"/metrics", 20*time.Second, 100*time.Millisecond, func(body string) bool {
		for _, w := range want {
			if !strings.Contains(body, w) {
				return false
			}
		}
		return true
	})
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("/metrics lacks %s within 20 s of the demo's start", w)
		}
	}
}

// The demo, played fast, exercises every panel of the generated dashboards
// that the event-log collector feeds: each family the dashboards query and
// the collector defines shows in /metrics, and the finished application's
// document has every
// section of the glance page (intervals, stages with the failed attempt and
// its retry, spill, findings, SQL). Every series of every scrape carries
// only the labels the schema declares for its family, closed ones with
// their declared values. On shutdown the demo's directory is gone.
func TestDemoPlaysEveryDashboardFamily(t *testing.T) {
	want := dashboardFamiliesOf(t, eventlog.Metrics())
	if len(want) < 10 {
		t.Fatalf("only %d event-log families found in the dashboards: %v", len(want), want)
	}
	captureStdout(t)
	parent := t.TempDir()
	addr, stop := runServe(t, "--demo", "--demo.speed=40", "--demo.tmpdir="+parent, "--log.level=warn",
		"--no-collector.spark", "--eventlog.poll-interval=100ms")
	stopped := false
	defer func() {
		if !stopped {
			stop()
		}
	}()

	seen := map[string]bool{}
	var labelErr error
	var finished *analysis.Report
	base := "http://" + addr
	client := &http.Client{Timeout: 5 * time.Second}
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		families, err := scrapeFamilies(client, base+"/metrics")
		if err != nil {
			continue // not up yet
		}
		for name, mf := range families {
			if len(mf.GetMetric()) > 0 {
				seen[name] = true
			}
		}
		if err := metricschema.CheckSeries(slices.Collect(maps.Values(families))); err != nil && labelErr == nil {
			labelErr = err
		}
		if finished == nil {
			finished = finishedDemoApp(client, base)
		}
		if finished != nil && len(missing(want, seen)) == 0 {
			break
		}
	}
	if m := missing(want, seen); len(m) > 0 {
		t.Errorf("dashboard families of the event-log collector never in /metrics: %v", m)
	}
	if labelErr != nil {
		t.Error(labelErr)
	}
	if finished == nil {
		t.Fatal("no demo application finished within 2 minutes")
	}
	checkGlanceSections(t, finished)

	stop()
	stopped = true
	if entries, err := os.ReadDir(parent); err != nil || len(entries) > 0 {
		t.Errorf("after shutdown the demo left %v in its parent directory (%v)", entries, err)
	}
}

// dashboardFamiliesOf returns the families of defs that a query of the
// generated dashboards (dashboards/*.json: panel targets and template
// variables) names.
func dashboardFamiliesOf(t *testing.T, defs []*metricschema.Metric) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "..", "dashboards", "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no dashboards: %v", err)
	}
	queried := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && (k == "expr" || k == "query" || k == "definition") {
					for _, name := range promIdentifier.FindAllString(s, -1) {
						queried[name] = true
					}
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var dash any
		if err := json.Unmarshal(data, &dash); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		walk(dash)
	}
	var out []string
	for _, d := range defs {
		// A summary is queried through its _sum and _count series.
		if queried[d.Name] || queried[d.Name+"_sum"] || queried[d.Name+"_count"] {
			out = append(out, d.Name)
		}
	}
	return out
}

var promIdentifier = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)

func missing(want []string, seen map[string]bool) []string {
	var out []string
	for _, w := range want {
		if !seen[w] {
			out = append(out, w)
		}
	}
	return out
}

func scrapeFamilies(client *http.Client, url string) (map[string]*dto.MetricFamily, error) {
	resp, err := client.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	return parser.TextToMetricFamilies(resp.Body)
}

// finishedDemoApp returns the document of a demo application that has
// ended, or nil while there is none.
func finishedDemoApp(client *http.Client, base string) *analysis.Report {
	var list []struct {
		Running bool
		Doc     string
	}
	if getJSON(client, base+"/api/v1/apps", &list) != nil {
		return nil
	}
	for _, a := range list {
		var r analysis.Report
		if !a.Running && getJSON(client, base+a.Doc, &r) == nil && !r.Live {
			return &r
		}
	}
	return nil
}

func getJSON(client *http.Client, url string, v any) error {
	resp, err := client.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// checkGlanceSections checks that every section of the glance page has
// something to show for the finished demo application.
func checkGlanceSections(t *testing.T, r *analysis.Report) {
	t.Helper()
	if len(r.Intervals) == 0 {
		t.Error("no intervals for the core-time chart")
	}
	failed, retried := false, false
	for _, s := range r.Stages {
		failed = failed || (s.Status == analysis.StatusFailed && s.AttemptID == 0 && s.NumFailedTasks > 0 && s.FailureReason != "")
		retried = retried || (s.Status == analysis.StatusComplete && s.AttemptID == 1)
	}
	if !failed || !retried {
		t.Errorf("stages: a failed attempt %v, a successful retry %v; want both", failed, retried)
	}
	spilled := map[string]bool{}
	for _, iv := range r.Intervals {
		for _, sp := range iv.Spill {
			spilled[sp.ExecutorID] = spilled[sp.ExecutorID] || sp.MemoryBytes > 0
		}
	}
	if len(spilled) == 0 {
		t.Error("no executor spilled")
	}
	kinds := map[string]bool{}
	for _, f := range r.Findings {
		kinds[f.Kind] = true
	}
	for _, k := range []string{"task_skew", "single_core_stage", "uniform_spill", "skewed_spill", "shuffle_wait", "gc_pressure"} {
		if !kinds[k] {
			t.Errorf("no %s finding (findings: %v)", k, kinds)
		}
	}
	if len(r.SQL) == 0 || len(r.SQL[0].Operators) == 0 {
		t.Error("no SQL execution with operators")
	}
}

// demoClock plays the demo without waiting: Sleep moves Now on, and once
// Now would pass stopAt it cancels the demo there, which leaves the log as
// a driver that died at that moment would.
type demoClock struct {
	mu     sync.Mutex
	now    time.Time
	stopAt time.Time
	cancel context.CancelFunc
}

func (c *demoClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *demoClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	if next := c.now.Add(d); next.After(c.stopAt) {
		c.now = c.stopAt
		c.cancel()
		return ctx.Err()
	}
	c.now = c.now.Add(d)
	return nil
}

// playDemo runs the demo on a clock starting at start until the clock
// reaches stopAt, writing into a new directory it returns.
func playDemo(t *testing.T, start, stopAt time.Time) string {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clock := &demoClock{now: start, stopAt: stopAt, cancel: cancel}
	runDemo(ctx, dir, 1, clock, slog.New(slog.DiscardHandler))
	return dir
}

// Within the first minute of `make run` (the demo's log as written by then,
// on an injected clock), /metrics shows every family the shipped
// dashboards query that the event-log collector defines: the streaming row
// included, which waited for the batch jobs to end (3m20s) before.
func TestDemoShowsEveryDashboardFamilyWithinAMinute(t *testing.T) {
	want := dashboardFamiliesOf(t, eventlog.Metrics())
	// The log's times end at about now, as the demo's would.
	start := time.Now().Add(-time.Minute)
	dir := playDemo(t, start, start.Add(time.Minute))
	logs, _ := filepath.Glob(filepath.Join(dir, "*.inprogress"))
	if len(logs) != 1 {
		t.Fatalf("after a minute the demo wrote %v, want one running application's log", logs)
	}
	addr, stop := runServe(t, "--eventlog.dir="+dir, "--log.level=warn", "--no-collector.spark", "--eventlog.poll-interval=100ms")
	defer stop()
	seen := map[string]bool{}
	testkit.PollGet("http://"+addr+"/metrics", 30*time.Second, 100*time.Millisecond, func(body string) bool {
		parser := expfmt.NewTextParser(model.UTF8Validation)
		families, err := parser.TextToMetricFamilies(strings.NewReader(body))
		if err != nil {
			return false
		}
		for name, mf := range families {
			if len(mf.GetMetric()) > 0 {
				seen[name] = true
			}
		}
		return len(missing(want, seen)) == 0
	})
	if m := missing(want, seen); len(m) > 0 {
		t.Errorf("dashboard families not in /metrics within the demo's first minute: %v", m)
	}
}

// The banner says where to look (the live pages and /metrics) and when
// the demo shows what, as the demo then does: its first run, played on an
// injected clock, runs as long as the banner says, its streaming queries'
// first batch comes when it says, and the next run starts the pause later.
func TestDemoBannerMatchesTheDemo(t *testing.T) {
	var banner bytes.Buffer
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 18090}
	printDemoBanner(&banner, "/tmp/demo", "/metrics", []net.Addr{addr}, 1)
	text := banner.String()
	for _, w := range []string{"http://127.0.0.1:18090/apps", "http://127.0.0.1:18090/metrics", "/tmp/demo"} {
		if !strings.Contains(text, w) {
			t.Errorf("banner lacks %s:\n%s", w, text)
		}
	}
	said := regexp.MustCompile(`It runs (\S+):[^(]*\(.*\n(?:.*\n)*?.*every 5s from (\S+) \(one falls behind\); (\S+) after it ends`).FindStringSubmatch(text)
	if said == nil {
		t.Fatalf("banner does not say how long the application runs and when streaming starts:\n%s", text)
	}
	runs, first, pause := parseDur(t, said[1]), parseDur(t, said[2]), parseDur(t, said[3])

	start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	dir := playDemo(t, start, start.Add(runs+pause+30*time.Second))
	var ends, starts []int64
	firstBatch := int64(-1)
	for _, name := range []string{demoConfig(1, start).AppID + ".zstd"} {
		for _, ev := range readDemoLog(t, filepath.Join(dir, name)) {
			switch {
			case ev.Event == "SparkListenerApplicationEnd":
				ends = append(ends, ev.ms(t))
			case firstBatch < 0 && strings.HasSuffix(ev.Event, "QueryProgressEvent"):
				firstBatch = ev.Progress.Timestamp.UnixMilli()
			}
		}
	}
	second, _ := filepath.Glob(filepath.Join(dir, "app-*-0002.zstd*"))
	if len(second) != 1 {
		t.Fatalf("no second run within the banner's time and pause: %v", second)
	}
	for _, ev := range readDemoLog(t, second[0]) {
		if ev.Event == "SparkListenerApplicationStart" {
			starts = append(starts, ev.ms(t))
		}
	}
	if len(ends) != 1 || len(starts) != 1 || firstBatch < 0 {
		t.Fatalf("first run: ends %v, first batch %v; second run: starts %v", ends, firstBatch, starts)
	}
	near := func(what string, got, said time.Duration) {
		if d := got - said; d < -time.Second || d > time.Second {
			t.Errorf("%s: %v, the banner says %v", what, got, said)
		}
	}
	ms := func(v int64) time.Duration { return time.Duration(v-start.UnixMilli()) * time.Millisecond }
	near("the first run's length", ms(ends[0]), runs)
	near("the first streaming batch", ms(firstBatch), first)
	near("the next run's start after the end", ms(starts[0])-ms(ends[0]), pause)

	// The earlier runs: as many as it says, finished, of the live run's job
	// (same application name, so one workload), started as far apart as it
	// says, the last one before the live run started.
	hist := regexp.MustCompile(`(\d+) finished earlier runs of the same job \(started (\S+) apart\)`).FindStringSubmatch(text)
	if hist == nil || !strings.Contains(text, "http://127.0.0.1:18090/workloads") {
		t.Fatalf("banner does not tell of the earlier runs and /workloads:\n%s", text)
	}
	n, _ := strconv.Atoi(hist[1])
	spacing := parseDur(t, hist[2])
	plain, _ := filepath.Glob(filepath.Join(dir, "app-*"))
	var earlier []struct {
		name       string
		start, end int64
	}
	for _, p := range plain {
		if strings.Contains(filepath.Base(p), ".") { // the live runs' .zstd logs
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var run struct {
			name       string
			start, end int64
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var ev struct {
				Event     string
				AppName   string          `json:"App Name"`
				Timestamp json.RawMessage // a number in application events
			}
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			switch ev.Event {
			case "SparkListenerApplicationStart":
				run.name, run.start = ev.AppName, demoEvent{Timestamp: ev.Timestamp}.ms(t)
			case "SparkListenerApplicationEnd":
				run.end = demoEvent{Timestamp: ev.Timestamp}.ms(t)
			}
		}
		earlier = append(earlier, struct {
			name       string
			start, end int64
		}(run))
	}
	if len(earlier) != n {
		t.Fatalf("the demo wrote %d earlier runs, the banner says %d", len(earlier), n)
	}
	live := demoConfig(1, start)
	for i, r := range earlier {
		if r.name != live.AppName || r.end == 0 {
			t.Errorf("earlier run %d: name %q (want %q), end %d: not a finished run of the demo's job", i, r.name, live.AppName, r.end)
		}
		if want := start.Add(-time.Duration(n-i) * spacing).UnixMilli(); r.start != want {
			t.Errorf("earlier run %d starts at %d, want %d (%v apart, the last before the live run)", i, r.start, want, spacing)
		}
	}
}

func parseDur(t *testing.T, s string) time.Duration {
	t.Helper()
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatalf("banner duration %q: %v", s, err)
	}
	return d
}

type demoEvent struct {
	Event string
	// Timestamp is epoch ms in Spark's application events, an ISO time in
	// the query listener's (which json matches to this field too).
	Timestamp json.RawMessage
	Progress  struct{ Timestamp time.Time }
}

// ms is an application event's Timestamp.
func (ev demoEvent) ms(t *testing.T) int64 {
	t.Helper()
	v, err := strconv.ParseInt(string(ev.Timestamp), 10, 64)
	if err != nil {
		t.Fatalf("%s: Timestamp %s: %v", ev.Event, ev.Timestamp, err)
	}
	return v
}

// readDemoLog decodes the events of a demo log (zstd frames).
func readDemoLog(t *testing.T, path string) []demoEvent {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec, err := zstd.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	var out []demoEvent
	sc := bufio.NewScanner(dec)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev demoEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, ev)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}
