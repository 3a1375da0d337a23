package exporter_test

import (
	"net/http"
	"testing"

	"github.com/sparkglance/sparkglance/exporter/exportertest"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// A scrape with a 1 s timeout and a 0.3 s offset gives collectors 0.7 s:
// the good one reports, the failing, slow, stubborn and panicking ones get
// success 0, and the scrape still answers in time.
func TestScrapeReportsEveryCollector(t *testing.T) {
	cat, stubborn := testCatalog(t)
	base := exportertest.Start(t, cat, "--web.timeout-offset=300ms").URL

	// The stubborn collector never returns: that the scrape answers at all
	// (the HTTP client gives up otherwise) shows the deadline cut it off.
	status, body := testkit.HTTPGet(t, nil, base+"/metrics", http.Header{"X-Prometheus-Scrape-Timeout-Seconds": {"1"}})
	if status != http.StatusOK {
		t.Fatalf("status %d\n%s", status, body)
	}
	families := parseExposition(t, body)

	success := valueByLabel(t, families["sparkglance_scrape_collector_success"], "collector")
	want := map[string]float64{"answer": 1, "failing": 0, "slow": 0, "stubborn": 0, "panicking": 0}
	for name, w := range want {
		got, ok := success[name]
		if !ok || got != w {
			t.Errorf("sparkglance_scrape_collector_success{collector=%q} = %v (present %v), want %v", name, got, ok, w)
		}
	}
	if len(success) != len(want) {
		t.Errorf("success series for %v, want exactly %v", success, want)
	}

	duration := valueByLabel(t, families["sparkglance_scrape_collector_duration_seconds"], "collector")
	if d, ok := duration["answer"]; !ok || d < 0 {
		t.Errorf("answer duration %v (present %v), want a duration", d, ok)
	}
	// The slow ones are reported with the time they were given; how long
	// that was depends on when the machine let them start after the request
	// arrived, so only its presence is checked (success 0 above shows the
	// deadline cut them off).
	for _, name := range []string{"slow", "stubborn"} {
		if d, ok := duration[name]; !ok || !(d > 0) {
			t.Errorf("%s duration %v s (present %v), want a positive duration", name, d, ok)
		}
	}

	// The good collector's metric arrives; a failing collector's partial
	// output is kept (as node_exporter does); an overrunning one's is not.
	answers := valueByLabel(t, families["sparkglance_test_answer"], "source")
	if answers["test"] != 42 || answers["failing"] != 1 {
		t.Errorf("sparkglance_test_answer = %v, want test=42 and failing=1", answers)
	}
	for _, late := range []string{"slow", "stubborn"} {
		if _, ok := answers[late]; ok {
			t.Errorf("metric of %s, which overran the deadline, was exported", late)
		}
	}
	if _, ok := families["sparkglance_build_info"]; !ok {
		t.Error("sparkglance_build_info missing")
	}
	if _, ok := families["go_goroutines"]; !ok {
		t.Error("Go runtime metrics missing")
	}

	// The stubborn collector's late send, while the exporter still runs,
	// must be drained, not panic or leak a blocked goroutine.
	stubborn.releaseAndWait(t)
}

// Without the timeout header only the request bounds the collectors; the
// --no-collector flags leave the two well-behaved ones.
func TestScrapeWithoutTimeoutHeader(t *testing.T) {
	cat, _ := testCatalog(t)
	base := exportertest.Start(t, cat, "--no-collector.slow", "--no-collector.stubborn", "--no-collector.panicking").URL
	status, body := testkit.HTTPGet(t, nil, base+"/metrics", nil)
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	success := valueByLabel(t, parseExposition(t, body)["sparkglance_scrape_collector_success"], "collector")
	if len(success) != 2 || success["answer"] != 1 || success["failing"] != 0 {
		t.Errorf("success = %v, want answer=1 failing=0 only", success)
	}
}
