package reference

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/sparkglance/sparkglance/cmd/internal/wiring"
	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/exporter/exportertest"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

const (
	logApp   = "local-1422981759269" // followed through its event log and shown by the fake Spark UI
	otherApp = "local-1682603253681" // only in the fake Spark UI (otel-contrib captures)
)

// fakeSparkUI serves the otel-contrib captures of one running Spark 3.4.0
// driver, plus the same executors and stages under the event log's
// application id, so that both collectors see that application.
func fakeSparkUI(t *testing.T) *httptest.Server {
	t.Helper()
	read := func(name string) []byte {
		b, err := os.ReadFile(testkit.Path(t, "spark-api", "otel-contrib", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var apps []map[string]any
	if err := json.Unmarshal(read("apps_stats_response.json"), &apps); err != nil {
		t.Fatal(err)
	}
	same := map[string]any{}
	for k, v := range apps[0] {
		same[k] = v
	}
	same["id"], same["name"] = logApp, "Spark shell"
	appsJSON, err := json.Marshal(append(apps, same))
	if err != nil {
		t.Fatal(err)
	}
	stages := strings.Replace(string(read("stages_stats_response.json")), `"COMPLETE"`, `"ACTIVE"`, 1)
	routes := map[string][]byte{"/api/v1/applications": appsJSON, "/metrics/json": read("cluster_stats_response.json")}
	for _, id := range []string{logApp, otherApp} {
		routes["/api/v1/applications/"+id+"/allexecutors"] = read("executors_stats_response.json")
		routes["/api/v1/applications/"+id+"/stages"] = []byte(stages)
	}
	return testkit.ServeJSON(t, routes)
}

// allCollectors is every collector with its shared services: the serve
// command's own wiring.
func allCollectors() *exporter.Catalog { return wiring.New().Catalog }

// allCollectorsArgs are the serve flags turning every collector on: the
// event log of logApp, the fake Spark UI, the process collector's /proc and
// /sys fixtures.
func allCollectorsArgs(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Symlink(testkit.Events(t, logApp), filepath.Join(dir, logApp)); err != nil {
		t.Fatal(err)
	}
	srv := fakeSparkUI(t)
	fixtures := filepath.Join("..", "..", "..", "collectors", "process", "testdata")
	return []string{
		"--collector.eventlog", "--eventlog.dir=" + dir, "--eventlog.follow-external-links", "--eventlog.retention=876000h", "--eventlog.poll-interval=100ms",
		"--collector.spark", "--spark.url=" + srv.URL,
		"--collector.process", "--path.procfs=" + filepath.Join(fixtures, "node", "proc"),
		"--path.sysfs=" + filepath.Join(fixtures, "rapl", "sys"), "--process.interval=100ms", "--process.discovery-interval=100ms",
		"--collector.stacks",
	}
}

func TestAllCollectorsInOneExporter(t *testing.T) {
	// serve with every collector on, wired as serve wires them
	exp := exportertest.Start(t, allCollectors(), allCollectorsArgs(t)...)

	var families []*dto.MetricFamily
	deadline := time.Now().Add(30 * time.Second)
	for {
		var err error
		families, err = exp.Gather()
		if err != nil {
			t.Fatalf("gather: %v", err)
		}
		if has(families, "spark_app_end_time_seconds", logApp) && has(families, "spark_process_cpu_seconds_total", "") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the event log's application or the process collector's sample did not show within 30s")
		}
		time.Sleep(100 * time.Millisecond)
	}

	byName := map[string]*dto.MetricFamily{}
	for _, f := range families {
		byName[f.GetName()] = f
	}
	for _, c := range []string{"eventlog", "spark", "process", "stacks"} {
		if v := value(byName["sparkglance_scrape_collector_success"], "collector", c); v != 1 {
			t.Errorf("collector %s: success %v, want 1", c, v)
		}
	}

	// Each family matches its one definition (the registry already
	// rejected any HELP or label clash within this gather).
	defs := map[string]*sm.Metric{}
	for _, s := range Sections() {
		for _, m := range s.Metrics {
			defs[m.Name] = m
		}
	}
	for _, f := range families {
		name := f.GetName()
		if strings.HasPrefix(name, "go_") || strings.HasPrefix(name, "process_") || strings.HasPrefix(name, "promhttp_") ||
			strings.HasPrefix(name, "spark_metrics_") {
			continue
		}
		d, ok := defs[name]
		if !ok {
			t.Errorf("%s is emitted but not documented", name)
			continue
		}
		if d.Help != f.GetHelp() || string(d.Type) != strings.ToLower(f.GetType().String()) {
			t.Errorf("%s: emitted as %s %q, defined as %s %q", name, f.GetType(), f.GetHelp(), d.Type, d.Help)
		}
		for _, m := range f.GetMetric() {
			if m.TimestampMs != nil {
				t.Errorf("%s carries a timestamp", name)
			}
		}
	}

	// Every series carries only the labels its family declares, closed
	// ones with their declared values.
	if err := sm.CheckSeries(families); err != nil {
		t.Error(err)
	}

	// The application both collectors see has its shared families from
	// its event log only: the log has ended, so no live executor or stage
	// is left although the fake UI shows some (REST's are dropped); the
	// other application's come from REST.
	endedInLog := map[*sm.Metric]bool{sm.ExecutorCores: true, sm.ExecutorActiveTasks: true, sm.StageActive: true}
	for _, m := range sm.Shared() {
		f := byName[m.Name]
		if f == nil {
			t.Errorf("%s missing", m.Name)
			continue
		}
		if n := count(f, otherApp); n == 0 {
			t.Errorf("%s: no series for %s", m.Name, otherApp)
		}
		if n := count(f, logApp); (n == 0) != endedInLog[m] {
			t.Errorf("%s: %d series for %s, want them from the event log only", m.Name, n, logApp)
		}
	}
	if n := count(byName["spark_app_info"], logApp); n != 1 {
		t.Errorf("spark_app_info: %d series for %s, want 1", n, logApp)
	}
	if got := label(byName["spark_app_info"], logApp, "user"); got != "irashid" {
		t.Errorf("spark_app_info{app_id=%s} user %q, want the event log's irashid", logApp, got)
	}
	if got := categories(byName["spark_executor_task_time_seconds_total"], logApp); got != "cpu,gc,run,serde,shuffle" {
		t.Errorf("task time categories of %s: %s, want the event log's five", logApp, got)
	}
	if got := categories(byName["spark_executor_task_time_seconds_total"], otherApp); got != "gc,run" {
		t.Errorf("task time categories of %s: %s, want REST's gc,run", otherApp, got)
	}
	if count(byName["spark_executor_max_tasks"], logApp) == 0 {
		t.Errorf("spark_executor_max_tasks: the spark collector's own families must stay for a claimed application")
	}

	t.Run("promtool", func(t *testing.T) {
		var text strings.Builder
		for _, f := range families {
			if _, err := expfmt.MetricFamilyToText(&text, f); err != nil {
				t.Fatal(err)
			}
		}
		testkit.PromtoolCheckMetrics(t, text.String())
	})
}

func labelValue(m *dto.Metric, name string) (string, bool) {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue(), true
		}
	}
	return "", false
}

