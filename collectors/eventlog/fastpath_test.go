package eventlog

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/sparkglance/sparkglance/exporter"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
	"github.com/sparkglance/sparkglance/internal/simulate"
)

// otherSparkApp stands for the spark collector: shared families (the same
// definitions) for an application the event-log collector does not follow.
type otherSparkApp struct{}

func (otherSparkApp) Update(_ context.Context, ch chan<- prometheus.Metric) error {
	const id, name = "app-20200101000000-0000", "seen over REST only"
	ch <- prometheus.MustNewConstMetric(sm.AppInfo.Desc(), prometheus.GaugeValue, 1, id, name, "3.5.0", "rest", "1")
	ch <- prometheus.MustNewConstMetric(sm.AppStartTime.Desc(), prometheus.GaugeValue, 1.5e9, id, name)
	for _, e := range []string{"1", "driver"} {
		ch <- prometheus.MustNewConstMetric(sm.ExecutorCores.Desc(), prometheus.GaugeValue, 4, id, name, e)
		ch <- prometheus.MustNewConstMetric(sm.ExecutorTaskTime.Desc(), prometheus.CounterValue, 12.5, id, name, e, "run")
	}
	return nil
}

// volatile families change between two gathers by themselves.
func volatile(name string) bool {
	for _, p := range []string{"go_", "process_", "promhttp_", "sparkglance_scrape_collector_duration", "sparkglance_eventlog_lag"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// TestTextFastPathEqualsRegistryPath: /metrics in the text format (ready
// families) and the registry's gather of the same collectors (Update) hold
// the same families, help, types and series in the same order, on the 18
// real logs plus a live simulated one, with another collector emitting
// shared families for a different application.
func TestTextFastPathEqualsRegistryPath(t *testing.T) {
	dir, _ := mainSetLogs(t)
	cfg := simulate.DefaultConfig()
	cfg.Start, cfg.Live, cfg.Executors = time.Now(), true, 12
	cfg.StreamingBatches = 6 // the spark_streaming_* families too
	if _, err := simulate.Live(context.Background(), dir, cfg, simulate.LiveOptions{}); err != nil {
		t.Fatal(err)
	}
	w := startWatcher(t, testConfig(dir))
	waitReady(t, w)
	// The live application's first view holds its settled counters at 0
	// (born at 0: trackedApp.publish); the next view, published as soon as
	// the throttle allows, shows them. The two paths are compared once that
	// one is out, not across it.
	waitFor(t, 30*time.Second, "the live application's settled counters", func() bool {
		v, _ := series(gather(t, w), "spark_app_settled_core_seconds_total", map[string]string{"app_id": cfg.AppID})
		return v > 0
	})

	cat := exporter.NewCatalog()
	cat.Register(CollectorName, true, func(*slog.Logger) (exporter.Collector, error) { return exporter.FromFamilies(w), nil })
	cat.Register("spark", true, func(*slog.Logger) (exporter.Collector, error) { return exporter.FromUpdater(otherSparkApp{}), nil })
	app := kingpin.New("test", "")
	ecfg := exporter.AddFlags(app, cat)
	if _, err := app.Parse([]string{"--web.listen-address=127.0.0.1:0"}); err != nil {
		t.Fatal(err)
	}
	e, err := exporter.New(*ecfg, cat, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}

	rec := httptest.NewRecorder()
	e.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", rec.Code, rec.Body)
	}
	fast := parseText(t, rec.Body.Bytes())

	slowFamilies, err := e.Gatherer(context.Background()).Gather()
	if err != nil {
		t.Fatal(err)
	}
	var slowText bytes.Buffer
	for _, mf := range slowFamilies {
		if _, err := expfmt.MetricFamilyToText(&slowText, mf); err != nil {
			t.Fatal(err)
		}
	}
	slow := parseText(t, slowText.Bytes())

	if a, b := familyNames(fast), familyNames(slow); !slices.Equal(a, b) {
		t.Fatalf("families differ:\nfast %v\nslow %v", a, b)
	}
	total := 0
	for name, s := range slow {
		f := fast[name]
		if f.GetHelp() != s.GetHelp() || f.GetType() != s.GetType() {
			t.Errorf("%s: fast help/type %q/%s, slow %q/%s", name, f.GetHelp(), f.GetType(), s.GetHelp(), s.GetType())
		}
		if volatile(name) {
			continue
		}
		fs, ss := seriesLines(f), seriesLines(s)
		if !slices.Equal(fs, ss) {
			t.Errorf("%s: %d series on the fast path, %d on the slow; first difference:\n%s", name, len(fs), len(ss), firstDiff(fs, ss))
		}
		total += len(ss)
	}
	// Both collectors' series of a shared family are there, once each.
	for _, name := range []string{"spark_app_info", "spark_executor_cores", "spark_executor_task_time_seconds_total"} {
		apps := map[string]bool{}
		for _, m := range fast[name].GetMetric() {
			apps[labelValue(m, "app_id")] = true
		}
		if !apps["app-20200101000000-0000"] || !apps[cfg.AppID] {
			t.Errorf("%s: applications %v, want the REST-only one and %s", name, apps, cfg.AppID)
		}
	}
	for _, name := range []string{"spark_streaming_batch_phase_seconds", "spark_streaming_source_offset_lag", "spark_streaming_watermark_lag_seconds"} {
		if len(slow[name].GetMetric()) < 2 {
			t.Errorf("%s: %d series compared, want some of each of the simulated application's 2 queries", name, len(slow[name].GetMetric()))
		}
	}
	if total < 1000 {
		t.Errorf("compared %d series; the real logs give thousands", total)
	}
	t.Logf("compared %d series in %d families", total, len(slow))
}

func parseText(t *testing.T, text []byte) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		t.Fatalf("parsing the text format: %v", err)
	}
	return mfs
}

