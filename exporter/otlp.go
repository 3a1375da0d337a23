package exporter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	prombridge "go.opentelemetry.io/contrib/bridges/prometheus"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"

	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// OTLP protocols accepted by --otlp.protocol ("http" is short for
// "http/protobuf").
const (
	ProtocolGRPC = "grpc"
	ProtocolHTTP = "http/protobuf"
)

// Compressions accepted by --otlp.compression.
const (
	CompressionGzip = "gzip"
	CompressionNone = "none"
)

// defaultOTLPTimeout is the OpenTelemetry SDK's own export timeout, used
// when neither --otlp.timeout nor OTEL_EXPORTER_OTLP_TIMEOUT says otherwise.
const defaultOTLPTimeout = 10 * time.Second

// The standard environment variables the push reads (OpenTelemetry's
// "SDK environment variables" and OTLP exporter specifications). The
// SDK's exporters read the other OTEL_EXPORTER_OTLP_* variables
// (certificates, headers…) themselves; the ones here are those sparkglance
// must see too, to decide whether to push at all and what its own
// defaults give way to.
var (
	envEndpoint    = []string{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"}
	envProtocol    = []string{"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"}
	envCompression = []string{"OTEL_EXPORTER_OTLP_METRICS_COMPRESSION", "OTEL_EXPORTER_OTLP_COMPRESSION"}
	envTimeout     = []string{"OTEL_EXPORTER_OTLP_METRICS_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT"}
)

// firstEnv is the first of the variables that is set and not blank, the
// signal-specific one before the general one, as the specification orders
// them.
func firstEnv(names []string) (value, name string) {
	for _, n := range names {
		if v := strings.TrimSpace(os.Getenv(n)); v != "" {
			return v, n
		}
	}
	return "", ""
}

// OTLPConfig configures the OTLP push; without an endpoint (Endpoint or
// OTEL_EXPORTER_OTLP_[METRICS_]ENDPOINT) it is off.
//
// The pushed metrics are exactly what /metrics serves, converted by the
// OpenTelemetry Prometheus bridge: names stay the Prometheus names
// (including _total and unit suffixes), HELP becomes the description,
// labels become attributes, gauges become Gauges and counters cumulative
// monotonic Sums whose start time is the series' created timestamp, and
// each family carries the UCUM unit of the metric schema.
//
// Settings are taken from the flag if it is given, else from the standard
// OTEL_* environment variable, else from sparkglance's default: zero
// values below mean "not given".
type OTLPConfig struct {
	// Endpoint is host:port, or a URL (http:// implies --otlp.insecure; for
	// http/protobuf a URL path replaces the default /v1/metrics).
	Endpoint string
	Protocol string // grpc, http/protobuf or http
	Interval time.Duration
	Timeout  time.Duration
	Insecure bool
	Headers  map[string]string
	// Compression is gzip or none; not given, it is gzip unless
	// OTEL_EXPORTER_OTLP_[METRICS_]COMPRESSION is set.
	Compression string
	// ServiceInstanceID is the resource's service.instance.id; not given,
	// OTEL_RESOURCE_ATTRIBUTES' or else a random UUID made at start, so
	// that several node agents pushing to one backend stay apart.
	ServiceInstanceID string
	// ResourceAttributes are k=v pairs separated by commas, as in
	// OTEL_RESOURCE_ATTRIBUTES (values may be percent-encoded); they win
	// over the environment's.
	ResourceAttributes string
}

func addOTLPFlags(g FlagGroup, c *OTLPConfig) {
	g.Flag("otlp.endpoint", "OTLP receiver to push metrics to, host:port or URL; empty: OTEL_EXPORTER_OTLP_METRICS_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT, and no push if neither is set.").
		Default("").StringVar(&c.Endpoint)
	g.Flag("otlp.protocol", "OTLP transport: grpc or http/protobuf (http for short); default OTEL_EXPORTER_OTLP_[METRICS_]PROTOCOL, else grpc.").
		PlaceHolder(ProtocolGRPC).EnumVar(&c.Protocol, ProtocolGRPC, ProtocolHTTP, "http")
	g.Flag("otlp.interval", "How often to push.").Default("30s").DurationVar(&c.Interval)
	g.Flag("otlp.timeout", "Timeout of one push, at most --otlp.interval; default OTEL_EXPORTER_OTLP_[METRICS_]TIMEOUT, else 10s.").
		PlaceHolder("10s").DurationVar(&c.Timeout)
	g.Flag("otlp.insecure", "Push over plain text instead of TLS.").Default("false").BoolVar(&c.Insecure)
	c.Headers = map[string]string{} // kingpin's StringMapVar fills, not allocates
	g.Flag("otlp.headers", "Header sent with every push, key=value (repeatable), e.g. an API key.").
		StringMapVar(&c.Headers)
	g.Flag("otlp.compression", "Compression of the pushes: gzip or none; default OTEL_EXPORTER_OTLP_[METRICS_]COMPRESSION, else gzip.").
		PlaceHolder(CompressionGzip).EnumVar(&c.Compression, CompressionGzip, CompressionNone)
	g.Flag("otlp.service-instance-id", "The resource attribute service.instance.id; default from OTEL_RESOURCE_ATTRIBUTES, else a random UUID made at start.").
		StringVar(&c.ServiceInstanceID)
	g.Flag("otlp.resource-attributes", "Resource attributes added to the push, k=v,k2=v2 (as OTEL_RESOURCE_ATTRIBUTES, whose values they override).").
		StringVar(&c.ResourceAttributes)
}

// enabled reports whether there is an endpoint to push to.
func (c OTLPConfig) enabled() bool {
	if c.Endpoint != "" {
		return true
	}
	v, _ := firstEnv(envEndpoint)
	return v != ""
}

// endpointForLogs is where the pushes go, as the user wrote it.
func (c OTLPConfig) endpointForLogs() string {
	if c.Endpoint != "" {
		return c.Endpoint
	}
	v, name := firstEnv(envEndpoint)
	return v + " (" + name + ")"
}

func (c OTLPConfig) validate() error {
	if !c.enabled() {
		return nil
	}
	if c.Interval <= 0 {
		return fmt.Errorf("--otlp.interval must be positive, got %s", c.Interval)
	}
	if c.Timeout < 0 {
		return fmt.Errorf("--otlp.timeout must be positive, got %s", c.Timeout)
	}
	if _, _, _, err := c.target(); err != nil {
		return err
	}
	if _, err := c.protocol(); err != nil {
		return err
	}
	switch c.Compression {
	case "", CompressionGzip, CompressionNone:
	default:
		return fmt.Errorf("--otlp.compression %q: want %s or %s", c.Compression, CompressionGzip, CompressionNone)
	}
	if _, err := parseResourceAttributes(c.ResourceAttributes); err != nil {
		return fmt.Errorf("--otlp.resource-attributes: %w", err)
	}
	return nil
}

// protocol is --otlp.protocol, else the environment's, else gRPC.
func (c OTLPConfig) protocol() (string, error) {
	p, from := c.Protocol, "--otlp.protocol"
	if p == "" {
		p, from = firstEnv(envProtocol)
	}
	switch p {
	case "", ProtocolGRPC:
		return ProtocolGRPC, nil
	case ProtocolHTTP, "http":
		return ProtocolHTTP, nil
	}
	return "", fmt.Errorf("%s %q: want %s or %s (http/json is not supported)", from, p, ProtocolGRPC, ProtocolHTTP)
}

// timeout is one push's time limit: --otlp.timeout, else the environment's
// (milliseconds), else the SDK's default, and never longer than the
// interval, so that a failing endpoint shows within one interval and
// pushes do not pile up.
func (c OTLPConfig) timeout() time.Duration {
	t := c.Timeout
	if t <= 0 {
		t = defaultOTLPTimeout
		if v, _ := firstEnv(envTimeout); v != "" {
			if ms, err := strconv.Atoi(v); err == nil && ms > 0 {
				t = time.Duration(ms) * time.Millisecond
			}
		}
	}
	return min(t, c.Interval)
}

// compression is the compression to ask the SDK for, or "" to leave it to
// the environment.
func (c OTLPConfig) compression() string {
	if c.Compression != "" {
		return c.Compression
	}
	if v, _ := firstEnv(envCompression); v != "" {
		return ""
	}
	return CompressionGzip
}

// target splits Endpoint into host:port, URL path and whether TLS is off.
func (c OTLPConfig) target() (hostPort, path string, insecure bool, err error) {
	if !strings.Contains(c.Endpoint, "://") {
		return c.Endpoint, "", c.Insecure, nil
	}
	u, err := url.Parse(c.Endpoint)
	if err != nil {
		return "", "", false, fmt.Errorf("--otlp.endpoint: %w", err)
	}
	if u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", "", false, fmt.Errorf("--otlp.endpoint %q: want host:port or an http(s)://host:port URL", c.Endpoint)
	}
	if u.Path == "/" {
		u.Path = ""
	}
	return u.Host, u.Path, c.Insecure || u.Scheme == "http", nil
}

