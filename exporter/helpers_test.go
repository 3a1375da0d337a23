package exporter_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/exporter/exportertest"
)

// answerDesc is what the well-behaved test collector exports.
var answerDesc = prometheus.NewDesc("sparkglance_test_answer", "Test collector: a constant.", []string{"source"}, nil)

// answerCollector always succeeds with sparkglance_test_answer{source="test"} 42.
type answerCollector struct{}

func (answerCollector) Update(_ context.Context, ch chan<- prometheus.Metric) error {
	ch <- prometheus.MustNewConstMetric(answerDesc, prometheus.GaugeValue, 42, "test")
	return nil
}

// sourceCollector sends sparkglance_test_answer{source=<its value>} 1.
type sourceCollector string

func (s sourceCollector) Update(_ context.Context, ch chan<- prometheus.Metric) error {
	ch <- prometheus.MustNewConstMetric(answerDesc, prometheus.GaugeValue, 1, string(s))
	return nil
}

// failingCollector sends one metric, then fails.
type failingCollector struct{}

func (failingCollector) Update(_ context.Context, ch chan<- prometheus.Metric) error {
	ch <- prometheus.MustNewConstMetric(answerDesc, prometheus.GaugeValue, 1, "failing")
	return errors.New("source unreachable")
}

// slowCollector honours the deadline but would otherwise take 10 s.
type slowCollector struct{}

func (slowCollector) Update(ctx context.Context, ch chan<- prometheus.Metric) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(10 * time.Second):
		ch <- prometheus.MustNewConstMetric(answerDesc, prometheus.GaugeValue, 2, "slow")
		return nil
	}
}

// stubbornCollector ignores its context and sends after 1.5 s, past any
// deadline the tests set: the send must neither block nor panic.
type stubbornCollector struct{}

func (stubbornCollector) Update(_ context.Context, ch chan<- prometheus.Metric) error {
	time.Sleep(1500 * time.Millisecond)
	ch <- prometheus.MustNewConstMetric(answerDesc, prometheus.GaugeValue, 3, "stubborn")
	return nil
}

// panickingCollector stands for a collector with a bug.
type panickingCollector struct{}

func (panickingCollector) Update(context.Context, chan<- prometheus.Metric) error {
	panic("index out of range in a collector")
}

// testCatalog has one collector of each behaviour, all enabled.
func testCatalog() *exporter.Catalog {
	cat := exporter.NewCatalog()
	cat.Register("answer", true, exportertest.Fixed(exporter.FromUpdater(answerCollector{})))
	cat.Register("failing", true, exportertest.Fixed(exporter.FromUpdater(failingCollector{})))
	cat.Register("slow", true, exportertest.Fixed(exporter.FromUpdater(slowCollector{})))
	cat.Register("stubborn", true, exportertest.Fixed(exporter.FromUpdater(stubbornCollector{})))
	cat.Register("panicking", true, exportertest.Fixed(exporter.FromUpdater(panickingCollector{})))
	return cat
}

// parseExposition parses Prometheus text format.
func parseExposition(t *testing.T, text string) map[string]*dto.MetricFamily {
	t.Helper()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("parsing exposition: %v\n%s", err, text)
	}
	return families
}

// valueByLabel maps one label's values to the gauge or counter value.
func valueByLabel(t *testing.T, mf *dto.MetricFamily, label string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, m := range mf.GetMetric() {
		if m.TimestampMs != nil {
			t.Errorf("%s carries a timestamp; exporters must not set them", mf.GetName())
		}
		for _, lp := range m.GetLabel() {
			if lp.GetName() == label {
				v := m.GetGauge().GetValue()
				if mf.GetType() == dto.MetricType_COUNTER {
					v = m.GetCounter().GetValue()
				}
				out[lp.GetValue()] = v
			}
		}
	}
	return out
}
