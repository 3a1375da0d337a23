package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

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
// its retry, spill, findings, SQL). On shutdown the demo's directory is gone.
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
