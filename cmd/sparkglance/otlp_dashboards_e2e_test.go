//go:build e2e

package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/alerts"
	"github.com/sparkglance/sparkglance/alerts/promqltest"
	"github.com/sparkglance/sparkglance/dashboards"
	"github.com/sparkglance/sparkglance/internal/jvm/jvmtest"
	"github.com/sparkglance/sparkglance/internal/testkit"
	"github.com/sparkglance/sparkglance/internal/testkit/promtest"
)

// dashboardsDeadline bounds the observation: the demo's story takes about
// three minutes.
const dashboardsDeadline = 4 * time.Minute

// noDemoData are the families the demo cannot feed, with the reason. On
// the scrape path a second sparkglance feeds them (startNodeAgent), so
// every query must return data there; on the OTLP paths, which only the
// demo pushes to, a panel query reading one of them must be empty (so the
// list stays exact), and the other queries must all return data.
var noDemoData = map[string]string{
	"spark_executor_energy_joules_total":                         "measured on the executors' hosts (RAPL) by the node agent, which the demo does not run",
	alerts.AppEnergyWh:                                           "measured on the executors' hosts (RAPL) by the node agent, which the demo does not run",
	"spark_node_cpu_tdp_watts":                                   "read from the host by the node agent, which the demo does not run",
	"spark_plugin_energy_total_wh":                               "read from a Spark driver's CCSparkDriverPlugin through --collector.spark",
	"spark_executor_blocked_ratio":                               "JVM stack sampling (--profiling.enabled) of running executors",
	"spark_thread_samples_total":                                 "JVM stack sampling (--profiling.enabled) of running executors",
	"spark_metrics_executor_metrics_jvm_heap_memory_bytes":       "Spark's own metrics, read from a Spark UI by --collector.spark",
	"spark_metrics_executor_metrics_total_gc_time_seconds_total": "Spark's own metrics, read from a Spark UI by --collector.spark",
	"spark_target_up":                                            "the Spark endpoints --collector.spark reads",
}

// dashboardPath is one way the demo's metrics reach a Prometheus 3.
type dashboardPath struct {
	name string
	prom *promtest.Server
	// nodeAgent: the node agent of startNodeAgent feeds it too.
	nodeAgent bool
}

