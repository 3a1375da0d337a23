//go:build e2e

package main

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/prometheus/otlptranslator"

	sm "github.com/sparkglance/sparkglance/internal/metricschema"
	"github.com/sparkglance/sparkglance/internal/testkit"
	"github.com/sparkglance/sparkglance/internal/testkit/promtest"
)

// sparkglance pushes the real logs (and the oddly named application) over
// OTLP to Prometheus 3's own OTLP receiver, under its default translation
// (UnderscoreEscapingWithSuffixes) and under NoTranslation: every spark_
// series of /metrics arrives with its labels and value, under the name
// otlptranslator makes of its name, unit and type (the names
// deploy/README.md lists).
func TestOTLPPushToPrometheus3(t *testing.T) {
	p := testkit.Prometheus3(t)
	dir := realLogsWithOddApp(t)
	for _, strategy := range []otlptranslator.TranslationStrategyOption{otlptranslator.UnderscoreEscapingWithSuffixes, otlptranslator.NoTranslation} {
		t.Run(string(strategy), func(t *testing.T) {
			config := "global:\n  scrape_interval: 15s\notlp:\n  translation_strategy: " + string(strategy) + "\n"
			prom := promtest.StartRelease(t, p, config, nil, "--web.enable-otlp-receiver")
			addr, stop := runServe(t, "--eventlog.dir="+dir, "--eventlog.follow-external-links", "--eventlog.retention=876000h",
				"--log.level=warn", "--no-collector.spark", "--otlp.protocol=http", "--otlp.interval=2s",
				"--otlp.endpoint="+prom.URL+"/api/v1/otlp/v1/metrics")
			defer stop()
			promtest.WaitReady(t, "http://"+addr+"/-/ready", time.Minute, "/dev/null")
			settledMetrics(t, "http://"+addr+"/metrics")
			families := metricsFamilies(t, "http://"+addr+"/metrics")
			namer := otlptranslator.NewMetricNamer("", strategy)
			want := otlpSeries(t, families, namer)
			requireRenamed(t, want, strategy)
			var diffs []string
			for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(2 * time.Second) {
				got, err := otlpStored(prom)
				if err != nil {
					t.Fatal(err)
				}
				diffs = diffSeries(got, want, true)
				if len(diffs) == 0 {
					return
				}
			}
			t.Errorf("%s: after a minute, %d differences between Prometheus and /metrics, the first:\n%s",
				strategy, len(diffs), strings.Join(diffs[:min(20, len(diffs))], "\n"))
		})
	}
}

// requireRenamed checks that the expected series are many and, under a
// translation that adds suffixes, include renamed ones (the test compares
// something): spark_app_info arrives as spark_app_info_ratio.
func requireRenamed(t *testing.T, want []flatSeries, strategy otlptranslator.TranslationStrategyOption) {
	t.Helper()
	info := "spark_app_info{"
	if strategy.ShouldAddSuffixes() {
		info = "spark_app_info_ratio{"
	}
	n := 0
	for _, s := range want {
		if strings.HasPrefix(s.key, info) {
			n++
		}
	}
	if len(want) < 1000 || n < 17 {
		t.Fatalf("expected %d spark_ series, %d of them %s…}: the real logs should give thousands, and 17 applications", len(want), n, info)
	}
}

// metricsFamilies GETs url (the text format) and parses it.
func metricsFamilies(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(testkit.HTTPGetOK(t, url)))
	if err != nil {
		t.Fatal(err)
	}
	return families
}

// otlpSeries are the spark_ series of families under the names an OTLP
// receiver translating with namer gives them.
func otlpSeries(t *testing.T, families map[string]*dto.MetricFamily, namer otlptranslator.MetricNamer) []flatSeries {
	t.Helper()
	renamed := map[string]*dto.MetricFamily{}
	for name, mf := range families {
		if !strings.HasPrefix(name, "spark_") {
			continue
		}
		unit, _ := sm.UnitOf(name)
		typ := map[dto.MetricType]otlptranslator.MetricType{
			dto.MetricType_COUNTER: otlptranslator.MetricTypeMonotonicCounter, dto.MetricType_GAUGE: otlptranslator.MetricTypeGauge,
			dto.MetricType_SUMMARY: otlptranslator.MetricTypeSummary, dto.MetricType_HISTOGRAM: otlptranslator.MetricTypeHistogram,
		}[mf.GetType()]
		translated, err := namer.Build(otlptranslator.Metric{Name: name, Unit: unit, Type: typ})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		renamed[translated] = mf
	}
	return flatten(renamed)
}

// receiverLabel is a label an OTLP receiver adds: job and instance from the
// resource, the instrumentation scope's.
func receiverLabel(name string) bool {
	return name == "job" || name == "instance" || strings.HasPrefix(name, "otel_scope_")
}

