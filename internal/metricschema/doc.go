// Package metricschema is the metric schema: the one place every metric
// family sparkglance exports is defined — name, type, UCUM unit (the OTLP
// unit), labels, HELP — and which collector emits it (the sections of
// [Sections]; "exporter" for the exporter's own). Collectors build their
// descriptors from these definitions, the OTLP push takes its units from
// them, docs/metrics.md is rendered from them (make docs) and the
// dashboard and alert tests check expressions against their names.
//
// Adding a family means adding a definition here (and to its collector's
// section) and the code that computes the value, nothing else.
//
// Families emitted by more than one collector (the event-log collector and
// the spark collector) are declared in shared.go.
package metricschema
