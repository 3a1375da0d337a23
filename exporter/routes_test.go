package exporter_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/exporter/exportertest"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

func TestLandingPageAndHealth(t *testing.T) {
	cat := exporter.NewCatalog()
	cat.Register("answer", true, exportertest.Fixed(exporter.FromUpdater(answerCollector{})))
	base := exportertest.Start(t, cat, "--web.telemetry-path=/spark-metrics").URL

	status, body := testkit.HTTPGet(t, nil, base+"/", nil)
	if status != http.StatusOK {
		t.Fatalf("/ status %d", status)
	}
	for _, want := range []string{"<title>sparkglance</title>", `href="/spark-metrics"`, `href="/-/healthy"`, `href="/-/ready"`, "9.9.9-test"} {
		if !strings.Contains(body, want) {
			t.Errorf("landing page lacks %q", want)
		}
	}
	if strings.Contains(body, "debug/pprof") {
		t.Error("landing page links profiling although it is off")
	}
	if status, _ := testkit.HTTPGet(t, nil, base+"/no-such-page", nil); status != http.StatusNotFound {
		t.Errorf("/no-such-page status %d, want 404", status)
	}
	if status, body := testkit.HTTPGet(t, nil, base+"/-/healthy", nil); status != http.StatusOK || strings.TrimSpace(body) != "Healthy" {
		t.Errorf("/-/healthy = %d %q", status, body)
	}
	if status, body := testkit.HTTPGet(t, nil, base+"/-/ready", nil); status != http.StatusOK || strings.TrimSpace(body) != "Ready" {
		t.Errorf("/-/ready = %d %q", status, body)
	}
	if status, body := testkit.HTTPGet(t, nil, base+"/spark-metrics", nil); status != http.StatusOK || !strings.Contains(body, "sparkglance_build_info{") {
		t.Errorf("/spark-metrics = %d without build info", status)
	}
	if status, _ := testkit.HTTPGet(t, nil, base+"/metrics", nil); status != http.StatusNotFound {
		t.Errorf("/metrics status %d with another telemetry path, want 404", status)
	}
}

// warmingCollector stands for a background model that has no snapshot yet.
type warmingCollector struct{ warm atomic.Bool }

func (c *warmingCollector) Update(context.Context, chan<- prometheus.Metric) error { return nil }

func (c *warmingCollector) Ready() error {
	if !c.warm.Load() {
		return errors.New("first pass over the event logs not done")
	}
	return nil
}

func TestReadyWaitsForCollectors(t *testing.T) {
	c := &warmingCollector{}
	cat := exporter.NewCatalog()
	cat.Register("warming", true, exportertest.Fixed(exporter.FromUpdater(c)))
	base := exportertest.Start(t, cat).URL

	status, body := testkit.HTTPGet(t, nil, base+"/-/ready", nil)
	if status != http.StatusServiceUnavailable || !strings.Contains(body, "collector warming: first pass over the event logs not done") {
		t.Errorf("/-/ready before warm-up = %d %q, want 503 naming the collector", status, body)
	}
	if status, _ := testkit.HTTPGet(t, nil, base+"/-/healthy", nil); status != http.StatusOK {
		t.Errorf("/-/healthy = %d while warming, want 200", status)
	}
	c.warm.Store(true)
	if status, _ := testkit.HTTPGet(t, nil, base+"/-/ready", nil); status != http.StatusOK {
		t.Errorf("/-/ready after warm-up = %d, want 200", status)
	}
}

// runningCollector records that the exporter ran and then stopped its model:
// started is closed when Run begins.
type runningCollector struct {
	started chan struct{}
	stopped atomic.Bool
}

func (c *runningCollector) Update(context.Context, chan<- prometheus.Metric) error { return nil }

func (c *runningCollector) Run(ctx context.Context) error {
	close(c.started)
	<-ctx.Done()
	c.stopped.Store(true)
	return nil
}

func TestRunnersFollowTheExporter(t *testing.T) {
	c := &runningCollector{started: make(chan struct{})}
	cat := exporter.NewCatalog()
	cat.Register("model", true, exportertest.Fixed(exporter.FromUpdater(c)))
	cfg := exportertest.ParseConfig(t, cat, "--web.listen-address=127.0.0.1:0")
	e, err := exporter.New(*cfg, cat, discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	select {
	case <-c.started:
	case <-time.After(5 * time.Second):
		t.Fatal("background model not started within 5 s")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return within 10 s of cancellation")
	}
	if !c.stopped.Load() {
		t.Error("Run returned before the background model stopped")
	}
}

func TestProfilingOnlyWithFlag(t *testing.T) {
	paths := []string{"/debug/pprof/", "/debug/pprof/cmdline", "/debug/fgprof?seconds=1"}

	offCat, _ := testCatalog(t)
	off := exportertest.Start(t, offCat).URL
	for _, p := range paths {
		if status, _ := testkit.HTTPGet(t, nil, off+p, nil); status != http.StatusNotFound {
			t.Errorf("%s without --web.enable-profiling: status %d, want 404", p, status)
		}
	}

	onCat, _ := testCatalog(t)
	on := exportertest.Start(t, onCat, "--web.enable-profiling").URL
	for _, p := range paths {
		if status, _ := testkit.HTTPGet(t, nil, on+p, nil); status != http.StatusOK {
			t.Errorf("%s with --web.enable-profiling: status %d, want 200", p, status)
		}
	}
	if _, body := testkit.HTTPGet(t, nil, on+"/", nil); !strings.Contains(body, `href="/debug/fgprof?seconds=10"`) {
		t.Error("landing page lacks the fgprof link with profiling on")
	}
}

// heldCollector signals when a scrape reaches it, then holds that scrape
// until the test releases it (or its deadline).
type heldCollector struct{ entered, release chan struct{} }

func (c heldCollector) Update(ctx context.Context, _ chan<- prometheus.Metric) error {
	select {
	case c.entered <- struct{}{}:
	default:
	}
	select {
	case <-c.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// --web.max-requests=1: a second scrape while one is in flight gets 503.
func TestMaxRequests(t *testing.T) {
	c := heldCollector{entered: make(chan struct{}, 1), release: make(chan struct{})}
	cat := exporter.NewCatalog()
	cat.Register("slow", true, exportertest.Fixed(exporter.FromUpdater(c)))
	base := exportertest.Start(t, cat, "--web.max-requests=1", "--web.timeout-offset=0s").URL

	first := make(chan int, 1)
	go func() {
		status, _ := testkit.HTTPGet(t, nil, base+"/metrics", http.Header{"X-Prometheus-Scrape-Timeout-Seconds": {"10"}})
		first <- status
	}()
	select { // the first scrape is in flight
	case <-c.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the first scrape did not reach the collector within 10 s")
	}
	if status, body := testkit.HTTPGet(t, nil, base+"/metrics", nil); status != http.StatusServiceUnavailable {
		t.Errorf("second parallel scrape: %d %q, want 503", status, body)
	}
	close(c.release)
	if status := <-first; status != http.StatusOK {
		t.Errorf("first scrape: %d, want 200", status)
	}
}
