package exportertest

import (
	"context"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/receiver/receivertest"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// OTLPReceiver is the OpenTelemetry Collector's own OTLP receiver, run in
// process on loopback: what it hands on is what a Collector pipeline (and
// the vendor backend behind it) would get.
type OTLPReceiver struct {
	// Endpoint is host:port for --otlp.endpoint.
	Endpoint string
	Sink     *consumertest.MetricsSink

	mu        sync.Mutex
	encodings []string // Content-Encoding of each HTTP request, via the proxy
	pushed    chan struct{}
}

// notifyingSink is the sink telling WaitForPush of each push it received.
type notifyingSink struct {
	*consumertest.MetricsSink
	pushed chan<- struct{}
}

func (s notifyingSink) ConsumeMetrics(ctx context.Context, md pmetric.Metrics) error {
	err := s.MetricsSink.ConsumeMetrics(ctx, md)
	select {
	case s.pushed <- struct{}{}:
	default: // a wake-up is pending already
	}
	return err
}

// StartOTLPReceiver starts a receiver for protocol ("grpc" or
// "http/protobuf") until the test ends. Over HTTP, requests pass through a
// small reverse proxy first, which records their Content-Encoding.
func StartOTLPReceiver(t testing.TB, protocol string) *OTLPReceiver {
	t.Helper()
	endpoint := testkit.FreeLoopbackAddr(t)
	f := otlpreceiver.NewFactory()
	cfg := f.CreateDefaultConfig().(*otlpreceiver.Config)
	if protocol == "grpc" {
		cfg.Protocols.GRPC.GetOrInsertDefault().NetAddr.Endpoint = endpoint
	} else {
		cfg.Protocols.HTTP.GetOrInsertDefault().ServerConfig.NetAddr.Endpoint = endpoint
	}
	r := &OTLPReceiver{Endpoint: endpoint, Sink: new(consumertest.MetricsSink), pushed: make(chan struct{}, 1)}
	ctx := context.Background()
	rcv, err := f.CreateMetrics(ctx, receivertest.NewNopSettings(component.MustNewType("otlp")), cfg, notifyingSink{r.Sink, r.pushed})
	if err != nil {
		t.Fatal(err)
	}
	if err := rcv.Start(ctx, componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rcv.Shutdown(context.Background()) })
	if protocol == "grpc" {
		return r
	}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: endpoint})
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.encodings = append(r.encodings, req.Header.Get("Content-Encoding"))
		r.mu.Unlock()
		proxy.ServeHTTP(w, req)
	})}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r.Endpoint = l.Addr().String()
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return r
}

// ContentEncodings are the Content-Encoding headers of the HTTP requests
// so far ("" for none).
func (r *OTLPReceiver) ContentEncodings() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.encodings...)
}

// WaitForPush returns the first received push for which ok holds, looking
// again at each push, and fails the test after timeout.
func (r *OTLPReceiver) WaitForPush(t testing.TB, timeout time.Duration, ok func(pmetric.Metrics) bool) pmetric.Metrics {
	t.Helper()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	seen := 0
	for {
		all := r.Sink.AllMetrics()
		for _, md := range all[seen:] {
			if ok(md) {
				return md
			}
		}
		seen = len(all)
		select {
		case <-r.pushed:
		case <-timer.C:
			t.Fatalf("no fitting OTLP push within %v (%d pushes received)", timeout, seen)
		}
	}
}

// PushedMetrics indexes a push's metrics by name (one resource, as
// sparkglance pushes).
func PushedMetrics(md pmetric.Metrics) map[string]pmetric.Metric {
	out := map[string]pmetric.Metric{}
	for i := range md.ResourceMetrics().Len() {
		sms := md.ResourceMetrics().At(i).ScopeMetrics()
		for j := range sms.Len() {
			ms := sms.At(j).Metrics()
			for k := range ms.Len() {
				out[ms.At(k).Name()] = ms.At(k)
			}
		}
	}
	return out
}

// StartOf is the start time of m's point with attrs (a subset of its
// attributes); m must have arrived as a cumulative monotonic sum, as every
// counter should.
func StartOf(t testing.TB, m pmetric.Metric, attrs map[string]string) time.Time {
	t.Helper()
	if m.Type() != pmetric.MetricTypeSum || !m.Sum().IsMonotonic() ||
		m.Sum().AggregationTemporality() != pmetric.AggregationTemporalityCumulative {
		t.Fatalf("%q did not arrive as a cumulative monotonic sum", m.Name())
	}
	dps := m.Sum().DataPoints()
points:
	for i := range dps.Len() {
		for k, want := range attrs {
			if v, ok := dps.At(i).Attributes().Get(k); !ok || v.AsString() != want {
				continue points
			}
		}
		return dps.At(i).StartTimestamp().AsTime()
	}
	t.Fatalf("no %s point with %v", m.Name(), attrs)
	return time.Time{}
}
