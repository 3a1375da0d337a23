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

// stubbornCollector ignores its context and sends only once the test
// releases it, past the scrape's deadline: the send must neither block nor
// panic. sent receives after each send returned.
type stubbornCollector struct {
	release chan struct{}
	sent    chan struct{}
}

func newStubbornCollector() *stubbornCollector {
	return &stubbornCollector{release: make(chan struct{}), sent: make(chan struct{}, 1)}
}

func (c *stubbornCollector) Update(_ context.Context, ch chan<- prometheus.Metric) error {
	<-c.release
	ch <- prometheus.MustNewConstMetric(answerDesc, prometheus.GaugeValue, 3, "stubborn")
	select {
	case c.sent <- struct{}{}:
	default:
	}
	return nil
}

// releaseAndWait lets the collector's late send happen and fails the test
// unless the send returns within 10 s (a finished scrape must drain it).
func (c *stubbornCollector) releaseAndWait(t testing.TB) {
	t.Helper()
	close(c.release)
	select {
	case <-c.sent:
	case <-time.After(10 * time.Second):
		t.Error("the stubborn collector's late send still blocks 10 s after its release")
	}
}

// panickingCollector stands for a collector with a bug.
type panickingCollector struct{}

func (panickingCollector) Update(context.Context, chan<- prometheus.Metric) error {
	panic("index out of range in a collector")
}

// testCatalog has one collector of each behaviour, all enabled. The
// stubborn one is released when the test ends, if the test did not.
func testCatalog(t testing.TB) (*exporter.Catalog, *stubbornCollector) {
	stubborn := newStubbornCollector()
	t.Cleanup(func() {
		select {
		case <-stubborn.release:
		default:
			close(stubborn.release)
		}
	})
	cat := exporter.NewCatalog()
	cat.Register("answer", true, exportertest.Fixed(exporter.FromUpdater(answerCollector{})))
	cat.Register("failing", true, exportertest.Fixed(exporter.FromUpdater(failingCollector{})))
	cat.Register("slow", true, exportertest.Fixed(exporter.FromUpdater(slowCollector{})))
	cat.Register("stubborn", true, exportertest.Fixed(exporter.FromUpdater(stubborn)))
	cat.Register("panicking", true, exportertest.Fixed(exporter.FromUpdater(panickingCollector{})))
	return cat, stubborn
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
