//go:build e2e

package alerts_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
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
// After each run the test waits until the rules were evaluated on it, so
// a regression flagged on an earlier run leaves a pending ALERTS sample;
// at the end every ALERTS sample must lie while the regressed run was the
// latest, and Alertmanager must have delivered exactly its three alerts,
// firing then and resolved after the next run.
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
		if err := simulate.WriteFile(filepath.Join(src, r.AppID), r.Config); err != nil {
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
	cat.Register(eventlog.CollectorName, true, exportertest.Fixed(exporter.FromFamilies(w)))
	sg := strings.TrimPrefix(exportertest.Start(t, cat).URL, "http://")

	var current atomic.Int64 // the run copied last
	hook := &alertHook{current: &current, firing: map[string][]int64{}, resolved: map[string][]int64{}}
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
	testkit.StartProcess(t, dir, "alertmanager", amBin, "--config.file="+filepath.Join(dir, "alertmanager.yml"),
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
	// evaluatedSince: every rule group was evaluated after at, so on data
	// Prometheus had committed by then.
	evaluatedSince := func(at time.Time) bool {
		var body struct {
			Data struct {
				Groups []struct {
					LastEvaluation time.Time `json:"lastEvaluation"`
				} `json:"groups"`
			} `json:"data"`
		}
		if err := prom.Get("/api/v1/rules", &body); err != nil || len(body.Data.Groups) == 0 {
			return false
		}
		for _, g := range body.Data.Groups {
			if !g.LastEvaluation.After(at) {
				return false
			}
		}
		return true
	}
	regressed := slices.IndexFunc(runs, func(r simulate.WorkloadRun) bool { return r.Change == simulate.WorkloadPropertySlow })
	if regressed < 1 || regressed == len(runs)-1 {
		t.Fatalf("the generator's regressed run is run %d of %d: want one with runs before and after it", regressed, len(runs))
	}
	// copied[i]: run i was about to become the latest; seen[i]: Prometheus
	// had scraped it (a later time, on the same clock as its timestamps).
	copied, seen := make([]time.Time, len(runs)), make([]time.Time, len(runs))
	for i, r := range runs {
		current.Store(int64(i))
		copied[i] = time.Now()
		if err := os.Rename(filepath.Join(src, r.AppID), filepath.Join(logs, r.AppID)); err != nil {
			t.Fatal(err)
		}
		until(fmt.Sprintf("Prometheus sees run %d", i), func() bool {
			s, _ := prom.Samples(`sum(spark_workload_runs_total{workload="` + key + `"})`)
			return len(s) == 1 && s[0].Value == float64(i+1)
		})
		seen[i] = time.Now()
		// Had this run regressed, the alert is pending (an ALERTS sample
		// checked below) once the rules ran on it: wait for that rather
		// than the alert's `for`.
		until(fmt.Sprintf("the rules evaluated on run %d", i), func() bool { return evaluatedSince(seen[i]) })
		if i == regressed {
			until("SparkWorkloadRegressed delivered for the regressed run", func() bool { return len(hook.names()) == 3 })
		}
	}
	// The regressed run's alerts end once the next runs finished: the
	// rules were evaluated after the last run.
	until("SparkWorkloadRegressed resolved", func() bool {
		s, _ := prom.Samples(`ALERTS{alertname="SparkWorkloadRegressed"}`)
		return len(s) == 0
	})
	until("Alertmanager delivers the resolve of each alert", func() bool { return len(hook.resolvedNames()) == 3 })
	want := []string{key + "/core_hours", key + "/cost", key + "/wall_time"}
	if got := hook.names(); !slices.Equal(got, want) {
		t.Errorf("alerts delivered firing %v, want %v", got, want)
	}
	if got := hook.resolvedNames(); !slices.Equal(got, want) {
		t.Errorf("alerts delivered resolved %v, want %v", got, want)
	}
	for name, at := range hook.snapshot() {
		for _, run := range at {
			if run != int64(regressed) {
				t.Errorf("%s delivered firing while run %d (%s) was the latest", name, run, runs[run].Change)
			}
		}
	}
	for name, at := range hook.resolvedSnapshot() {
		for _, run := range at {
			if run <= int64(regressed) {
				t.Errorf("%s delivered resolved while run %d (%s) was the latest", name, run, runs[run].Change)
			}
		}
	}
	// Prometheus' own record, every sample of ALERTS the rules wrote: the
	// alert was pending or firing only while the regressed run was the
	// latest, and fired on the three measures.
	var body struct {
		Data struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Values [][2]any          `json:"values"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := prom.Get("/api/v1/query?query="+url.QueryEscape(`ALERTS{alertname="SparkWorkloadRegressed"}[1h]`), &body); err != nil {
		t.Fatal(err)
	}
	var fired []string
	for _, series := range body.Data.Result {
		m := series.Metric
		if m["alertstate"] == "firing" {
			fired = append(fired, m["workload"]+"/"+m["measure"])
		}
		for _, v := range series.Values {
			sec, _ := v[0].(float64)
			at := time.UnixMilli(int64(sec * 1000))
			if at.Before(copied[regressed]) || at.After(seen[regressed+1]) {
				latest := sort.Search(len(runs), func(i int) bool { return copied[i].After(at) }) - 1
				t.Errorf("ALERTS %s/%s %s at %s (run %d copied last): outside the regressed run %d",
					m["workload"], m["measure"], m["alertstate"], at.Format(time.RFC3339Nano), latest, regressed)
			}
		}
	}
	slices.Sort(fired)
	if !slices.Equal(fired, want) {
		t.Errorf("ALERTS firing for %v, want %v", fired, want)
	}
}

// alertHook records, per alert (workload/measure), the runs that were
// the latest when Alertmanager delivered it firing and resolved.
type alertHook struct {
	current  *atomic.Int64
	mu       sync.Mutex
	firing   map[string][]int64
	resolved map[string][]int64
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
		if a.Labels["alertname"] != "SparkWorkloadRegressed" {
			continue
		}
		k := a.Labels["workload"] + "/" + a.Labels["measure"]
		switch a.Status {
		case "firing":
			h.firing[k] = append(h.firing[k], h.current.Load())
		case "resolved":
			h.resolved[k] = append(h.resolved[k], h.current.Load())
		}
	}
}

func (h *alertHook) names() []string         { return h.keys(h.firing) }
func (h *alertHook) resolvedNames() []string { return h.keys(h.resolved) }

func (h *alertHook) keys(m map[string][]int64) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := slices.Collect(maps.Keys(m))
	slices.Sort(out)
	return out
}

func (h *alertHook) snapshot() map[string][]int64         { return h.clone(h.firing) }
func (h *alertHook) resolvedSnapshot() map[string][]int64 { return h.clone(h.resolved) }

func (h *alertHook) clone(m map[string][]int64) map[string][]int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := map[string][]int64{}
	for k, v := range m {
		out[k] = slices.Clone(v)
	}
	return out
}