// Every panel query of every shipped dashboard returns data on a
// Prometheus 3 fed by the OTLP push, with its template variables resolved
// against that Prometheus as Grafana resolves them: pushed straight to its
// OTLP receiver under the default translation with
// alerts/sparkglance-otlp-rules.yml loaded, under NoTranslation without
// it, and through the OpenTelemetry Collector's remote write with it; and
// on a Prometheus 3 scraping the demo and a node agent (startNodeAgent),
// the reference, where every query returns data. On the OTLP paths a query
// that reads a family of noDemoData must be empty.
func TestDashboardsOnOTLPFedPrometheus(t *testing.T) {
	p := testkit.Prometheus3(t)
	otelcol := testkit.OTelCollector(t)
	bin := binary(t)
	shipped, err := alerts.Render(alerts.DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	otlpRules, err := alerts.RenderOTLP()
	if err != nil {
		t.Fatal(err)
	}
	const global = "global:\n  scrape_interval: 2s\n  evaluation_interval: 2s\n"
	withOTLPRules := map[string][]byte{"rules.yml": shipped, "otlp-rules.yml": otlpRules}

	// The OTLP receiver, default translation, and the scrape of the same demo.
	direct := promtest.StartRelease(t, p, global+"rule_files: [rules.yml, otlp-rules.yml]\notlp:\n  translation_strategy: UnderscoreEscapingWithSuffixes\n",
		withOTLPRules, "--web.enable-otlp-receiver")
	demo := startDemo(t, bin, "direct", "--otlp.protocol=http", "--otlp.endpoint="+direct.URL+"/api/v1/otlp/v1/metrics")
	node := startNodeAgent(t, bin)
	scrape := promtest.StartRelease(t, p, global+"rule_files: [rules.yml]\nscrape_configs:\n"+
		"  - job_name: sparkglance\n    static_configs:\n      - targets: [\""+demo+"\"]\n"+
		"  - job_name: sparkglance-node\n    static_configs:\n      - targets: [\""+node+"\"]\n",
		map[string][]byte{"rules.yml": shipped})

	// The OTLP receiver under NoTranslation: the names are /metrics'.
	noTranslation := promtest.StartRelease(t, p, global+"rule_files: [rules.yml]\notlp:\n  translation_strategy: NoTranslation\n",
		map[string][]byte{"rules.yml": shipped}, "--web.enable-otlp-receiver")
	startDemo(t, bin, "notranslation", "--otlp.protocol=http", "--otlp.endpoint="+noTranslation.URL+"/api/v1/otlp/v1/metrics")

	// The Collector, remote-writing into Prometheus 3.
	remote := promtest.StartRelease(t, p, global+"rule_files: [rules.yml, otlp-rules.yml]\n", withOTLPRules, "--web.enable-remote-write-receiver")
	otlpAddr := testkit.FreeLoopbackAddr(t)
	startCollector(t, otelcol, fmt.Sprintf(`receivers:
  otlp:
    protocols:
      grpc:
        endpoint: %s
exporters:
  prometheusremotewrite:
    endpoint: %s/api/v1/write
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    metrics:
      receivers: [otlp]
      exporters: [prometheusremotewrite]
`, otlpAddr, remote.URL))
	startDemo(t, bin, "collector", "--otlp.protocol=grpc", "--otlp.insecure", "--otlp.endpoint="+otlpAddr)

	paths := []dashboardPath{
		{"scrape", scrape, true},
		{"OTLP receiver, UnderscoreEscapingWithSuffixes + otlp rules", direct, false},
		{"OTLP receiver, NoTranslation", noTranslation, false},
		{"Collector remote write + otlp rules", remote, false},
	}
	boards := shippedBoards(t)
	// hadData[path][query] is set once the query returned data there.
	hadData := map[string]map[string]bool{}
	variablesResolved := map[string]bool{}
	for deadline := time.Now().Add(dashboardsDeadline); time.Now().Before(deadline); time.Sleep(3 * time.Second) {
		done := true
		for _, path := range paths {
			if hadData[path.name] == nil {
				hadData[path.name] = map[string]bool{}
			}
			for _, b := range boards {
				for _, vars := range b.resolve(t, path.prom) {
					variablesResolved[path.name+" "+b.name] = true
					for _, q := range b.queries {
						if hadData[path.name][q.where] {
							continue
						}
						r, err := path.prom.Query(vars.substitute(q.expr))
						if err != nil {
							t.Fatalf("%s: %s: %v", path.name, q.where, err)
						}
						if len(r.Result) > 0 {
							hadData[path.name][q.where] = true
						}
					}
				}
			}
			for _, b := range boards {
				for _, q := range b.queries {
					if q.noData(path) == "" && !hadData[path.name][q.where] {
						done = false
					}
				}
			}
		}
		if done {
			break
		}
	}

	// The rules did the work: the translated names are there on the paths
	// that translate, and only there.
	for _, c := range []struct {
		prom       *promtest.Server
		translated bool
	}{{direct, true}, {remote, true}, {noTranslation, false}, {scrape, false}} {
		r, err := c.prom.Query("spark_app_info_ratio")
		if err != nil {
			t.Fatal(err)
		}
		if got := len(r.Result) > 0; got != c.translated {
			t.Errorf("%s: spark_app_info_ratio present %v, want %v", c.prom.URL, got, c.translated)
		}
	}
	// No path, pushed or scraped, has sparkglance down: on OTLP there is no
	// up, and the alert watches the pushes instead.
	down := ruleExpr(t, "SparkglanceDown")
	for _, path := range paths {
		r, err := path.prom.Query(down)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Result) > 0 {
			t.Errorf("%s: SparkglanceDown's expression holds while sparkglance pushes or is scraped: %v", path.name, r.Result)
		}
	}
	for _, path := range paths {
		for _, b := range boards {
			if !variablesResolved[path.name+" "+b.name] {
				t.Errorf("%s: %s: the job, instance or application variables never offered a value", path.name, b.name)
			}
			n := 0
			for _, q := range b.queries {
				switch reason := q.noData(path); {
				case hadData[path.name][q.where]:
					n++
					if reason != "" {
						t.Errorf("%s: %s returned data, yet is listed as fed by nothing in the demo (%s): drop it from noDemoData", path.name, q.where, reason)
					}
				case reason == "":
					t.Errorf("%s: dashboard query never returned data in %s: %s: %s", path.name, dashboardsDeadline, q.where, q.expr)
				}
			}
			t.Logf("%s: %s: %d of %d queries returned data", path.name, b.name, n, len(b.queries))
		}
	}
	for _, q := range expectedEmpty(boards) {
		t.Logf("no data on the OTLP paths, as expected: %s (%s)", q.where, q.noData(dashboardPath{}))
	}
}

