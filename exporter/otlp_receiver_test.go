package exporter_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/exporter/exportertest"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// The tests here push to the OpenTelemetry Collector's own OTLP receiver,
// in process, and check what it received.

func answerCatalog() *exporter.Catalog {
	cat := exporter.NewCatalog()
	cat.Register("answer", true, exportertest.Fixed(exporter.FromUpdater(answerCollector{})))
	return cat
}

func resourceAttrs(md pmetric.Metrics) map[string]string {
	out := map[string]string{}
	if md.ResourceMetrics().Len() == 0 {
		return out
	}
	md.ResourceMetrics().At(0).Resource().Attributes().Range(func(k string, v pcommon.Value) bool {
		out[k] = v.AsString()
		return true
	})
	return out
}

func anyPush(pmetric.Metrics) bool { return true }

var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// Without settings, the resource names the service, its version, the host
// and an instance id made at start, the same in every push of the process.
func TestOTLPDefaultResource(t *testing.T) {
	rcv := exportertest.StartOTLPReceiver(t, "grpc")
	exportertest.Start(t, answerCatalog(), "--otlp.endpoint="+rcv.Endpoint, "--otlp.insecure", "--otlp.interval=500ms")
	first := resourceAttrs(rcv.WaitForPush(t, 10*time.Second, anyPush))
	if first["service.name"] != "sparkglance" || first["service.version"] != exportertest.Version || first["host.name"] == "" {
		t.Errorf("resource %v, want service.name=sparkglance, service.version=%s and host.name", first, exportertest.Version)
	}
	if !uuidPattern.MatchString(first["service.instance.id"]) {
		t.Errorf("service.instance.id %q is not a random UUID", first["service.instance.id"])
	}
	later := rcv.WaitForPush(t, 10*time.Second, func(md pmetric.Metrics) bool { return len(rcv.Sink.AllMetrics()) >= 3 })
	if id := resourceAttrs(later)["service.instance.id"]; id != first["service.instance.id"] {
		t.Errorf("service.instance.id changed from %q to %q between pushes", first["service.instance.id"], id)
	}
}

// Flags beat the environment, which beats the defaults.
func TestOTLPResourcePrecedence(t *testing.T) {
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment.name=prod,team=from-env,service.instance.id=from-env")
	t.Setenv("OTEL_SERVICE_NAME", "spark-observer")
	rcv := exportertest.StartOTLPReceiver(t, "grpc")
	exportertest.Start(t, answerCatalog(), "--otlp.endpoint="+rcv.Endpoint, "--otlp.insecure", "--otlp.interval=1m",
		"--otlp.resource-attributes=team=data%20platform, k8s.cluster.name=eu-1", "--otlp.service-instance-id=node-7:18091")
	got := resourceAttrs(rcv.WaitForPush(t, 10*time.Second, anyPush))
	for k, want := range map[string]string{
		"service.name":                "spark-observer",     // OTEL_SERVICE_NAME over the default
		"service.version":             exportertest.Version, // the default
		"deployment.environment.name": "prod",               // OTEL_RESOURCE_ATTRIBUTES
		"team":                        "data platform",      // the flag over the environment, percent-decoded
		"k8s.cluster.name":            "eu-1",               // the flag
		"service.instance.id":         "node-7:18091",       // its flag over the environment
	} {
		if got[k] != want {
			t.Errorf("resource %s = %q, want %q (all: %v)", k, got[k], want, got)
		}
	}
}