// has reports whether family name has a series of app (any series when
// app is empty).
func has(families []*dto.MetricFamily, name, app string) bool {
	for _, f := range families {
		if f.GetName() == name {
			return app == "" && len(f.GetMetric()) > 0 || count(f, app) > 0
		}
	}
	return false
}

func count(f *dto.MetricFamily, app string) int {
	n := 0
	for _, m := range f.GetMetric() {
		if v, _ := labelValue(m, "app_id"); v == app {
			n++
		}
	}
	return n
}

func label(f *dto.MetricFamily, app, name string) string {
	for _, m := range f.GetMetric() {
		if v, _ := labelValue(m, "app_id"); v == app {
			l, _ := labelValue(m, name)
			return l
		}
	}
	return ""
}

func value(f *dto.MetricFamily, name, want string) float64 {
	for _, m := range f.GetMetric() {
		if v, _ := labelValue(m, name); v == want {
			return m.GetGauge().GetValue()
		}
	}
	return -1
}

// categories lists the distinct category labels of app's series, sorted.
func categories(f *dto.MetricFamily, app string) string {
	seen := map[string]bool{}
	var out []string
	for _, m := range f.GetMetric() {
		if v, _ := labelValue(m, "app_id"); v == app {
			c, _ := labelValue(m, "category")
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}
