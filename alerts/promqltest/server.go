// Package promqltest starts a real Prometheus (Debian `prometheus`) on a
// loopback port for tests, and checks PromQL expressions against it and
// against the metric names sparkglance documents.
package promqltest

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/collectors/sharedtest"
)

// Server is a Prometheus process owned by one test.
type Server struct {
	URL string
	Dir string // its working directory (config, rules, data, log)
}

// Start runs prometheus with config (prometheus.yml text) and extra files
// written beside it, and waits until it is ready. It is stopped when the
// test ends.
func Start(t testing.TB, config string, files map[string][]byte) *Server {
	t.Helper()
	bin := sharedtest.RequireTool(t, "prometheus")
	dir := t.TempDir()
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := FreeAddr(t)
	logFile, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+addr)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting prometheus: %v", err)
	}
	s := &Server{URL: "http://" + addr, Dir: dir}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		logFile.Close()
	})
	WaitReady(t, s.URL+"/-/ready", 30*time.Second, filepath.Join(dir, "prometheus.log"))
	return s
}

// FreeAddr returns a loopback address with a port free right now.
func FreeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// WaitReady polls url until it answers 200, failing the test with the log
// file's content after timeout.
func WaitReady(t testing.TB, url string, timeout time.Duration, logPath string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	log, _ := os.ReadFile(logPath)
	t.Fatalf("%s not ready after %s; log:\n%s", url, timeout, log)
}

// Result is the data of a successful query.
type Result struct {
	ResultType string `json:"resultType"`
	Result     []struct {
		Metric map[string]string `json:"metric"`
		Value  []any             `json:"value"`
	} `json:"result"`
}

// Query runs an instant query; a parse error comes back as an error
// naming Prometheus' reason.
func (s *Server) Query(expr string) (Result, error) {
	client := http.Client{Timeout: 20 * time.Second}
	resp, err := client.Get(s.URL + "/api/v1/query?query=" + url.QueryEscape(expr))
	if err != nil {
		return Result{}, err
	}
	defer resp.Body.Close()
	var body struct {
		Status    string `json:"status"`
		ErrorType string `json:"errorType"`
		Error     string `json:"error"`
		Data      Result `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return Result{}, fmt.Errorf("decoding answer to %q: %w", expr, err)
	}
	if body.Status != "success" {
		return Result{}, fmt.Errorf("%s: %s", body.ErrorType, body.Error)
	}
	return body.Data, nil
}

// Get fetches a JSON API path into v.
func (s *Server) Get(path string, v any) error {
	client := http.Client{Timeout: 20 * time.Second}
	resp, err := client.Get(s.URL + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(v)
}