// Over HTTP the push is gzip-compressed unless told otherwise; the
// environment decides when the flag is not given, and the flag wins.
func TestOTLPCompression(t *testing.T) {
	for _, tc := range []struct {
		name, env string
		args      []string
		want      string
	}{
		{"default", "", nil, "gzip"},
		{"flag none", "", []string{"--otlp.compression=none"}, ""},
		{"env none", "none", nil, ""},
		{"flag over env", "none", []string{"--otlp.compression=gzip"}, "gzip"},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			t.Setenv("OTEL_EXPORTER_OTLP_COMPRESSION", tc.env)
			rcv := exportertest.StartOTLPReceiver(t, "http/protobuf")
			exportertest.Start(t, answerCatalog(), append([]string{"--otlp.endpoint=http://" + rcv.Endpoint,
				"--otlp.protocol=http/protobuf", "--otlp.interval=1m"}, tc.args...)...)
			md := rcv.WaitForPush(t, 10*time.Second, anyPush)
			if _, ok := exportertest.PushedMetrics(md)["sparkglance_test_answer"]; !ok {
				t.Error("the receiver decoded no sparkglance_test_answer")
			}
			if enc := rcv.ContentEncodings(); len(enc) == 0 || enc[0] != tc.want {
				t.Errorf("Content-Encoding of the pushes %q, want %q", enc, tc.want)
			}
		})
	}
}

// OTEL_EXPORTER_OTLP_* alone configure the push: endpoint, protocol.
func TestOTLPFromEnvironment(t *testing.T) {
	rcv := exportertest.StartOTLPReceiver(t, "http/protobuf")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+rcv.Endpoint)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-token=from-env")
	logs := &testkit.SyncBuffer{}
	exportertest.StartLogging(t, answerCatalog(), logs, "--otlp.interval=1m")
	md := rcv.WaitForPush(t, 10*time.Second, anyPush)
	if _, ok := exportertest.PushedMetrics(md)["sparkglance_test_answer"]; !ok {
		t.Error("no sparkglance_test_answer pushed to the environment's endpoint")
	}
	if line := waitForLogLine(t, logs, "pushing metrics over OTLP"); !strings.Contains(line, "OTEL_EXPORTER_OTLP_ENDPOINT") {
		t.Errorf("the start-up log line does not say the endpoint comes from OTEL_EXPORTER_OTLP_ENDPOINT: %s", line)
	}
}

// Units reach the receiver, and counters carry their start time: the
// exporter's own counter the exporter's start.
func TestOTLPUnitsAndStartTimeOfOwnCounters(t *testing.T) {
	rcv := exportertest.StartOTLPReceiver(t, "grpc")
	before := time.Now()
	exportertest.Start(t, answerCatalog(), "--otlp.endpoint="+rcv.Endpoint, "--otlp.insecure", "--otlp.interval=500ms")
	after := time.Now()
	md := rcv.WaitForPush(t, 10*time.Second, func(md pmetric.Metrics) bool {
		m, ok := exportertest.PushedMetrics(md)["sparkglance_otlp_exports_total"]
		return ok && pushedValue(m, "result", "success") >= 1
	})
	ms := exportertest.PushedMetrics(md)
	for name, want := range map[string]string{
		"sparkglance_otlp_exports_total":                "{export}",
		"sparkglance_scrape_collector_duration_seconds": "s",
		"sparkglance_scrape_collector_success":          "1",
		"sparkglance_build_info":                        "1",
		"process_resident_memory_bytes":                 "By",
	} {
		if got := ms[name].Unit(); got != want {
			t.Errorf("%s arrived with unit %q, want %q", name, got, want)
		}
	}
	exports := ms["sparkglance_otlp_exports_total"]
	if exports.Type() != pmetric.MetricTypeSum || !exports.Sum().IsMonotonic() ||
		exports.Sum().AggregationTemporality() != pmetric.AggregationTemporalityCumulative {
		t.Fatalf("sparkglance_otlp_exports_total arrived as %v, want a cumulative monotonic sum", exports.Type())
	}
	for i := range exports.Sum().DataPoints().Len() {
		start := exports.Sum().DataPoints().At(i).StartTimestamp().AsTime()
		if start.Before(before.Truncate(time.Millisecond)) || start.After(after) {
			t.Errorf("sparkglance_otlp_exports_total starts at %v, want the exporter's start, within [%v, %v]", start, before, after)
		}
	}
}

