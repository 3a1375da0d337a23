package promqltest

import (
	"strings"
	"testing"
)

// The checks rely on Prometheus rejecting what does not parse.
func TestServerRejectsBadPromQL(t *testing.T) {
	s := Start(t, MinimalConfig, nil)
	if _, err := s.Query(`sum(rate(up[5m])`); err == nil || !strings.Contains(err.Error(), "bad_data") {
		t.Errorf("unclosed parenthesis: err = %v, want a bad_data error", err)
	}
	if _, err := s.Query(`sum by (job) (rate(up[5m]))`); err != nil {
		t.Errorf("valid query: %v", err)
	}
}
