package exporter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/collectors/sharedtest"
	"github.com/sparkglance/sparkglance/exporter"
)

// A real Prometheus scrapes the exporter every second; its query API must
// show each collector's success, and durations that prove Prometheus'
// timeout header bounds the slow collector.
func TestRealPrometheusScrapes(t *testing.T) {
	promBin := sharedtest.RequireTool(t, "prometheus")
	cat := exporter.NewCatalog()
	cat.Register("answer", true, factory(answerCollector{}))
	cat.Register("failing", true, factory(failingCollector{}))
	cat.Register("slow", true, factory(slowCollector{}))
	target := strings.TrimPrefix(startExporter(t, cat), "http://")

	dir := t.TempDir()
	promAddr := freeLoopbackAddr(t)
	config := fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: sparkglance
    static_configs:
      - targets: ['%s']
`, target)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	logFile, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd := exec.Command(promBin,
		"--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+promAddr,
	)
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

	deadline := time.Now().Add(20 * time.Second)
	var success, duration map[string]float64
	for time.Now().Before(deadline) {
		success = queryByCollector(t, promAddr, "sparkglance_scrape_collector_success")
		duration = queryByCollector(t, promAddr, "sparkglance_scrape_collector_duration_seconds")
		if len(success) == 3 && len(duration) == 3 {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("Prometheus sees success %v, durations %v", success, duration)
	want := map[string]float64{"answer": 1, "failing": 0, "slow": 0}
	if fmt.Sprint(success) != fmt.Sprint(want) {
		t.Fatalf("Prometheus sees success %v within 20 s, want %v", success, want)
	}
	// scrape_timeout 1s less the default 250 ms offset.
	if d := duration["slow"]; d < 0.7 || d > 0.9 {
		t.Errorf("slow collector ran %v s under Prometheus, want about 0.75 s", d)
	}
	if up := queryByCollector(t, promAddr, `up{job="sparkglance"}`); up[""] != 1 {
		t.Errorf("up = %v, want 1", up)
	}
}

// promtool's linter accepts a full scrape without a single remark.
func TestPromtoolCheckMetrics(t *testing.T) {
	promtool := sharedtest.RequireTool(t, "promtool")
	base := startExporter(t, testCatalog())
	status, body := get(t, nil, base+"/metrics", http.Header{"X-Prometheus-Scrape-Timeout-Seconds": {"0.5"}})
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(body)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil || out.Len() > 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out.String())
	}
	time.Sleep(time.Second) // let the stubborn collector finish while the exporter runs
}

// queryByCollector runs an instant query and maps each series' collector
// label ("" if absent) to its value.
func queryByCollector(t *testing.T, promAddr, query string) map[string]float64 {
	t.Helper()
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get("http://" + promAddr + "/api/v1/query?query=" + url.QueryEscape(query))
	if err != nil {
		return nil // not up yet
	}
	defer resp.Body.Close()
	var answer struct {
		Status string
		Data   struct {
			Result []struct {
				Metric map[string]string
				Value  [2]any
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil || answer.Status != "success" {
		return nil
	}
	out := map[string]float64{}
	for _, r := range answer.Data.Result {
		s, _ := r.Value[1].(string)
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("query %s: value %v: %v", query, r.Value[1], err)
		}
		out[r.Metric["collector"]] = v
	}
	return out
}

// freeLoopbackAddr returns a 127.0.0.1 address whose port was free a moment
// ago, for programs that cannot report the port they bound.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}