func pushedValue(m pmetric.Metric, attr, value string) float64 {
	var dps pmetric.NumberDataPointSlice
	switch m.Type() {
	case pmetric.MetricTypeSum:
		dps = m.Sum().DataPoints()
	case pmetric.MetricTypeGauge:
		dps = m.Gauge().DataPoints()
	default:
		return -1
	}
	for i := range dps.Len() {
		if v, ok := dps.At(i).Attributes().Get(attr); ok && v.AsString() == value {
			return dps.At(i).DoubleValue()
		}
	}
	return -1
}

// A push that fails is counted and logged, naming the endpoint and what
// to change, within one interval: the interval here is a minute and the
// timeout the default 10 s, so the failure seen is that of the push made at
// start, reported without waiting for retries.
func TestOTLPFailuresAreCountedAndExplained(t *testing.T) {
	plainGRPC := exportertest.StartOTLPReceiver(t, "grpc")
	plainHTTP := exportertest.StartOTLPReceiver(t, "http/protobuf")
	closed := testkit.FreeLoopbackAddr(t)
	for _, tc := range []struct {
		name     string
		args     []string
		endpoint string
		hint     string
	}{
		{"closed port", []string{"--otlp.endpoint=" + closed, "--otlp.insecure"}, closed, "nothing accepts connections at " + closed},
		{"TLS to plain gRPC", []string{"--otlp.endpoint=" + plainGRPC.Endpoint}, plainGRPC.Endpoint, "pass --otlp.insecure"},
		{"TLS to plain HTTP", []string{"--otlp.endpoint=https://" + plainHTTP.Endpoint, "--otlp.protocol=http"}, plainHTTP.Endpoint, "pass --otlp.insecure"},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			logs := &testkit.SyncBuffer{}
			base := exportertest.StartLogging(t, answerCatalog(), logs,
				append(tc.args, "--otlp.interval=1m")...).URL
			// The push is counted before it is logged.
			line := waitForLogLine(t, logs, "OTLP push failed")
			_, body := testkit.HTTPGet(t, nil, base+"/metrics", nil)
			if !strings.Contains(body, `sparkglance_otlp_exports_total{result="failure"} 1`) ||
				!strings.Contains(body, `sparkglance_otlp_exports_total{result="success"} 0`) {
				t.Fatalf("the failed push logged but not counted:\n%s", grepLines(body, "sparkglance_otlp"))
			}
			if !strings.Contains(line, tc.endpoint) || !strings.Contains(line, tc.hint) {
				t.Errorf("log line %q should name %s and say %q", line, tc.endpoint, tc.hint)
			}
		})
	}
}

// The push timeout never exceeds the interval, whatever --otlp.timeout
// says, so that a failing push ends before the next starts.
func TestOTLPTimeoutAtMostTheInterval(t *testing.T) {
	rcv := exportertest.StartOTLPReceiver(t, "grpc")
	for _, tc := range []struct{ args, want string }{
		{"--otlp.timeout=10s --otlp.interval=2s", "timeout=2s"},
		{"--otlp.timeout=1s --otlp.interval=2s", "timeout=1s"},
		{"--otlp.interval=1m", "timeout=10s"},
	} {
		logs := &testkit.SyncBuffer{}
		exportertest.StartLogging(t, answerCatalog(), logs,
			append(strings.Fields(tc.args), "--otlp.endpoint="+rcv.Endpoint, "--otlp.insecure")...)
		line := waitForLogLine(t, logs, "pushing metrics over OTLP")
		if !strings.Contains(line, " "+tc.want+" ") {
			t.Errorf("%s: start-up line %q, want %s", tc.args, line, tc.want)
		}
	}
}

// waitForLogLine returns the first log line containing sub, waiting up to
// 10 s for it.
func waitForLogLine(t *testing.T, logs *testkit.SyncBuffer, sub string) string {
	t.Helper()
	var line string
	text, ok := logs.Await(10*time.Second, func(text string) bool {
		for l := range strings.Lines(text) {
			if strings.Contains(l, sub) {
				line = l
				return true
			}
		}
		return false
	})
	if !ok {
		t.Fatalf("no log line with %q within 10 s:\n%s", sub, text)
	}
	return line
}

func grepLines(text, sub string) string {
	var out []string
	for l := range strings.Lines(text) {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(slices.Clip(out), "")
}
