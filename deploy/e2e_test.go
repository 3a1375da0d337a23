//go:build e2e

package deploy_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/alerts"
	"github.com/sparkglance/sparkglance/alerts/promqltest"
	"github.com/sparkglance/sparkglance/dashboards"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
	"github.com/sparkglance/sparkglance/internal/testkit"
	"github.com/sparkglance/sparkglance/internal/testkit/promtest"
)

// e2eDeadline bounds the whole observation: the demo's story takes about
// three minutes.
const e2eDeadline = 3*time.Minute + 30*time.Second

// demoFed are the metrics and recording rules `serve --demo` feeds: the
// event-log collector and the exporter itself. Energy, blocking, Spark
// endpoint and SQL panels need a node agent, JVMs or a Spark UI.
var demoFed = map[string]bool{
	alerts.AppCPUSecondsRate: true, alerts.AppCoreSecondsRate: true, alerts.AppCPUEfficiency: true,
	alerts.AppWastedCoreSeconds: true, alerts.ExecutorSpillRate: true,
}

// quietInDemo are demo-fed queries that are empty while all is well.
var quietInDemo = []string{"sparkglance_eventlog_errors_total"}

// TestEndToEndDemo runs the shipped rules in a real Prometheus scraping
// `sparkglance serve --demo`, with a real Alertmanager delivering to a
// webhook here: every demo-fed dashboard query returns data, and the
// demo's repartition(1) and skewed stages fire their alerts. Debian's
// Prometheus 2 and Prometheus 3 side by side, each with its own
// Alertmanager and webhook, on the same demo. It takes about 3 minutes, so
// it is behind the e2e build tag (make e2e); -short skips it too.
func TestEndToEndDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end demo test takes ~3 minutes")
	}
	alertmanagerBin := testkit.RequireTool(t, "prometheus-alertmanager")
	// The demo feeds every event-log and exporter family but the SQL ones.
	for _, m := range append(sm.For(sm.CollectorEventlog), sm.For(sm.CollectorExporter)...) {
		if !strings.HasPrefix(m.Name, "spark_sql_") {
			demoFed[m.Name] = true
		}
	}

	// sparkglance, built from this tree.
	dir := t.TempDir()
	bin := buildSparkglance(t)
	sgAddr := testkit.FreeLoopbackAddr(t)
	testkit.StartProcess(t, dir, "sparkglance", bin, "serve", "--demo", "--web.listen-address="+sgAddr)
	promtest.WaitReady(t, "http://"+sgAddr+"/-/ready", 30*time.Second, filepath.Join(dir, "sparkglance.log"))

	queries := demoQueries(t)
	testkit.ForEachPrometheus(t, func(t *testing.T, p testkit.Prometheus) {
		t.Parallel()
		dir := t.TempDir()
		// A webhook receiver and a real Alertmanager in front of it.
		hook := &webhook{firing: map[string]bool{}}
		hookSrv := httptest.NewServer(hook)
		defer hookSrv.Close()
		amConfig := fmt.Sprintf(`route:
  receiver: test
  group_by: [alertname]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: test
    webhook_configs:
      - url: %s
`, hookSrv.URL)
		if err := os.WriteFile(filepath.Join(dir, "alertmanager.yml"), []byte(amConfig), 0o644); err != nil {
			t.Fatal(err)
		}
		amAddr := testkit.FreeLoopbackAddr(t)
		testkit.StartProcess(t, dir, "alertmanager", alertmanagerBin, "--config.file="+filepath.Join(dir, "alertmanager.yml"),
			"--storage.path="+filepath.Join(dir, "am"), "--web.listen-address="+amAddr, "--cluster.listen-address=")
		promtest.WaitReady(t, "http://"+amAddr+"/-/ready", 30*time.Second, filepath.Join(dir, "alertmanager.log"))

		// Prometheus with the shipped rules; the demo compresses a job into
		// three minutes, so only the alerts' `for` shrinks.
		rules, err := alerts.Render(demoThresholds())
		if err != nil {
			t.Fatal(err)
		}
		promConfig := fmt.Sprintf(`global:
  scrape_interval: 2s
  evaluation_interval: 2s
rule_files: [rules.yml]
alerting:
  alertmanagers:
    - static_configs:
        - targets: ["%s"]
scrape_configs:
  - job_name: sparkglance
    static_configs:
      - targets: ["%s"]
`, amAddr, sgAddr)
		prom := promtest.StartRelease(t, p, promConfig, map[string][]byte{"rules.yml": rules})

		hadData := map[string]bool{}
		// The demo's story (internal/simulate): stage 3 is the skewed join,
		// stages 5 and 6 the job whose shuffle fetch fails and is retried,
		// stage 7 the repartition(1) write.
		want := []string{"SparkStageSingleCore/7", "SparkExecutorSpillSkew/3"}
		deadline := time.Now().Add(e2eDeadline)
		for time.Now().Before(deadline) {
			appID := currentApp(prom)
			for _, q := range queries {
				if hadData[q.Where] || appID == "" {
					continue
				}
				r, err := prom.Query(strings.ReplaceAll(promqltest.Substitute(q.Text), "app-dummy", appID))
				if err != nil {
					t.Fatalf("%s: %v", q.Where, err)
				}
				if len(r.Result) > 0 {
					hadData[q.Where] = true
				}
			}
			if len(hadData) == len(queries) && hook.hasAll(want) {
				break
			}
			time.Sleep(3 * time.Second)
		}
		for _, q := range queries {
			if !hadData[q.Where] {
				t.Errorf("dashboard query never returned data in %s: %s: %s", e2eDeadline, q.Where, q.Text)
			}
		}
		for _, a := range want {
			if !hook.has(a) {
				t.Errorf("alert %s never reached the webhook through Alertmanager in %s (received: %v)", a, e2eDeadline, hook.names())
			}
		}
		t.Logf("Prometheus %s: %d demo-fed dashboard queries returned data; alerts delivered: %v", p.Name, len(hadData), hook.names())
	})
}

