package exporter_test

import (
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	colmetricspb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/exporter/exportertest"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// push is one export request as a receiver saw it.
type push struct {
	req      *colmetricspb.ExportMetricsServiceRequest
	token    string // the x-token header or gRPC metadata
	encoding string // the HTTP Content-Encoding
}

// grpcReceiver is a minimal OTLP/gRPC metrics endpoint.
type grpcReceiver struct {
	colmetricspb.UnimplementedMetricsServiceServer
	pushes chan push
}

func (r *grpcReceiver) Export(ctx context.Context, req *colmetricspb.ExportMetricsServiceRequest) (*colmetricspb.ExportMetricsServiceResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	p := push{req: req}
	if v := md.Get("x-token"); len(v) > 0 {
		p.token = v[0]
	}
	select {
	case r.pushes <- p:
	default: // the test has what it needs
	}
	return &colmetricspb.ExportMetricsServiceResponse{}, nil
}

func startGRPCReceiver(t *testing.T) (addr string, pushes <-chan push) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &grpcReceiver{pushes: make(chan push, 16)}
	s := grpc.NewServer()
	colmetricspb.RegisterMetricsServiceServer(s, r)
	go func() { _ = s.Serve(l) }()
	t.Cleanup(s.Stop)
	return l.Addr().String(), r.pushes
}

// startHTTPReceiver is a minimal OTLP/HTTP (binary protobuf) endpoint.
func startHTTPReceiver(t *testing.T) (addr string, pushes <-chan push) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan push, 16)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/metrics", func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		var err error
		if r.Header.Get("Content-Encoding") == "gzip" {
			var zr *gzip.Reader
			if zr, err = gzip.NewReader(r.Body); err == nil {
				body, err = io.ReadAll(zr)
			}
		} else {
			body, err = io.ReadAll(r.Body)
		}
		req := &colmetricspb.ExportMetricsServiceRequest{}
		if err == nil {
			err = proto.Unmarshal(body, req)
		}
		if err != nil || r.Header.Get("Content-Type") != "application/x-protobuf" {
			http.Error(w, "bad OTLP request", http.StatusBadRequest)
			return
		}
		select {
		case ch <- push{req: req, token: r.Header.Get("X-Token"), encoding: r.Header.Get("Content-Encoding")}:
		default:
		}
		resp, _ := proto.Marshal(&colmetricspb.ExportMetricsServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(resp)
	})
	s := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = s.Serve(l) }()
	t.Cleanup(func() { _ = s.Close() })
	return l.Addr().String(), ch
}

func TestOTLPPushOverGRPC(t *testing.T) {
	addr, pushes := startGRPCReceiver(t)
	testOTLPPush(t, pushes, "--otlp.endpoint="+addr, "--otlp.protocol=grpc", "--otlp.insecure")
}

func TestOTLPPushOverHTTP(t *testing.T) {
	addr, pushes := startHTTPReceiver(t)
	// An http:// URL implies plain text and the default /v1/metrics path.
	got := testOTLPPush(t, pushes, "--otlp.endpoint=http://"+addr, "--otlp.protocol=http/protobuf")
	if got.encoding != "gzip" {
		t.Errorf("Content-Encoding %q, want gzip by default", got.encoding)
	}
}

// testOTLPPush starts an exporter pushing every 200 ms and checks the first
// push: resource attributes, our metrics with their values and types, and
// the same metric names as a /metrics scrape.
func testOTLPPush(t *testing.T, pushes <-chan push, args ...string) push {
	cat := exporter.NewCatalog()
	cat.Register("answer", true, exportertest.Fixed(exporter.FromUpdater(answerCollector{})))
	cat.Register("failing", true, exportertest.Fixed(exporter.FromUpdater(failingCollector{})))
	base := exportertest.Start(t, cat, append(args, "--otlp.interval=200ms", "--otlp.headers=x-token=abc")...).URL

	var got push
	select {
	case got = <-pushes:
	case <-time.After(10 * time.Second):
		t.Fatal("no OTLP push within 10 s")
	}
	if got.token != "abc" {
		t.Errorf("x-token = %q, want abc from --otlp.headers", got.token)
	}
	rms := got.req.GetResourceMetrics()
	if len(rms) != 1 {
		t.Fatalf("%d resource metrics, want 1", len(rms))
	}
	host, _ := os.Hostname()
	attrs := attributes(rms[0].GetResource().GetAttributes())
	for k, want := range map[string]string{"service.name": "sparkglance", "service.version": "9.9.9-test", "host.name": host} {
		if attrs[k] != want {
			t.Errorf("resource %s = %q, want %q", k, attrs[k], want)
		}
	}

	metrics := map[string]*metricspb.Metric{}
	for _, sm := range rms[0].GetScopeMetrics() {
		for _, m := range sm.GetMetrics() {
			metrics[m.GetName()] = m
		}
	}
	success := gaugeByAttr(t, metrics["sparkglance_scrape_collector_success"], "collector")
	if success["answer"] != 1 || success["failing"] != 0 || len(success) != 2 {
		t.Errorf("pushed sparkglance_scrape_collector_success = %v, want answer=1 failing=0", success)
	}
	if answers := gaugeByAttr(t, metrics["sparkglance_test_answer"], "source"); answers["test"] != 42 {
		t.Errorf("pushed sparkglance_test_answer = %v, want test=42", answers)
	}
	if bi := metrics["sparkglance_build_info"]; bi.GetGauge() == nil || bi.GetGauge().GetDataPoints()[0].GetAsDouble() != 1 {
		t.Errorf("pushed sparkglance_build_info = %v, want a gauge of 1", bi)
	}
	// Units come from the metric schema; families it does not define (the
	// Go runtime's, the test's) carry none.
	for name, want := range map[string]string{
		"sparkglance_scrape_collector_duration_seconds": "s", "sparkglance_scrape_collector_success": "1",
		"sparkglance_build_info": "1", "sparkglance_test_answer": "", "sparkglance_otlp_exports_total": "{export}",
		// Go runtime and process families: the unit of their name's suffix.
		"process_cpu_seconds_total": "s", "go_memstats_alloc_bytes": "By", "go_goroutines": "",
	} {
		if got := metrics[name].GetUnit(); got != want {
			t.Errorf("pushed %s with unit %q, want %q", name, got, want)
		}
	}
	cpu := metrics["process_cpu_seconds_total"].GetSum()
	if cpu == nil || !cpu.GetIsMonotonic() || cpu.GetAggregationTemporality() != metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE {
		t.Errorf("process_cpu_seconds_total pushed as %v, want a cumulative monotonic sum", metrics["process_cpu_seconds_total"])
	}

	// One definition of the metrics: the push carries what /metrics serves.
	_, body := testkit.HTTPGet(t, nil, base+"/metrics", nil)
	var scraped []string
	for name, mf := range parseExposition(t, body) {
		if len(mf.GetMetric()) > 0 {
			scraped = append(scraped, name)
		}
	}
	var pushed []string
	for name := range metrics {
		pushed = append(pushed, name)
	}
	slices.Sort(scraped)
	slices.Sort(pushed)
	if !slices.Equal(scraped, pushed) {
		t.Errorf("pushed metric names differ from scraped ones:\npushed  %v\nscraped %v", pushed, scraped)
	}
	return got
}

