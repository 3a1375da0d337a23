package deploy_test

import (
	"net"
	"testing"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/debugexporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/otelcol/otelcoltest"
	"go.opentelemetry.io/collector/pipeline"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
)

// collectorConfigFile is the OpenTelemetry Collector config the compose
// stack runs and deploy/README.md offers.
const collectorConfigFile = "otel-collector/config.yaml"

// loadCollectorConfig loads and validates the collector config as the
// collector does (confmap, the components' own config structs and
// validation, pipelines naming configured components), with the factories
// of the components it uses: the OTLP receiver and the debug exporter.
func loadCollectorConfig(t *testing.T) *otelcol.Config {
	t.Helper()
	receivers, err := otelcol.MakeFactoryMap[receiver.Factory](otlpreceiver.NewFactory())
	if err != nil {
		t.Fatal(err)
	}
	exporters, err := otelcol.MakeFactoryMap[exporter.Factory](debugexporter.NewFactory())
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := otelcoltest.LoadConfigAndValidate(collectorConfigFile, otelcol.Factories{Receivers: receivers, Exporters: exporters})
	if err != nil {
		t.Fatalf("%s: %v", collectorConfigFile, err)
	}
	return cfg
}

// collectorReceiverPorts returns the ports of the OTLP receiver's HTTP
// and gRPC servers.
func collectorReceiverPorts(t *testing.T) (httpPort, grpcPort string) {
	t.Helper()
	cfg := loadCollectorConfig(t)
	otlp, ok := cfg.Receivers[component.MustNewID("otlp")].(*otlpreceiver.Config)
	if !ok {
		t.Fatalf("%s: no otlp receiver", collectorConfigFile)
	}
	if !otlp.Protocols.GRPC.HasValue() || !otlp.Protocols.HTTP.HasValue() {
		t.Fatalf("%s: the otlp receiver serves gRPC %v, HTTP %v; want both", collectorConfigFile, otlp.Protocols.GRPC.HasValue(), otlp.Protocols.HTTP.HasValue())
	}
	port := func(endpoint string) string {
		host, port, err := net.SplitHostPort(endpoint)
		if err != nil {
			t.Fatalf("%s: %s: %v", collectorConfigFile, endpoint, err)
		}
		// In a container the receiver must listen beyond its own loopback.
		if host != "0.0.0.0" && host != "" {
			t.Errorf("%s: the receiver listens on %s, unreachable from another container", collectorConfigFile, endpoint)
		}
		return port
	}
	return port(otlp.Protocols.HTTP.Get().ServerConfig.NetAddr.Endpoint), port(otlp.Protocols.GRPC.Get().NetAddr.Endpoint)
}

// The collector config loads and validates with the real components, and
// its metrics pipeline takes the OTLP push to the debug exporter.
func TestOTelCollectorConfig(t *testing.T) {
	cfg := loadCollectorConfig(t)
	metrics, ok := cfg.Service.Pipelines[pipeline.NewID(pipeline.SignalMetrics)]
	if !ok {
		t.Fatalf("%s: no metrics pipeline", collectorConfigFile)
	}
	if len(metrics.Receivers) != 1 || metrics.Receivers[0] != component.MustNewID("otlp") ||
		len(metrics.Exporters) != 1 || metrics.Exporters[0] != component.MustNewID("debug") {
		t.Errorf("%s: metrics pipeline %v → %v, want otlp → debug", collectorConfigFile, metrics.Receivers, metrics.Exporters)
	}
	if httpPort, grpcPort := collectorReceiverPorts(t); httpPort != "4318" || grpcPort != "4317" {
		t.Errorf("%s: OTLP on HTTP %s, gRPC %s; want the standard 4318 and 4317", collectorConfigFile, httpPort, grpcPort)
	}
}