// boardQuery is one panel target of a dashboard.
type boardQuery struct{ where, expr string }

// noData is why path cannot feed q ("" if it can).
func (q boardQuery) noData(path dashboardPath) string {
	if path.nodeAgent {
		return ""
	}
	for _, name := range promqltest.MetricNames(promqltest.Substitute(q.expr)) {
		if reason := noDemoData[name]; reason != "" {
			return name + ": " + reason
		}
	}
	return ""
}

func expectedEmpty(boards []shippedBoard) []boardQuery {
	var out []boardQuery
	for _, b := range boards {
		for _, q := range b.queries {
			if q.noData(dashboardPath{}) != "" {
				out = append(out, q)
			}
		}
	}
	return out
}

// boardVariable is a template variable as the dashboard JSON has it.
type boardVariable struct {
	Name       string `json:"name"`
	Type       string `json:"type"`
	Query      any    `json:"query"`
	IncludeAll bool   `json:"includeAll"`
	Multi      bool   `json:"multi"`
	AllValue   string `json:"allValue"`
	Sort       int    `json:"sort"`
}

// shippedBoard is one dashboard: its variables and panel queries.
type shippedBoard struct {
	name      string
	variables []boardVariable
	queries   []boardQuery
}

func shippedBoards(t *testing.T) []shippedBoard {
	t.Helper()
	files, err := dashboards.Files()
	if err != nil {
		t.Fatal(err)
	}
	var out []shippedBoard
	for _, f := range files {
		var raw struct {
			Panels []struct {
				Title   string
				Targets []struct{ Expr, RefID string }
			}
			Templating struct {
				List []boardVariable
			}
		}
		if err := json.Unmarshal(f.JSON, &raw); err != nil {
			t.Fatal(err)
		}
		b := shippedBoard{name: f.Name, variables: raw.Templating.List}
		for _, p := range raw.Panels {
			for _, tg := range p.Targets {
				b.queries = append(b.queries, boardQuery{f.Name + ": " + p.Title + " " + tg.RefID, tg.Expr})
			}
		}
		if len(b.queries) == 0 {
			t.Fatalf("%s: no panel queries", f.Name)
		}
		out = append(out, b)
	}
	if len(out) != 3 {
		t.Fatalf("%d dashboards, want 3", len(out))
	}
	return out
}

// labelValuesQuery is Grafana's label_values(selector, label).
var labelValuesQuery = regexp.MustCompile(`^label_values\((.+),\s*(\w+)\)$`)

// variableValues are the values chosen for a dashboard's variables, as
// Grafana writes them into a query.
type variableValues map[string]string

func (v variableValues) substitute(expr string) string {
	var pairs []string
	for name, value := range v {
		pairs = append(pairs, "${"+name+"}", value, "$"+name, value)
	}
	return promqltest.Substitute(strings.NewReplacer(pairs...).Replace(expr))
}

// resolve asks prom for each variable's options in order, as Grafana
// does on load (label_values over the last hour, the earlier variables
// substituted), and returns the choices a user can make: every offered
// job and instance ticked (a variable offering none leaves the dashboard
// empty: no choice at all), cluster All (the demo has no cluster label),
// and each application offered, by name (every name: the node agent's
// application sorts among the demo's) then by id (its three newest ids).
func (b shippedBoard) resolve(t *testing.T, prom *promtest.Server) []variableValues {
	t.Helper()
	choices := []variableValues{{}}
	for _, v := range b.variables {
		q, _ := v.Query.(string)
		if v.Type != "query" {
			continue
		}
		m := labelValuesQuery.FindStringSubmatch(q)
		if m == nil {
			t.Fatalf("%s: variable %s: %q is not label_values(selector, label)", b.name, v.Name, q)
		}
		var next []variableValues
		for _, c := range choices {
			options := labelValues(t, prom, c.substitute(m[1]), m[2])
			switch {
			case v.Name == dashboards.VarCluster && len(options) == 0:
				next = append(next, with(c, v.Name, v.AllValue))
			case v.IncludeAll && v.Multi:
				if len(options) > 0 {
					next = append(next, with(c, v.Name, grafanaRegex(options)))
				}
			default:
				if v.Sort == 2 || v.Sort == 4 { // descending: the newest application ids first
					slices.Reverse(options)
				}
				if v.Name == dashboards.VarAppID {
					options = options[:min(3, len(options))]
				}
				for _, o := range options {
					next = append(next, with(c, v.Name, o))
				}
			}
		}
		choices = next
	}
	return choices
}

