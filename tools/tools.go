//go:build tools

// Package tools pins the test-only programs the end-to-end tests run
// (tools/build.sh builds them): Prometheus 3 and promtool from the
// Prometheus module, and the OpenTelemetry Collector in ./otelcol.
package tools

import (
	_ "github.com/prometheus/prometheus/cmd/prometheus"
	_ "github.com/prometheus/prometheus/cmd/promtool"
)
