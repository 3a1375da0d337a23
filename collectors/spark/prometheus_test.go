package spark

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/exporter/exportertest"
	"github.com/sparkglance/sparkglance/internal/testkit"
	"github.com/sparkglance/sparkglance/internal/testkit/promtest"
)

// changingSpark serves the otel driver captures, with the driver's
// activeTasks going up by one on every read of allexecutors.
func changingSpark(t *testing.T) *httptest.Server {
	t.Helper()
	routes := otelRoutes(t, nil)
	var execs []map[string]any
	if err := json.Unmarshal(routes["/api/v1/applications/"+otelApp+"/allexecutors"], &execs); err != nil {
		t.Fatal(err)
	}
	var reads atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/applications/"+otelApp+"/allexecutors" {
			execs[0]["activeTasks"] = reads.Add(1)
			_ = json.NewEncoder(w).Encode(execs)
			return
		}
		testkit.JSONRoutes(routes).ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// startExporter runs the exporter framework in-process with only this
// collector, pointed at spark, and returns its base URL.
func startExporter(t *testing.T, spark string) string {
	t.Helper()
	cat := exporter.NewCatalog()
	cat.Register("spark", true, func(logger *slog.Logger) (exporter.Collector, error) {
		c, err := New(Options{URLs: []string{spark}, Claims: noClaims{}}, logger)
		if err != nil {
			return nil, err
		}
		return exporter.FromUpdater(c), nil
	})
	return exportertest.Start(t, cat).URL
}

// A real Prometheus scrapes the exporter pointed at a Spark whose active
// task count grows; its query API must see the target up and the value move.
func TestRealPrometheusSeesSparkChange(t *testing.T) {
	target := strings.TrimPrefix(startExporter(t, changingSpark(t).URL), "http://")
	prom := promtest.StartScraping(t, target)

	query := `spark_executor_active_tasks{app_name="streaming-example",executor_id="driver"}`
	var first, last float64
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if v, ok := promQuery(prom, query); ok {
			if first == 0 {
				first = v
			}
			last = v
			if last >= first+2 {
				break
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	if first == 0 || last < first+2 {
		t.Fatalf("Prometheus saw %s go from %v to %v within 20 s; want it to grow by 2 scrapes", query, first, last)
	}
	if up, ok := promQuery(prom, "spark_target_up"); !ok || up != 1 {
		t.Errorf("spark_target_up = %v (found %v), want 1", up, ok)
	}
	if v, ok := promQuery(prom, `sparkglance_scrape_collector_success{collector="spark"}`); !ok || v != 1 {
		t.Errorf("collector success = %v (found %v), want 1", v, ok)
	}
}

// promtool's linter accepts a full scrape of the collector.
func TestPromtoolCheckMetrics(t *testing.T) {
	routes := otelRoutes(t, withCCSparkGauge(t, readShared(t, "spark-api", "otel-contrib", "cluster_stats_response.json"), 3.5))
	driver := fakeSpark(t, routes)
	metricsOnly := fakeSpark(t, map[string][]byte{"/metrics/json": readShared(t, "spark-api", "datadog-integrations-core", "metrics_json")})
	hs := fakeSpark(t, map[string][]byte{"/api/v1/applications": readShared(t, "oracle", "application_list_json_expectation.json")})
	c, _ := newTestCollector(t, Options{URLs: []string{driver.URL, metricsOnly.URL + "/metrics/json", hs.URL, faultyTarget(t, nil)}})
	body := scrape(t, c, 3*time.Second)
	testkit.PromtoolCheckMetrics(t, body)
}

// promQuery runs an instant query and returns the first result's value.
func promQuery(prom *promtest.Server, query string) (float64, bool) {
	samples, err := prom.Samples(query)
	if err != nil || len(samples) == 0 {
		return 0, false
	}
	return samples[0].Value, true
}