// otlpStored is every spark_ series Prometheus holds now, without the
// labels the OTLP receiver adds.
func otlpStored(prom *promtest.Server) ([]flatSeries, error) {
	samples, err := prom.Samples(`{__name__=~"spark_.+"}`)
	if err != nil {
		return nil, err
	}
	var out []flatSeries
	for _, s := range samples {
		l := maps.Clone(s.Labels)
		name := l["__name__"]
		delete(l, "__name__")
		maps.DeleteFunc(l, func(k, _ string) bool { return receiverLabel(k) })
		out = append(out, flatSeries{seriesKey(name, l), s.Value})
	}
	slices.SortFunc(out, func(a, b flatSeries) int { return strings.Compare(a.key, b.key) })
	return out, nil
}

// sparkglance pushes the real logs over OTLP to the OpenTelemetry Collector
// users deploy, which remote-writes them to Prometheus 3 and serves them
// on its Prometheus exporter: on both, every spark_ series of /metrics
// arrives with its labels and value, under the name Prometheus 3's default
// translation makes of it (the collector translates the same way).
func TestOTLPPushThroughCollector(t *testing.T) {
	p := testkit.Prometheus3(t)
	otelcol := testkit.OTelCollector(t)
	dir := realLogsWithOddApp(t)
	prom := promtest.StartRelease(t, p, "global:\n  scrape_interval: 15s\n", nil, "--web.enable-remote-write-receiver")
	otlpAddr, exporterAddr := testkit.FreeLoopbackAddr(t), testkit.FreeLoopbackAddr(t)
	config := fmt.Sprintf(`receivers:
  otlp:
    protocols:
      http:
        endpoint: %s
exporters:
  prometheus:
    endpoint: %s
  prometheusremotewrite:
    endpoint: %s/api/v1/write
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    metrics:
      receivers: [otlp]
      exporters: [prometheus, prometheusremotewrite]
`, otlpAddr, exporterAddr, prom.URL)
	startCollector(t, otelcol, config)
	promtest.WaitReady(t, "http://"+exporterAddr+"/metrics", time.Minute, "/dev/null")

	addr, stop := runServe(t, "--eventlog.dir="+dir, "--eventlog.follow-external-links", "--eventlog.retention=876000h",
		"--log.level=warn", "--no-collector.spark", "--otlp.protocol=http", "--otlp.interval=2s",
		"--otlp.endpoint=http://"+otlpAddr)
	defer stop()
	promtest.WaitReady(t, "http://"+addr+"/-/ready", time.Minute, "/dev/null")
	settledMetrics(t, "http://"+addr+"/metrics")
	namer := otlptranslator.NewMetricNamer("", otlptranslator.UnderscoreEscapingWithSuffixes)
	want := otlpSeries(t, metricsFamilies(t, "http://"+addr+"/metrics"), namer)
	requireRenamed(t, want, otlptranslator.UnderscoreEscapingWithSuffixes)

	for _, path := range []struct {
		name   string
		stored func() ([]flatSeries, error)
	}{
		{"remote write to Prometheus 3", func() ([]flatSeries, error) { return otlpStored(prom) }},
		{"the collector's Prometheus exporter", func() ([]flatSeries, error) {
			parser := expfmt.NewTextParser(model.UTF8Validation)
			families, err := parser.TextToMetricFamilies(strings.NewReader(testkit.HTTPGetOK(t, "http://"+exporterAddr+"/metrics")))
			if err != nil {
				return nil, err
			}
			for name, mf := range families {
				if !strings.HasPrefix(name, "spark_") {
					delete(families, name)
					continue
				}
				for _, m := range mf.GetMetric() {
					m.Label = slices.DeleteFunc(m.Label, func(lp *dto.LabelPair) bool { return receiverLabel(lp.GetName()) })
				}
			}
			return flatten(families), nil
		}},
	} {
		var diffs []string
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(2 * time.Second) {
			got, err := path.stored()
			if err != nil {
				t.Fatal(err)
			}
			diffs = diffSeries(got, want, true)
			if len(diffs) == 0 {
				break
			}
		}
		if len(diffs) > 0 {
			t.Errorf("%s: after a minute, %d differences with /metrics, the first:\n%s", path.name, len(diffs), strings.Join(diffs[:min(20, len(diffs))], "\n"))
		}
	}
}

// startCollector runs the collector on config until the test ends.
func startCollector(t *testing.T, bin, config string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	var log testkit.SyncBuffer
	cmd := exec.Command(bin, "--config=file:"+path)
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("collector log:\n%s", log.String())
		}
	})
}
