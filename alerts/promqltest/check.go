// Package promqltest checks PromQL expressions (alert rules, dashboard
// queries) against a real Prometheus (internal/testkit/promtest) and
// against the metric names of the metric schema.
package promqltest

import (
	"testing"

	"github.com/sparkglance/sparkglance/internal/testkit/promtest"
)

// Expr is one PromQL expression and where it comes from, for messages.
type Expr struct {
	Where string
	Text  string
}

// scrapeSeries are the series Prometheus itself writes for every target
// it scrapes (its "automatically generated labels and time series").
var scrapeSeries = []string{"up", "scrape_duration_seconds", "scrape_samples_scraped",
	"scrape_samples_post_metric_relabeling", "scrape_series_added"}

// Known reports which metric names expressions may use: those the metric
// schema defines, Prometheus' own series of a scrape target (up…) and the
// given recording rules.
func Known(t testing.TB, recorded []string) func(string) bool {
	t.Helper()
	schema := Defined()
	extra := map[string]bool{}
	for _, s := range scrapeSeries {
		extra[s] = true
	}
	for _, r := range recorded {
		extra[r] = true
	}
	return func(name string) bool { return extra[name] || schema.Has(name) }
}

// CheckExpressions sends every expression (variables substituted) to a
// real Prometheus, which rejects parse errors, and checks it reads only
// known metric names.
func CheckExpressions(t *testing.T, s *promtest.Server, exprs []Expr, known func(string) bool) {
	t.Helper()
	if len(exprs) == 0 {
		t.Fatal("no expressions to check")
	}
	for _, e := range exprs {
		text := Substitute(e.Text)
		if _, err := s.Query(text); err != nil {
			t.Errorf("%s: Prometheus rejects %q: %v", e.Where, text, err)
		}
		names := MetricNames(text)
		if len(names) == 0 {
			t.Errorf("%s: no metric name found in %q", e.Where, text)
		}
		for _, n := range names {
			if !known(n) {
				t.Errorf("%s: metric %q is neither in the metric schema nor recorded (in %q)", e.Where, n, e.Text)
			}
		}
	}
}
