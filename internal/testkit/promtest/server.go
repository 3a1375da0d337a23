// Package promtest starts a real Prometheus (Debian's `prometheus`, or a
// release of testkit.ForEachPrometheus) on a loopback port for one test and
// queries its HTTP API.
package promtest

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// MinimalConfig is a prometheus.yml with no scrape targets.
const MinimalConfig = "global:\n  scrape_interval: 15s\n"

// Server is a Prometheus process owned by one test.
type Server struct {
	Addr string // host:port on 127.0.0.1
	URL  string // "http://" + Addr
	Dir  string // its working directory (config, rules, data, log)
}

// Start runs prometheus with config (prometheus.yml text) and extra files
// written beside it, and waits until it is ready. It is stopped when the
// test ends; its log is shown if the test failed.
func Start(t testing.TB, config string, files map[string][]byte) *Server {
	t.Helper()
	return start(t, testkit.RequireTool(t, "prometheus"), config, files, "")
}

// StartRelease is Start for the Prometheus release p, with extra flags
// (--enable-feature=…, say).
func StartRelease(t testing.TB, p testkit.Prometheus, config string, files map[string][]byte, extra ...string) *Server {
	t.Helper()
	return start(t, p.Prometheus, config, files, "", extra...)
}

// StartOnData runs a Prometheus without scrape targets on an existing
// storage directory (blocks made by promtool tsdb create-blocks-from, say),
// keeping data of any age: the default retention would delete old blocks.
func StartOnData(t testing.TB, dataDir string) *Server {
	t.Helper()
	return start(t, testkit.RequireTool(t, "prometheus"), MinimalConfig, nil, dataDir, "--storage.tsdb.retention.time=100y")
}

func start(t testing.TB, bin, config string, files map[string][]byte, dataDir string, extra ...string) *Server {
	t.Helper()
	dir := t.TempDir()
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := testkit.FreeLoopbackAddr(t)
	logPath := filepath.Join(dir, "prometheus.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if dataDir == "" {
		dataDir = filepath.Join(dir, "data")
	}
	args := append([]string{"--config.file=" + filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path=" + dataDir, "--web.listen-address=" + addr}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, logFile, logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		t.Fatalf("starting prometheus: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		logFile.Close()
		if t.Failed() {
			out, _ := os.ReadFile(logPath)
			t.Logf("prometheus log:\n%s", out)
		}
	})
	s := &Server{Addr: addr, URL: "http://" + addr, Dir: dir}
	WaitReady(t, s.URL+"/-/ready", 30*time.Second, logPath)
	return s
}

// StartScraping runs a Prometheus that scrapes target (host:port) as job
// "sparkglance" every second, with a 1 s timeout.
func StartScraping(t testing.TB, target string) *Server {
	t.Helper()
	return Start(t, ScrapeConfig(target), nil)
}

// ScrapeConfig is a prometheus.yml scraping target as job "sparkglance"
// every second, with a 1 s timeout.
func ScrapeConfig(target string) string {
	return fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: sparkglance
    static_configs:
      - targets: ['%s']
`, target)
}

// WaitReady polls url until it answers 200, failing the test with the log
// file's content after timeout.
func WaitReady(t testing.TB, url string, timeout time.Duration, logPath string) {
	t.Helper()
	client := &http.Client{Timeout: 2 * time.Second}
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		resp, err := client.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
	}
	log, _ := os.ReadFile(logPath)
	t.Fatalf("%s not ready after %s; log:\n%s", url, timeout, log)
}
