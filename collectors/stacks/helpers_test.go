//go:build e2e

package stacks_test

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/exporter/exportertest"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// serve runs an exporter with the given collectors on a loopback port
// until the test ends and returns its base URL.
func serve(t *testing.T, collectors map[string]exporter.Collector) string {
	t.Helper()
	return exportertest.Start(t, exportertest.Catalog(collectors)).URL
}

// do sends a request and returns status and body.
func do(t *testing.T, method, url, body string) (int, []byte) {
	t.Helper()
	return testkit.HTTPDo(t, nil, method, url, nil, body)
}

// postJSON POSTs body as application/json, as the profiles API requires.
func postJSON(t *testing.T, url, body string) (int, []byte) {
	t.Helper()
	return testkit.HTTPDo(t, nil, http.MethodPost, url, http.Header{"Content-Type": {"application/json"}}, body)
}

// scrape fetches and parses /metrics.
func scrape(t *testing.T, base string) map[string]*dto.MetricFamily {
	t.Helper()
	status, body := do(t, http.MethodGet, base+"/metrics", "")
	if status != http.StatusOK {
		t.Fatalf("/metrics: %d %s", status, body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	return fams
}

// series returns the metrics of a family whose labels include want.
func series(fams map[string]*dto.MetricFamily, name string, want map[string]string) []*dto.Metric {
	var out []*dto.Metric
	mf := fams[name]
	if mf == nil {
		return nil
	}
next:
	for _, m := range mf.GetMetric() {
		labels := map[string]string{}
		for _, lp := range m.GetLabel() {
			labels[lp.GetName()] = lp.GetValue()
		}
		for k, v := range want {
			if labels[k] != v {
				continue next
			}
		}
		out = append(out, m)
	}
	return out
}

func label(m *dto.Metric, name string) string {
	for _, lp := range m.GetLabel() {
		if lp.GetName() == name {
			return lp.GetValue()
		}
	}
	return ""
}

// waitFor polls cond every 50 ms until it holds or the timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
