package reference

import (
	"io"
	"strings"

	"github.com/sparkglance/sparkglance/collectors/eventlog"
	"github.com/sparkglance/sparkglance/collectors/process"
	"github.com/sparkglance/sparkglance/collectors/spark"
	"github.com/sparkglance/sparkglance/collectors/stacks"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// exporterMetrics are emitted by the exporter itself, not by a collector
// (exporter/scrape.go, exporter/buildinfo.go); the integration test checks
// that a real scrape carries exactly these HELP texts.
var exporterMetrics = []*sm.Metric{
	sm.New("sparkglance_build_info", sm.Gauge, "1", []string{"version", "revision", "branch", "goversion", "goos", "goarch", "tags"},
		"A metric with a constant '1' value labeled by version, revision, branch, goversion from which sparkglance was built, and the goos and goarch for the build."),
	sm.New("sparkglance_scrape_collector_success", sm.Gauge, "1", []string{"collector"},
		"sparkglance: whether a collector succeeded within the scrape deadline (1) or failed or timed out (0)."),
	sm.New("sparkglance_scrape_collector_duration_seconds", sm.Gauge, "s", []string{"collector"},
		"sparkglance: duration of a collector's Update during this scrape."),
}

// Sections returns every collector's metric table, split for reading.
func Sections() []sm.Section {
	var app, exec, self []*sm.Metric
	for _, m := range eventlog.Metrics() {
		switch {
		case strings.HasPrefix(m.Name, "spark_executor_"):
			exec = append(exec, m)
		case strings.HasPrefix(m.Name, "spark_"):
			app = append(app, m)
		default:
			self = append(self, m)
		}
	}
	return []sm.Section{
		{Collector: eventlog.CollectorName, Title: "Applications (collector `eventlog`)", Metrics: app},
		{Collector: eventlog.CollectorName, Title: "Executors (collector `eventlog`)", Metrics: exec},
		{Collector: eventlog.CollectorName, Title: "Event-log reading (collector `eventlog`)", Metrics: self},
		{Collector: "spark", Title: "Spark REST API and metrics system (collector `spark`)", Metrics: spark.Metrics()},
		{Collector: "process", Title: "Node agent: JVM CPU and energy (collector `process`)", Metrics: process.Metrics()},
		{Collector: "stacks", Title: "Thread dumps (collector `stacks`)", Metrics: stacks.Metrics()},
		{Collector: "exporter", Title: "Exporter", Metrics: exporterMetrics},
	}
}

// WriteDoc renders docs/metrics.md.
func WriteDoc(w io.Writer) error {
	if _, err := io.WriteString(w, intro); err != nil {
		return err
	}
	return sm.WriteTables(w, Sections())
}

const intro = "# Metrics\n\n" +
	"<!-- Generated from the collectors' metric tables by\n" +
	"     make docs — do not edit by hand. -->\n\n" +
	`The names are a contract with dashboards, alerts and outside checks.
Every metric is defined once in code (package metricschema for the families
several collectors emit, else the collector's own table) and this page is
rendered from those definitions. The collectors column names the
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
are Gauges and counters cumulative monotonic Sums. The unit column gives
the UCUM unit each name's suffix stands for; a backend that translates OTLP
names to Prometheus names (appending the unit and ` + "`_total`" + `) must
be configured not to add them twice. Resource attributes: ` + "`service.name=sparkglance`" + `,
` + "`service.version`" + `, ` + "`host.name`" + `.

`
