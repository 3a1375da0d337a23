package promtest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The expression checks rely on Prometheus rejecting what does not parse.
func TestServerRejectsBadPromQL(t *testing.T) {
	s := Start(t, MinimalConfig, nil)
	if _, err := s.Query(`sum(rate(up[5m])`); err == nil || !strings.Contains(err.Error(), "bad_data") {
		t.Errorf("unclosed parenthesis: err = %v, want a bad_data error", err)
	}
	if _, err := s.Query(`sum by (job) (rate(up[5m]))`); err != nil {
		t.Errorf("valid query: %v", err)
	}
}

// A scraping Prometheus sees a target that answers, as up 1 with the job
// label, within a few scrape intervals.
func TestStartScrapingSeesTarget(t *testing.T) {
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		_, _ = w.Write([]byte("sparkglance_test_answer 42\n"))
	}))
	defer target.Close()
	s := StartScraping(t, strings.TrimPrefix(target.URL, "http://"))
	var samples []Sample
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		if samples, _ = s.Samples(`sparkglance_test_answer`); len(samples) > 0 {
			break
		}
	}
	if len(samples) != 1 || samples[0].Value != 42 || samples[0].Labels["job"] != "sparkglance" {
		t.Fatalf("samples %+v within 15 s, want one of value 42 with job sparkglance", samples)
	}
}