func with(v variableValues, name, value string) variableValues {
	out := variableValues{name: value}
	for k, x := range v {
		out[k] = x
	}
	return out
}

// grafanaRegex is a multi-value variable's values as Grafana's Prometheus
// data source writes them into a =~ matcher: regex-escaped, inside the
// query's double-quoted string, alternated.
func grafanaRegex(values []string) string {
	escaped := make([]string, len(values))
	for i, v := range values {
		escaped[i] = strings.ReplaceAll(regexp.QuoteMeta(v), `\`, `\\`)
	}
	if len(escaped) == 1 {
		return escaped[0]
	}
	return "(" + strings.Join(escaped, "|") + ")"
}

// labelValues is Prometheus' answer to Grafana's label_values(selector,
// label): the label's values on the series selector matches in the last
// hour, sorted.
func labelValues(t *testing.T, prom *promtest.Server, selector, label string) []string {
	t.Helper()
	now := time.Now()
	var body struct {
		Status string   `json:"status"`
		Error  string   `json:"error"`
		Data   []string `json:"data"`
	}
	path := "/api/v1/label/" + label + "/values?" + url.Values{
		"match[]": {selector},
		"start":   {strconv.FormatInt(now.Add(-time.Hour).Unix(), 10)},
		"end":     {strconv.FormatInt(now.Unix(), 10)},
	}.Encode()
	if err := prom.Get(path, &body); err != nil {
		t.Fatal(err)
	}
	if body.Status != "success" {
		t.Fatalf("label values of %s on %s: %s", label, selector, body.Error)
	}
	slices.Sort(body.Data)
	return body.Data
}

// startDemo runs `sparkglance serve --demo` with args until the test
// ends, and returns its listen address.
func startDemo(t *testing.T, bin, name string, args ...string) string {
	t.Helper()
	return startServe(t, bin, name, append([]string{"--demo", "--otlp.interval=2s", "--otlp.service-instance-id=demo-" + name}, args...)...)
}

// startServe runs `sparkglance serve` with args until the test ends, and
// returns its listen address.
func startServe(t *testing.T, bin, name string, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	addr := testkit.FreeLoopbackAddr(t)
	logPath := testkit.StartProcess(t, dir, "sparkglance-"+name, bin, append([]string{"serve", "--web.listen-address=" + addr, "--log.level=warn"}, args...)...)
	promtest.WaitReady(t, "http://"+addr+"/-/ready", time.Minute, logPath)
	return addr
}

// ruleExpr is the expression of the shipped alert named name.
func ruleExpr(t *testing.T, name string) string {
	t.Helper()
	for _, g := range alerts.Groups(alerts.DefaultThresholds()) {
		for _, r := range g.Rules {
			if r.Alert == name {
				return r.Expr
			}
		}
	}
	t.Fatalf("no alert %s in the shipped rules", name)
	return ""
}

// nodeAgentWh is the CCSparkDriverPlugin gauge the node agent's Spark UI
// reports.
const nodeAgentWh = 3.5

// startNodeAgent feeds what the demo cannot: a sparkglance as a node agent
// beside a real JVM that looks like an executor of testkit.OTelSparkApp
// (process energy under the TDP model, stack sampling), reading that
// application's driver from the recorded otel-contrib captures served on
// loopback, with the CCSparkDriverPlugin gauge added (--collector.spark).
// It returns the agent's listen address.
func startNodeAgent(t *testing.T, bin string) string {
	t.Helper()
	classes := jvmtest.Compile(t)
	jvmtest.Start(t, classes, jvmtest.Options{
		MainClass: jvmtest.FakeExecutorMain,
		MainArgs:  []string{"--driver-url", "spark://CoarseGrainedScheduler@h:7078", "--executor-id", "1", "--app-id", testkit.OTelSparkApp, "--"},
	}, "spin=1", "blocked=1", "sleep=1")
	metricsJSON := testkit.WithCCSparkGauge(t, testkit.ReadShared(t, "spark-api", "otel-contrib", "cluster_stats_response.json"), nodeAgentWh)
	driver := testkit.ServeJSON(t, testkit.OTelSparkRoutes(t, metricsJSON))
	return startServe(t, bin, "node", "--collector.disable-defaults", "--collector.process", "--collector.stacks",
		"--profiling.enabled", "--energy.tdp-watts=100", "--process.discovery-interval=1s", "--process.interval=1s",
		"--collector.spark", "--spark.url="+driver.URL)
}
