package exporter_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/exporter/exportertest"
	"github.com/sparkglance/sparkglance/internal/testkit"
	"github.com/sparkglance/sparkglance/internal/testkit/promtest"
)

// A real Prometheus scrapes the exporter every second; its query API must
// show each collector's success, and durations that prove Prometheus'
// timeout header bounds the slow collector.
func TestRealPrometheusScrapes(t *testing.T) {
	cat := exporter.NewCatalog()
	cat.Register("answer", true, exportertest.Fixed(exporter.FromUpdater(answerCollector{})))
	cat.Register("failing", true, exportertest.Fixed(exporter.FromUpdater(failingCollector{})))
	cat.Register("slow", true, exportertest.Fixed(exporter.FromUpdater(slowCollector{})))
	target := strings.TrimPrefix(exportertest.Start(t, cat).URL, "http://")
	prom := promtest.StartScraping(t, target)

	deadline := time.Now().Add(20 * time.Second)
	var success, duration map[string]float64
	for time.Now().Before(deadline) {
		success = queryByCollector(prom, "sparkglance_scrape_collector_success")
		duration = queryByCollector(prom, "sparkglance_scrape_collector_duration_seconds")
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
	// The slow collector was cut off (success 0 above) by the deadline
	// Prometheus' scrape_timeout header set; its duration is reported.
	// How close it came to 0.75 s (1 s less the 250 ms offset) is the
	// machine's load, so it is logged above, not asserted.
	if d := duration["slow"]; !(d > 0) {
		t.Errorf("slow collector's duration under Prometheus = %v s, want a positive duration", d)
	}
	if up := queryByCollector(prom, `up{job="sparkglance"}`); up[""] != 1 {
		t.Errorf("up = %v, want 1", up)
	}
}

// promtool's linter accepts a full scrape without a single remark.
func TestPromtoolCheckMetrics(t *testing.T) {
	testkit.RequireTool(t, "promtool") // before any scrape leaves the stubborn collector running
	cat, stubborn := testCatalog(t)
	base := exportertest.Start(t, cat).URL
	status, body := testkit.HTTPGet(t, nil, base+"/metrics", http.Header{"X-Prometheus-Scrape-Timeout-Seconds": {"0.5"}})
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	testkit.PromtoolCheckMetrics(t, body)
	stubborn.releaseAndWait(t) // its late send is drained while the exporter runs
}

// queryByCollector runs an instant query and maps each series' collector
// label ("" if absent) to its value; nil while Prometheus cannot answer.
func queryByCollector(prom *promtest.Server, query string) map[string]float64 {
	samples, err := prom.Samples(query)
	if err != nil {
		return nil // not up yet
	}
	out := map[string]float64{}
	for _, s := range samples {
		out[s.Labels["collector"]] = s.Value
	}
	return out
}