// otlpPush is the running push.
type otlpPush struct {
	provider *sdkmetric.MeterProvider
	initial  sync.WaitGroup // the push made at start
}

// Shutdown pushes once more and stops.
func (p *otlpPush) Shutdown(ctx context.Context) error {
	p.initial.Wait()
	return p.provider.Shutdown(ctx)
}

// startOTLP pushes what g gathers at once, then every c.Interval until the
// returned push is shut down (which pushes once more). The push at start
// makes a wrong endpoint show in the log right away.
func startOTLP(ctx context.Context, c OTLPConfig, version string, g prometheus.Gatherer, stats *otlpStats, logger *slog.Logger) (*otlpPush, error) {
	res, err := otlpResource(ctx, c, version)
	if err != nil {
		return nil, err
	}
	exp, err := newOTLPExporter(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("OTLP exporter: %w", err)
	}
	// The SDK reports what it cannot hand to a caller here, e.g. a gather
	// that failed for some families (the others are still pushed).
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		logger.Warn("OTLP push: OpenTelemetry SDK error", "endpoint", c.endpointForLogs(), "err", err)
	}))
	protocol, _ := c.protocol()
	_, _, insecure, _ := c.target()
	counted := &countingExporter{Exporter: exp, stats: stats, logger: logger,
		endpoint: c.endpointForLogs(), insecure: insecure, timeout: c.timeout()}
	reader := sdkmetric.NewPeriodicReader(counted,
		sdkmetric.WithInterval(c.Interval),
		sdkmetric.WithTimeout(c.timeout()),
		sdkmetric.WithProducer(withSchemaUnits{prombridge.NewMetricProducer(prombridge.WithGatherer(g))}),
	)
	logger.Info("pushing metrics over OTLP", "endpoint", c.endpointForLogs(), "protocol", protocol,
		"interval", c.Interval, "timeout", c.timeout(), "compression", c.compression(), "resource", res.String())
	p := &otlpPush{provider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader), sdkmetric.WithResource(res))}
	p.initial.Go(func() {
		pushCtx, cancel := context.WithTimeout(ctx, c.timeout())
		defer cancel()
		_ = p.provider.ForceFlush(pushCtx) // counted and logged by countingExporter
	})
	return p, nil
}