// demoThresholds are the shipped thresholds with `for` durations that fit
// the demo's compressed stages.
func demoThresholds() alerts.Thresholds {
	th := alerts.DefaultThresholds()
	th.SingleCoreFor = 10 * time.Second
	th.SkewedSpillFor = 10 * time.Second
	th.UniformSpillFor = 10 * time.Second
	return th
}

// demoQueries are the dashboard queries fed by the demo.
func demoQueries(t *testing.T) []promqltest.Expr {
	t.Helper()
	files, err := dashboards.Files()
	if err != nil {
		t.Fatal(err)
	}
	var out []promqltest.Expr
	var skipped []string
	for _, f := range files {
		var board struct {
			Panels []struct {
				Title   string
				Targets []struct{ Expr, RefID string }
			}
		}
		if err := json.Unmarshal(f.JSON, &board); err != nil {
			t.Fatal(err)
		}
		for _, p := range board.Panels {
			for _, tg := range p.Targets {
				names := promqltest.MetricNames(promqltest.Substitute(tg.Expr))
				fed := !slices.ContainsFunc(names, func(n string) bool { return !demoFed[n] })
				quiet := slices.ContainsFunc(names, func(n string) bool { return slices.Contains(quietInDemo, n) })
				where := f.Name + ": " + p.Title + " " + tg.RefID
				if fed && !quiet {
					out = append(out, promqltest.Expr{Where: where, Text: tg.Expr})
				} else {
					skipped = append(skipped, where)
				}
			}
		}
	}
	t.Logf("not fed by the demo (no node agent, JVM, Spark UI or SQL), or empty when healthy: %v", skipped)
	return out
}

// currentApp is the demo's latest application id.
func currentApp(prom *promtest.Server) string {
	r, err := prom.Query(`topk(1, spark_app_start_time_seconds)`)
	if err != nil || len(r.Result) == 0 {
		return ""
	}
	return r.Result[0].Metric["app_id"]
}

// webhook records the alerts Alertmanager delivers, as alertname/stage_id.
type webhook struct {
	mu     sync.Mutex
	firing map[string]bool
}

func (h *webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var msg struct {
		Alerts []struct {
			Status string            `json:"status"`
			Labels map[string]string `json:"labels"`
		} `json:"alerts"`
	}
	if err := json.NewDecoder(r.Body).Decode(&msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, a := range msg.Alerts {
		if a.Status == "firing" {
			h.firing[a.Labels["alertname"]+"/"+a.Labels["stage_id"]] = true
		}
	}
}

func (h *webhook) has(name string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.firing[name]
}

func (h *webhook) hasAll(names []string) bool {
	return !slices.ContainsFunc(names, func(n string) bool { return !h.has(n) })
}

func (h *webhook) names() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for n := range h.firing {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
