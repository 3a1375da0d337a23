package exporter_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/sparkglance/sparkglance/exporter"
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

func factory(c exporter.Collector) exporter.Factory {
	return func(*slog.Logger) (exporter.Collector, error) { return c, nil }
}

// testCatalog has one collector of each behaviour, all enabled.
func testCatalog() *exporter.Catalog {
	cat := exporter.NewCatalog()
	cat.Register("answer", true, factory(answerCollector{}))
	cat.Register("failing", true, factory(failingCollector{}))
	cat.Register("slow", true, factory(slowCollector{}))
	cat.Register("stubborn", true, factory(stubbornCollector{}))
	cat.Register("panicking", true, factory(panickingCollector{}))
	return cat
}

// parseConfig parses args as the serve command would.
func parseConfig(t *testing.T, cat *exporter.Catalog, args ...string) *exporter.Config {
	t.Helper()
	app := kingpin.New("test", "")
	cfg := exporter.AddFlags(app, cat)
	if _, err := app.Parse(args); err != nil {
		t.Fatalf("parse %q: %v", args, err)
	}
	cfg.Version = "9.9.9-test"
	return cfg
}

// startExporter runs an exporter on a loopback port until the test ends and
// returns its base URL (http://127.0.0.1:port).
func startExporter(t *testing.T, cat *exporter.Catalog, args ...string) string {
	t.Helper()
	cfg := parseConfig(t, cat, append([]string{"--web.listen-address=127.0.0.1:0"}, args...)...)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		logger = slog.New(slog.NewTextHandler(&testWriter{t}, nil))
	}
	e, err := exporter.New(*cfg, cat, logger)
	if err != nil {
		t.Fatal(err)
	}
	addrs, err := e.Listen()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("exporter did not stop within 10 s")
		}
	})
	return "http://" + addrs[0].String()
}

type testWriter struct{ t *testing.T }

func (w *testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// get fetches url with optional headers and returns status and body.
func get(t *testing.T, client *http.Client, url string, header http.Header) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if client == nil {
		client = &http.Client{Timeout: 15 * time.Second}
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: reading body: %v", url, err)
	}
	return resp.StatusCode, string(body)
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