func newOTLPExporter(ctx context.Context, c OTLPConfig) (sdkmetric.Exporter, error) {
	hostPort, path, insecure, err := c.target()
	if err != nil {
		return nil, err
	}
	protocol, err := c.protocol()
	if err != nil {
		return nil, err
	}
	// Only what the flags or sparkglance's own defaults decide is passed:
	// the SDK reads the remaining OTEL_EXPORTER_OTLP_* variables itself,
	// and an option would override them.
	timeout := c.timeout()
	compression := c.compression()
	// No retries within a push: the SDK's would back off until the timeout,
	// hiding a refused connection that long, while the next push, one
	// interval later, carries every counter's cumulative value anyway.
	if protocol == ProtocolGRPC {
		opts := []otlpmetricgrpc.Option{otlpmetricgrpc.WithTimeout(timeout),
			otlpmetricgrpc.WithRetry(otlpmetricgrpc.RetryConfig{Enabled: false})}
		if hostPort != "" {
			opts = append(opts, otlpmetricgrpc.WithEndpoint(hostPort))
		}
		if insecure {
			opts = append(opts, otlpmetricgrpc.WithInsecure())
		}
		if len(c.Headers) > 0 {
			opts = append(opts, otlpmetricgrpc.WithHeaders(c.Headers))
		}
		// gRPC has no "none" compressor to name: without the option the
		// exporter sends uncompressed unless the environment asks for gzip.
		if compression == CompressionGzip {
			opts = append(opts, otlpmetricgrpc.WithCompressor(CompressionGzip))
		}
		return otlpmetricgrpc.New(ctx, opts...)
	}
	opts := []otlpmetrichttp.Option{otlpmetrichttp.WithTimeout(timeout),
		otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig{Enabled: false})}
	if hostPort != "" {
		opts = append(opts, otlpmetrichttp.WithEndpoint(hostPort))
	}
	if path != "" {
		opts = append(opts, otlpmetrichttp.WithURLPath(path))
	}
	if insecure {
		opts = append(opts, otlpmetrichttp.WithInsecure())
	}
	if len(c.Headers) > 0 {
		opts = append(opts, otlpmetrichttp.WithHeaders(c.Headers))
	}
	switch compression {
	case CompressionGzip:
		opts = append(opts, otlpmetrichttp.WithCompression(otlpmetrichttp.GzipCompression))
	case CompressionNone:
		opts = append(opts, otlpmetrichttp.WithCompression(otlpmetrichttp.NoCompression))
	}
	return otlpmetrichttp.New(ctx, opts...)
}

