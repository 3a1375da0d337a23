// Package reference renders docs/metrics.md from the metric schema
// (internal/metricschema). Its tests run every collector in one exporter,
// so no collector may import it.
package reference
