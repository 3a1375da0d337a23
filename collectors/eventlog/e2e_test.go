package eventlog

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/simulate"
	"github.com/sparkglance/sparkglance/internal/testkit"
	"github.com/sparkglance/sparkglance/internal/testkit/promtest"
)

// A real Prometheus scrapes the exporter over the real logs plus a live
// simulated one; its query API returns the values of independent analyses.
func TestPrometheusScrapesRealAndLiveLogs(t *testing.T) {
	t.Parallel() // waits on Prometheus or the OTLP pushes far more than it computes
	dir, names := mainSetLogs(t)
	base, _ := startExporter(t, testConfig(dir))
	prom := promtest.StartScraping(t, strings.TrimPrefix(base, "http://"))

	cfg := liveConfig("app-20261130130000-0042")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	final, err := simulate.Live(ctx, dir, cfg, simulate.LiveOptions{Codec: "zstd", Speed: 25})
	if err != nil {
		t.Fatalf("simulate.Live: %v", err)
	}

	// The live app was seen running, and is finished now.
	waitFor(t, 20*time.Second, "Prometheus sees 17 finished applications", func() bool {
		s := promQuery(prom, `sparkglance_eventlog_apps{state="finished"}`)
		return len(s) == 1 && s[0].Value == 19 // 18 files + the live one
	})
	if s := promQuery(prom, `max_over_time(sparkglance_eventlog_apps{state="running"}[5m])`); len(s) != 1 || s[0].Value != 1 {
		t.Errorf("running applications over time: %v, want a maximum of 1", s)
	}
	if s := promQuery(prom, `count(spark_app_info)`); len(s) != 1 || s[0].Value != 17 {
		t.Errorf("count(spark_app_info) = %v, want 17 (16 real applications + the live one)", s)
	}
	if s := promQuery(prom, `max_over_time(spark_app_active_tasks{app_id="`+cfg.AppID+`"}[5m])`); len(s) != 1 || s[0].Value < 1 {
		t.Errorf("the live application never showed active tasks: %v", s)
	}

	got := map[string]float64{}
	for _, s := range promQuery(prom, `spark_app_core_seconds_total`) {
		got[s.Labels["app_id"]] = s.Value
	}
	cpu := map[string]float64{}
	for _, s := range promQuery(prom, `sum by (app_id) (spark_executor_task_time_seconds_total{category="cpu"})`) {
		cpu[s.Labels["app_id"]] = s.Value
	}
	paths := []string{final}
	for _, n := range names {
		if n != "local-1426533911241" && n != "local-1430917381535_1" { // superseded attempts
			paths = append(paths, filepath.Join(dir, n))
		}
	}
	for _, p := range paths {
		r := referenceReport(t, p, 10*time.Second)
		if v, ok := got[r.AppID]; !ok || !near(v, r.Totals.AvailableCoreSecs) {
			t.Errorf("%s: Prometheus has core seconds %v (present %v), analysis says %v", r.AppID, v, ok, r.Totals.AvailableCoreSecs)
		}
		if v := cpu[r.AppID]; !near(v, r.Totals.CPUSeconds) && (v != 0 || r.Totals.CPUSeconds != 0) {
			t.Errorf("%s: Prometheus sums CPU seconds to %v, analysis says %v", r.AppID, v, r.Totals.CPUSeconds)
		}
	}
}

// promtool's linter accepts a full scrape of real and simulated logs.
func TestPromtoolCheckMetrics(t *testing.T) {
	testkit.RequireTool(t, "promtool") // before the costly set-up
	dir, _ := mainSetLogs(t)
	cfg := liveConfig("app-20261130140000-0001")
	cfg.Live = true
	if _, err := simulate.Live(context.Background(), dir, cfg, simulate.LiveOptions{Speed: 0}); err != nil {
		t.Fatal(err)
	}
	base, w := startExporter(t, testConfig(dir))
	waitReady(t, w)
	body := httpGet(t, base+"/metrics")
	for _, want := range []string{"spark_app_info{", "spark_executor_spill_bytes_total{", "sparkglance_eventlog_lag_seconds{", "spark_app_finding{"} {
		if !strings.Contains(body, want) {
			t.Errorf("scrape lacks %s", want)
		}
	}
	testkit.PromtoolCheckMetrics(t, body)
}

// promQuery runs an instant query; nil while Prometheus is not answering.
func promQuery(prom *promtest.Server, query string) []promtest.Sample {
	samples, _ := prom.Samples(query)
	return samples
}
