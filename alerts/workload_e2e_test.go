//go:build e2e

package alerts_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/alerts"
	"github.com/sparkglance/sparkglance/collectors/eventlog"
	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/exporter/exportertest"
	"github.com/sparkglance/sparkglance/internal/simulate"
	"github.com/sparkglance/sparkglance/internal/testkit"
	"github.com/sparkglance/sparkglance/internal/testkit/promtest"
)

// TestWorkloadRegressedThroughAlertmanager copies the generator's ten runs
// of one nightly job, one after another, into the directory `serve`
// follows; a real Prometheus with the shipped rules (only the `for`
// shortened) scrapes it and a real Alertmanager delivers to a webhook
// here. SparkWorkloadRegressed fires for the regressed run only — on wall
// time, core-hours and cost, the measures the findings table's thresholds
// pass — and resolves when the next run finishes.
func TestWorkloadRegressedThroughAlertmanager(t *testing.T) {
	amBin := testkit.RequireTool(t, "prometheus-alertmanager")
	testkit.RequireTool(t, "prometheus")
	const key = "nightly sales rollup <date>"
	runs, err := simulate.WorkloadRuns(10, time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	src, logs, dir := t.TempDir(), t.TempDir(), t.TempDir()
	for _, r := range runs {
		f, err := os.Create(filepath.Join(src, r.AppID))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := simulate.Write(f, r.Config); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}

	cfg := eventlog.DefaultConfig()
	cfg.Dirs, cfg.PollInterval, cfg.Retention = []string{logs}, 100*time.Millisecond, 1e6*time.Hour
	w, err := eventlog.New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	cat := exporter.NewCatalog()
	cat.Register(eventlog.CollectorName, true, exportertest.Fixed(w))
	sg := strings.TrimPrefix(exportertest.Start(t, cat).URL, "http://")

	var current atomic.Int64 // the run copied last
	hook := &alertHook{current: &current, firing: map[string][]int64{}}
	hookSrv := httptest.NewServer(hook)
	defer hookSrv.Close()
	amConfig := fmt.Sprintf(`route:
  receiver: test
  group_by: [alertname, workload]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: test
    webhook_configs:
      - url: %s
`, hookSrv.URL)
	if err := os.WriteFile(filepath.Join(dir, "alertmanager.yml"), []byte(amConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	amAddr := testkit.FreeLoopbackAddr(t)
	startProc(t, dir, "alertmanager", amBin, "--config.file="+filepath.Join(dir, "alertmanager.yml"),
		"--storage.path="+filepath.Join(dir, "am"), "--web.listen-address="+amAddr, "--cluster.listen-address=")
	promtest.WaitReady(t, "http://"+amAddr+"/-/ready", 30*time.Second, filepath.Join(dir, "alertmanager.log"))

	th := alerts.DefaultThresholds()
	th.WorkloadRegressedFor = 2 * time.Second
	rules, err := alerts.Render(th)
	if err != nil {
		t.Fatal(err)
	}
	prom := promtest.Start(t, fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files: [rules.yml]
alerting:
  alertmanagers:
    - static_configs:
        - targets: ["%s"]
scrape_configs:
  - job_name: sparkglance
    static_configs:
      - targets: ["%s"]
`, amAddr, sg), map[string][]byte{"rules.yml": rules})

	until := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			if cond() {
				return
			}
		}
		t.Fatalf("not within 60 s: %s (alerts delivered: %v)", what, hook.names())
	}
	for i, r := range runs {
		current.Store(int64(i))
		if err := os.Rename(filepath.Join(src, r.AppID), filepath.Join(logs, r.AppID)); err != nil {
			t.Fatal(err)
		}
		until(fmt.Sprintf("Prometheus sees run %d", i), func() bool {
			s, _ := prom.Samples(`sum(spark_workload_runs_total{workload="` + key + `"})`)
			return len(s) == 1 && s[0].Value == float64(i+1)
		})
		if r.Change == simulate.WorkloadPropertySlow {
			until("SparkWorkloadRegressed delivered for the regressed run", func() bool { return len(hook.names()) == 3 })
		}
	}
	// The regressed run's alerts end once the next runs finished: the
	// rules were evaluated after the last run.
	until("SparkWorkloadRegressed resolved", func() bool {
		s, _ := prom.Samples(`ALERTS{alertname="SparkWorkloadRegressed"}`)
		return len(s) == 0
	})
	if got, want := hook.names(), []string{key + "/core_hours", key + "/cost", key + "/wall_time"}; !slices.Equal(got, want) {
		t.Errorf("alerts delivered %v, want %v", got, want)
	}
	for name, at := range hook.snapshot() {
		for _, run := range at {
			if runs[run].Change != simulate.WorkloadPropertySlow {
				t.Errorf("%s delivered firing while run %d (%s) was the latest", name, run, runs[run].Change)
			}
		}
	}
	// Prometheus' own record: the alert was never active for another measure.
	s, err := prom.Samples(`count by (measure) (max_over_time(ALERTS{alertname="SparkWorkloadRegressed",alertstate="firing"}[10m]))`)
	if err != nil || len(s) != 3 {
		t.Errorf("measures the alert fired on: %v (%v), want 3", s, err)
	}
}

// alertHook records, per alert (workload/measure), the runs that were
// the latest when Alertmanager delivered it firing.
type alertHook struct {
	current *atomic.Int64
	mu      sync.Mutex
	firing  map[string][]int64
}

func (h *alertHook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var msg struct {
		Alerts []struct {
			Status string            `json:"status"`
			Labels map[string]string `json:"labels"`
		} `json:"alerts"`
	}
	if err := json.NewDecoder(r.Body).Decode(&msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, a := range msg.Alerts {
		if a.Status == "firing" && a.Labels["alertname"] == "SparkWorkloadRegressed" {
			k := a.Labels["workload"] + "/" + a.Labels["measure"]
			h.firing[k] = append(h.firing[k], h.current.Load())
		}
	}
}

func (h *alertHook) names() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for k := range h.firing {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func (h *alertHook) snapshot() map[string][]int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := map[string][]int64{}
	for k, v := range h.firing {
		out[k] = slices.Clone(v)
	}
	return out
}

// startProc runs bin until the test ends (SIGTERM, then SIGKILL after 10 s).
func startProc(t *testing.T, dir, name, bin string, args ...string) {
	t.Helper()
	log, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	t.Cleanup(func() {
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		log.Close()
	})
}
