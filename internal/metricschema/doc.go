// Package metricschema is the metric schema: the one place every metric
// family sparkglance exports is defined — name, type, UCUM unit (the OTLP
// unit), labels and the values of its closed labels, HELP — and which
// collector emits it (the sections of [Sections]; "exporter" for the
// exporter's own). Collectors build their descriptors from these
// definitions and emit closed labels' values from the typed constants
// declared here (labels.go); the OTLP push takes its units from them,
// backfill its families, docs/metrics.md is rendered from them (make docs),
// the dashboard and alert tests check expressions against their names, and
// [CheckSeries] checks gathered series against their labels.
//
// Adding a family means adding a definition here, by its section's New
// (which lists it in the section), and the code that computes the value,
// nothing else.
//
// Families emitted by more than one collector (the event-log collector and
// the spark collector) are declared in shared.go and listed in both
// sections ([Metric.AlsoIn]).
package metricschema
