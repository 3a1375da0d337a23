package appwatch

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/sparkglance/sparkglance/collectors/sharedtest"
	"github.com/sparkglance/sparkglance/exporter"
)

// startExporter serves a watcher for cfg through the real exporter on a
// loopback port and returns its base URL and the watcher.
func startExporter(t testing.TB, cfg Config, args ...string) (string, *Watcher) {
	t.Helper()
	w, err := New(cfg, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	cat := exporter.NewCatalog()
	cat.Register(CollectorName, true, func(*slog.Logger) (exporter.Collector, error) { return w, nil })
	app := kingpin.New("test", "")
	ecfg := exporter.AddFlags(app, cat)
	if _, err := app.Parse(append([]string{"--web.listen-address=127.0.0.1:0"}, args...)); err != nil {
		t.Fatal(err)
	}
	ecfg.Version = "0.0.0-test"
	e, err := exporter.New(*ecfg, cat, testLogger(t))
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
		case err := <-done:
			if err != nil {
				t.Errorf("exporter Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("exporter did not stop within 10 s")
		}
	})
	return "http://" + addrs[0].String(), w
}

// httpGet returns the body of a 200 answer.
func httpGet(t testing.TB, u string) string {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d, %v", u, resp.StatusCode, err)
	}
	return string(body)
}

// startPrometheus runs a real Prometheus scraping target every second and
// returns its address.
func startPrometheus(t *testing.T, target string) string {
	t.Helper()
	bin := sharedtest.RequireTool(t, "prometheus")
	dir := t.TempDir()
	addr := freeLoopbackAddr(t)
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
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+addr)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		logFile.Close()
		if t.Failed() {
			out, _ := os.ReadFile(logFile.Name())
			t.Logf("prometheus log:\n%s", out)
		}
	})
	return addr
}

// promQuery runs an instant query; nil while Prometheus is not answering.
func promQuery(promAddr, query string) []promSample {
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get("http://" + promAddr + "/api/v1/query?query=" + url.QueryEscape(query))
	if err != nil {
		return nil
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
	var out []promSample
	for _, r := range answer.Data.Result {
		s, _ := r.Value[1].(string)
		v, err := strconv.ParseFloat(s, 64)
		if err == nil {
			out = append(out, promSample{r.Metric, v})
		}
	}
	return out
}

type promSample struct {
	labels map[string]string
	value  float64
}

func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
