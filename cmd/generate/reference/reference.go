package reference

import (
	"io"

	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// Sections returns the schema's sections: every family, by collector.
func Sections() []sm.Section { return sm.Sections() }

// WriteDoc renders docs/metrics.md.
func WriteDoc(w io.Writer) error {
	if _, err := io.WriteString(w, intro); err != nil {
		return err
	}
	return sm.WriteTables(w, Sections())
}

const intro = "# Metrics\n\n" +
	"<!-- Generated from the metric schema (internal/metricschema) by\n" +
	"     make docs — do not edit by hand. -->\n\n" +
	`The names are a contract with dashboards, alerts and outside checks.
Every metric is defined once, in the metric schema (package
internal/metricschema), and this page is rendered from it. The collectors column names the
` + "`--collector.<name>`" + ` flags whose collector emits a family.

Per-application series carry ` + "`app_id`" + ` and ` + "`app_name`" + `;
per-executor series add ` + "`executor_id`" + `. Only the latest attempt of
an application id is exported. When the event-log collector (` + "`eventlog`" + `) and
the spark collector (` + "`spark`" + `) both see one application, the families
they share come from the event log only, so each has one series per
application; the spark collector's REST figures know only the ` + "`run`" + ` and
` + "`gc`" + ` categories of ` + "`spark_executor_task_time_seconds_total`" + `.
Values computed in the background (the event-log collector reads logs on
its own schedule) are as of the latest poll, by default at most
` + "`--eventlog.poll-interval`" + ` (1s) old. Node-agent series (` + "`process`" + `,
` + "`stacks`" + `) carry ` + "`app_id`" + ` and ` + "`executor_id`" + ` but no ` + "`app_name`" + `.

## OTLP

The OTLP push sends exactly the metrics of a scrape, converted by the
OpenTelemetry Prometheus bridge: the OTLP metric name is the Prometheus name
below (suffixes ` + "`_total`" + `, ` + "`_seconds`" + `, ` + "`_bytes`" + `
included), the HELP text is the description, labels are attributes, gauges
are Gauges and counters cumulative monotonic Sums. Each metric carries the
UCUM unit of the unit column (the unit its name's suffix stands for); a
backend that translates OTLP names to Prometheus names (appending the unit
and ` + "`_total`" + `) must be configured not to add them twice. Resource attributes: ` + "`service.name=sparkglance`" + `,
` + "`service.version`" + `, ` + "`host.name`" + `.

`
