// Package metricschema is the one place a metric is defined: its name,
// type, unit, labels and HELP. Every collector builds its descriptors from
// these definitions and lists them in a table (its package's Metrics
// function), and docs/metrics.md is rendered from those tables, so code,
// documentation and the families two collectors share cannot drift apart.
//
// Families emitted by more than one collector (the event-log collector and
// the spark collector) are declared here, once, in shared.go.
package metricschema