func familyNames(mfs map[string]*dto.MetricFamily) []string {
	var out []string
	for n := range mfs {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// seriesLines renders each series as labels=value, in the order given.
func seriesLines(mf *dto.MetricFamily) []string {
	var out []string
	for _, m := range mf.GetMetric() {
		var b strings.Builder
		for _, lp := range m.GetLabel() {
			fmt.Fprintf(&b, "%s=%q,", lp.GetName(), lp.GetValue())
		}
		switch {
		case m.Counter != nil:
			fmt.Fprintf(&b, " %v", m.GetCounter().GetValue())
		case m.Gauge != nil:
			fmt.Fprintf(&b, " %v", m.GetGauge().GetValue())
		case m.Summary != nil:
			fmt.Fprintf(&b, " %v", m.GetSummary())
		case m.Untyped != nil:
			fmt.Fprintf(&b, " %v", m.GetUntyped().GetValue())
		}
		out = append(out, b.String())
	}
	return out
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("fast %s\nslow %s", a[i], b[i])
		}
	}
	return "one is a prefix of the other"
}

func labelValue(m *dto.Metric, name string) string {
	for _, lp := range m.GetLabel() {
		if lp.GetName() == name {
			return lp.GetValue()
		}
	}
	return ""
}

// Label values are made valid UTF-8 where the series are built, so the
// registry path (the part's series) and the text path (the part's text)
// both carry U+FFFD instead of failing on a log's invalid bytes; the
// summary, built by client_golang, which refuses invalid UTF-8, no longer
// panics either.
func TestInvalidUTF8LabelValuesSanitised(t *testing.T) {
	v := &appView{viewData: viewData{appID: "app-1", appName: "bad\xffname", sparkVersion: "3.5", user: "u\xc3", attemptID: "1"}}
	v.sql.DurationsSeconds = []float64{1, 2}
	var sawName, sawUser, sawSummary bool
	for i, p := range v.partsOnce() {
		if p == nil {
			continue
		}
		for _, m := range p.Metrics() {
			for _, lp := range m.GetLabel() {
				if !utf8.ValidString(lp.GetValue()) {
					t.Errorf("%s: label %s=%q is not valid UTF-8", families[i].m.Name, lp.GetName(), lp.GetValue())
				}
			}
		}
		text, err := p.Text()
		if err != nil {
			t.Fatalf("%s: %v", families[i].m.Name, err)
		}
		sawName = sawName || strings.Contains(string(text), `app_name="bad`+"\uFFFD"+`name"`)
		sawUser = sawUser || strings.Contains(string(text), `user="u`+"\uFFFD"+`"`)
		sawSummary = sawSummary || families[i].m == sqlDuration
	}
	if !sawName || !sawUser || !sawSummary {
		t.Errorf("sanitised app_name %v, user %v, SQL summary %v: want all", sawName, sawUser, sawSummary)
	}
}
