package sparkapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/sparkglance/sparkglance/collectors/sharedtest"
	"github.com/sparkglance/sparkglance/exporter"
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
		body, ok := routes[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(body)
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
		return New(Options{URLs: []string{spark}, Claims: noClaims{}}, logger)
	})
	app := kingpin.New("test", "")
	cfg := exporter.AddFlags(app, cat)
	if _, err := app.Parse([]string{"--web.listen-address=127.0.0.1:0"}); err != nil {
		t.Fatal(err)
	}
	e, err := exporter.New(*cfg, cat, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	addrs, err := e.Listen()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("exporter did not stop within 10 s")
		}
	})
	return "http://" + addrs[0].String()
}

// A real Prometheus scrapes the exporter pointed at a Spark whose active
// task count grows; its query API must see the target up and the value move.
func TestRealPrometheusSeesSparkChange(t *testing.T) {
	promBin := sharedtest.RequireTool(t, "prometheus")
	target := strings.TrimPrefix(startExporter(t, changingSpark(t).URL), "http://")
	dir := t.TempDir()
	promAddr := freeLoopbackAddr(t)
	config := fmt.Sprintf("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: sparkglance\n    static_configs:\n      - targets: ['%s']\n", target)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	logFile, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd := exec.Command(promBin, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+promAddr)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			out, _ := os.ReadFile(logFile.Name())
			t.Logf("prometheus log:\n%s", out)
		}
	})

	query := `spark_executor_active_tasks{app_name="streaming-example",executor_id="driver"}`
	var first, last float64
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if v, ok := promQuery(promAddr, query); ok {
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
	if up, ok := promQuery(promAddr, "spark_target_up"); !ok || up != 1 {
		t.Errorf("spark_target_up = %v (found %v), want 1", up, ok)
	}
	if v, ok := promQuery(promAddr, `sparkglance_scrape_collector_success{collector="spark"}`); !ok || v != 1 {
		t.Errorf("collector success = %v (found %v), want 1", v, ok)
	}
}

// promtool's linter accepts a full scrape of the collector.
func TestPromtoolCheckMetrics(t *testing.T) {
	promtool := sharedtest.RequireTool(t, "promtool")
	routes := otelRoutes(t, withCCSparkGauge(t, readShared(t, "spark-api", "otel-contrib", "cluster_stats_response.json"), 3.5))
	driver := fakeSpark(t, routes)
	metricsOnly := fakeSpark(t, map[string][]byte{"/metrics/json": readShared(t, "spark-api", "datadog-integrations-core", "metrics_json")})
	hs := fakeSpark(t, map[string][]byte{"/api/v1/applications": readShared(t, "oracle", "application_list_json_expectation.json")})
	c, _ := newTestCollector(t, Options{URLs: []string{driver.URL, metricsOnly.URL + "/metrics/json", hs.URL, faultyTarget(t, nil)}})
	body := scrape(t, c, 3*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(body)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil || out.Len() > 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out.String())
	}
}

// promQuery runs an instant query and returns the first result's value.
func promQuery(promAddr, query string) (float64, bool) {
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get("http://" + promAddr + "/api/v1/query?query=" + url.QueryEscape(query))
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	var answer struct {
		Data struct {
			Result []struct {
				Value [2]any
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil || len(answer.Data.Result) == 0 {
		return 0, false
	}
	s, _ := answer.Data.Result[0].Value[1].(string)
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}
