// Package reference renders docs/metrics.md from the metric schema
// (internal/metricschema). Its tests run every collector in one exporter,
// wired by serve's own wiring (cmd/internal/wiring), so no collector may
// import it.
package reference