func attributes(kvs []*commonpb.KeyValue) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		out[kv.GetKey()] = kv.GetValue().GetStringValue()
	}
	return out
}

// gaugeByAttr maps one attribute's values to gauge data point values.
func gaugeByAttr(t *testing.T, m *metricspb.Metric, attr string) map[string]float64 {
	t.Helper()
	if m.GetGauge() == nil {
		t.Fatalf("metric %v is not a gauge", m)
	}
	out := map[string]float64{}
	for _, dp := range m.GetGauge().GetDataPoints() {
		out[attributes(dp.GetAttributes())[attr]] = dp.GetAsDouble()
	}
	return out
}

func TestOTLPFlagsAreValidated(t *testing.T) {
	for _, args := range [][]string{
		{"--otlp.endpoint=ftp://collector:4317"},
		{"--otlp.endpoint=http://"},
		{"--otlp.endpoint=127.0.0.1:4317", "--otlp.interval=0s"},
		{"--otlp.endpoint=127.0.0.1:4317", "--otlp.resource-attributes=team"},
		{"--otlp.endpoint=127.0.0.1:4317", "--otlp.resource-attributes=team=%zz"},
	} {
		cat := exporter.NewCatalog()
		cfg := exportertest.ParseConfig(t, cat, args...)
		if _, err := exporter.New(*cfg, cat, discard); err == nil {
			t.Errorf("%q: New accepted it", args)
		}
	}
	// The environment's settings are checked as the flags are, and the
	// error names the variable.
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")
	cat := exporter.NewCatalog()
	cfg := exportertest.ParseConfig(t, cat, "--otlp.endpoint=127.0.0.1:4317")
	if _, err := exporter.New(*cfg, cat, discard); err == nil || !strings.Contains(err.Error(), "OTEL_EXPORTER_OTLP_PROTOCOL") {
		t.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL=http/json: New said %v, want an error naming the variable", err)
	}
	// The flag wins over it.
	cfg = exportertest.ParseConfig(t, cat, "--otlp.endpoint=127.0.0.1:4317", "--otlp.protocol=grpc")
	if _, err := exporter.New(*cfg, cat, discard); err != nil {
		t.Errorf("--otlp.protocol=grpc with OTEL_EXPORTER_OTLP_PROTOCOL=http/json: %v", err)
	}
}

// An unreachable OTLP receiver is logged; scrapes go on and shutdown is
// bounded.
func TestOTLPUnreachableDoesNotBreakScrapes(t *testing.T) {
	cat := exporter.NewCatalog()
	cat.Register("answer", true, exportertest.Fixed(exporter.FromUpdater(answerCollector{})))
	logs := &testkit.SyncBuffer{}
	base := exportertest.StartLogging(t, cat, logs, "--otlp.endpoint="+testkit.FreeLoopbackAddr(t), "--otlp.insecure",
		"--otlp.interval=100ms", "--otlp.timeout=300ms").URL
	// A push failed (it is counted before it is logged); scrape while
	// pushes go on failing.
	if text, ok := logs.Await(10*time.Second, func(text string) bool { return strings.Contains(text, "OTLP push failed") }); !ok {
		t.Fatalf("no failed push logged within 10 s:\n%s", text)
	}
	status, body := testkit.HTTPGet(t, nil, base+"/metrics", nil)
	if status != http.StatusOK || !strings.Contains(body, `sparkglance_scrape_collector_success{collector="answer"} 1`) ||
		strings.Contains(body, `sparkglance_otlp_exports_total{result="failure"} 0`) {
		t.Errorf("scrape with a dead OTLP receiver: status %d\n%s", status, body)
	}
}
