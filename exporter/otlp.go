package exporter

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"time"

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

// OTLPConfig configures the OTLP push; an empty Endpoint turns it off.
//
// The pushed metrics are exactly what /metrics serves, converted by the
// OpenTelemetry Prometheus bridge: names stay the Prometheus names
// (including _total and unit suffixes), HELP becomes the description,
// labels become attributes, gauges become Gauges and counters cumulative
// monotonic Sums, and each family the metric schema defines carries its
// UCUM unit. A backend that maps OTLP back to Prometheus names will
// therefore find the same series.
type OTLPConfig struct {
	// Endpoint is host:port, or a URL (http:// implies --otlp.insecure; for
	// http/protobuf a URL path replaces the default /v1/metrics).
	Endpoint string
	Protocol string
	Interval time.Duration
	Timeout  time.Duration
	Insecure bool
	Headers  map[string]string
}

func addOTLPFlags(g FlagGroup, c *OTLPConfig) {
	g.Flag("otlp.endpoint", "OTLP receiver to push metrics to, host:port or URL; empty disables the push.").
		Default("").StringVar(&c.Endpoint)
	g.Flag("otlp.protocol", "OTLP transport: grpc or http/protobuf (http for short).").
		Default(ProtocolGRPC).EnumVar(&c.Protocol, ProtocolGRPC, ProtocolHTTP, "http")
	g.Flag("otlp.interval", "How often to push.").Default("30s").DurationVar(&c.Interval)
	g.Flag("otlp.timeout", "Timeout of one push.").Default("10s").DurationVar(&c.Timeout)
	g.Flag("otlp.insecure", "Push over plain text instead of TLS.").Default("false").BoolVar(&c.Insecure)
	c.Headers = map[string]string{} // kingpin's StringMapVar fills, not allocates
	g.Flag("otlp.headers", "Header sent with every push, key=value (repeatable), e.g. an API key.").
		StringMapVar(&c.Headers)
}

func (c OTLPConfig) validate() error {
	if c.Endpoint == "" {
		return nil
	}
	if c.Interval <= 0 {
		return fmt.Errorf("--otlp.interval must be positive, got %s", c.Interval)
	}
	if _, _, _, err := c.target(); err != nil {
		return err
	}
	switch c.Protocol {
	case ProtocolGRPC, ProtocolHTTP, "http", "":
		return nil
	}
	return fmt.Errorf("--otlp.protocol %q: want %s or %s", c.Protocol, ProtocolGRPC, ProtocolHTTP)
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

// startOTLP pushes what g gathers every c.Interval until the returned
// provider is shut down (which pushes once more).
func startOTLP(ctx context.Context, c OTLPConfig, version string, g prometheus.Gatherer, logger *slog.Logger) (*sdkmetric.MeterProvider, error) {
	exp, err := newOTLPExporter(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("OTLP exporter: %w", err)
	}
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		logger.Error("OTLP push failed", "endpoint", c.Endpoint, "err", err)
	}))
	reader := sdkmetric.NewPeriodicReader(exp,
		sdkmetric.WithInterval(c.Interval),
		sdkmetric.WithTimeout(c.Timeout),
		sdkmetric.WithProducer(withSchemaUnits{prombridge.NewMetricProducer(prombridge.WithGatherer(g))}),
	)
	logger.Info("pushing metrics over OTLP", "endpoint", c.Endpoint, "protocol", c.Protocol, "interval", c.Interval)
	return sdkmetric.NewMeterProvider(
		sdkmetric.WithReader(reader),
		sdkmetric.WithResource(otlpResource(version)),
	), nil
}

func newOTLPExporter(ctx context.Context, c OTLPConfig) (sdkmetric.Exporter, error) {
	hostPort, path, insecure, err := c.target()
	if err != nil {
		return nil, err
	}
	if c.Protocol == ProtocolGRPC || c.Protocol == "" {
		opts := []otlpmetricgrpc.Option{otlpmetricgrpc.WithEndpoint(hostPort), otlpmetricgrpc.WithTimeout(c.Timeout)}
		if insecure {
			opts = append(opts, otlpmetricgrpc.WithInsecure())
		}
		if len(c.Headers) > 0 {
			opts = append(opts, otlpmetricgrpc.WithHeaders(c.Headers))
		}
		return otlpmetricgrpc.New(ctx, opts...)
	}
	opts := []otlpmetrichttp.Option{otlpmetrichttp.WithEndpoint(hostPort), otlpmetrichttp.WithTimeout(c.Timeout)}
	if path != "" {
		opts = append(opts, otlpmetrichttp.WithURLPath(path))
	}
	if insecure {
		opts = append(opts, otlpmetrichttp.WithInsecure())
	}
	if len(c.Headers) > 0 {
		opts = append(opts, otlpmetrichttp.WithHeaders(c.Headers))
	}
	return otlpmetrichttp.New(ctx, opts...)
}

// otlpResource names the pusher. Attributes are set plainly (no schema URL)
// so that no semantic-convention version can conflict.
func otlpResource(version string) *resource.Resource {
	attrs := []attribute.KeyValue{
		attribute.String("service.name", "sparkglance"),
		attribute.String("service.version", version),
	}
	if host, err := os.Hostname(); err == nil {
		attrs = append(attrs, attribute.String("host.name", host))
	}
	return resource.NewSchemaless(attrs...)
}

// withSchemaUnits sets the OTLP unit of every metric the schema defines:
// the Prometheus bridge converts gathered families, which carry no unit
// (client_golang descriptors have none), so it is attached here by family
// name.
type withSchemaUnits struct{ sdkmetric.Producer }

func (p withSchemaUnits) Produce(ctx context.Context) ([]metricdata.ScopeMetrics, error) {
	scopes, err := p.Producer.Produce(ctx)
	for i := range scopes {
		for j := range scopes[i].Metrics {
			m := &scopes[i].Metrics[j]
			if def, ok := sm.Lookup(m.Name); ok && m.Unit == "" {
				m.Unit = def.Unit
			}
		}
	}
	return scopes, err
}