// otlpResource names the pusher: sparkglance's defaults (service.name,
// service.version, host.name and a service.instance.id made now), then
// OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME, then the flags, each
// overriding the one before. Defaults and flags carry no schema URL, so no
// semantic-convention version can conflict.
func otlpResource(ctx context.Context, c OTLPConfig, version string) (*resource.Resource, error) {
	defaults := []attribute.KeyValue{
		attribute.String("service.name", "sparkglance"),
		attribute.String("service.version", version),
		attribute.String("service.instance.id", uuid.NewString()),
	}
	if host, err := os.Hostname(); err == nil {
		defaults = append(defaults, attribute.String("host.name", host))
	}
	env, err := resource.New(ctx, resource.WithFromEnv())
	if err != nil {
		return nil, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	flags, err := parseResourceAttributes(c.ResourceAttributes)
	if err != nil {
		return nil, fmt.Errorf("--otlp.resource-attributes: %w", err)
	}
	if c.ServiceInstanceID != "" {
		flags = append(flags, attribute.String("service.instance.id", c.ServiceInstanceID))
	}
	res, err := resource.Merge(resource.NewSchemaless(defaults...), env)
	if err != nil {
		return nil, fmt.Errorf("OTLP resource: %w", err)
	}
	if res, err = resource.Merge(res, resource.NewSchemaless(flags...)); err != nil {
		return nil, fmt.Errorf("OTLP resource: %w", err)
	}
	return res, nil
}

// parseResourceAttributes reads k=v,k2=v2 as OTEL_RESOURCE_ATTRIBUTES is
// read: blanks around keys and values trimmed, values percent-decoded.
func parseResourceAttributes(s string) ([]attribute.KeyValue, error) {
	var out []attribute.KeyValue
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	for pair := range strings.SplitSeq(s, ",") {
		k, v, ok := strings.Cut(pair, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			return nil, fmt.Errorf("%q: want key=value", pair)
		}
		decoded, err := url.PathUnescape(v)
		if err != nil {
			return nil, fmt.Errorf("%q: bad percent-encoding in the value: %w", pair, err)
		}
		out = append(out, attribute.String(k, decoded))
	}
	return out, nil
}

// otlpStats counts pushes by outcome: sparkglance_otlp_exports_total.
type otlpStats struct {
	since            time.Time
	success, failure atomic.Uint64
	failing          atomic.Bool // the last push failed
}

func newOTLPStats() *otlpStats { return &otlpStats{since: time.Now()} }

func (s *otlpStats) Describe(ch chan<- *prometheus.Desc) { ch <- sm.OTLPExports.Desc() }

// Collect reports both outcomes from the start, so that a failure shows as
// an increase of a known series.
func (s *otlpStats) Collect(ch chan<- prometheus.Metric) {
	for _, r := range []struct {
		result string
		n      uint64
	}{{string(sm.ExportSuccess), s.success.Load()}, {string(sm.ExportFailure), s.failure.Load()}} {
		ch <- prometheus.MustNewConstMetricWithCreatedTimestamp(sm.OTLPExports.Desc(), prometheus.CounterValue, float64(r.n), s.since, r.result)
	}
}

// countingExporter counts and logs every push. It reports failures itself
// and returns none to the SDK, which would only hand them to the
// process-wide OpenTelemetry error handler without the endpoint or a hint.
type countingExporter struct {
	sdkmetric.Exporter
	stats    *otlpStats
	logger   *slog.Logger
	endpoint string
	insecure bool
	timeout  time.Duration
}

func (e *countingExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	err := e.Exporter.Export(ctx, rm)
	if err == nil {
		e.stats.success.Add(1)
		if e.stats.failing.Swap(false) {
			e.logger.Info("OTLP push succeeded again", "endpoint", e.endpoint)
		}
		return nil
	}
	e.stats.failure.Add(1)
	e.stats.failing.Store(true)
	e.logger.Error("OTLP push failed", "endpoint", e.endpoint, "hint", pushHint(err, e.endpoint, e.insecure, e.timeout), "err", err)
	return nil
}

// pushHint says in words what a failed push most likely means.
func pushHint(err error, endpoint string, insecure bool, timeout time.Duration) string {
	msg := err.Error()
	has := func(subs ...string) bool {
		for _, s := range subs {
			if strings.Contains(msg, s) {
				return true
			}
		}
		return false
	}
	switch {
	case has("first record does not look like a TLS handshake", "server gave HTTP response to HTTPS client"):
		return "the endpoint speaks plain text, not TLS: pass --otlp.insecure (or an http:// endpoint)"
	case insecure && has("malformed HTTP response", "server preface", "frame too large", "connection reset by peer"):
		return "the endpoint seems to expect TLS: drop --otlp.insecure"
	case has("connection refused"):
		return "nothing accepts connections at " + endpoint + ": check --otlp.endpoint and that the receiver runs"
	case has("x509:", "certificate"):
		return "the endpoint's TLS certificate is not trusted: check OTEL_EXPORTER_OTLP_CERTIFICATE or the system's CA certificates"
	case has("no such host"):
		return "the endpoint's host name does not resolve: check --otlp.endpoint"
	case has("code = Unauthenticated", "code = PermissionDenied", " 401 Unauthorized", " 403 Forbidden"):
		return "the endpoint refuses the credentials: check --otlp.headers"
	case errors.Is(err, context.DeadlineExceeded) || has("deadline exceeded"):
		return fmt.Sprintf("no answer within the push timeout (%s)", timeout)
	}
	return "see the error"
}

// withSchemaUnits sets the OTLP unit of every metric: the Prometheus bridge
// converts gathered families, which carry no unit (client_golang
// descriptors have none), so it is attached here by family name from the
// metric schema (see metricschema.UnitOf).
type withSchemaUnits struct{ sdkmetric.Producer }

func (p withSchemaUnits) Produce(ctx context.Context) ([]metricdata.ScopeMetrics, error) {
	scopes, err := p.Producer.Produce(ctx)
	for i := range scopes {
		for j := range scopes[i].Metrics {
			m := &scopes[i].Metrics[j]
			if unit, ok := sm.UnitOf(m.Name); ok && m.Unit == "" {
				m.Unit = unit
			}
		}
	}
	return scopes, err
}
