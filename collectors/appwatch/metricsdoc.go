package appwatch

import (
	"fmt"
	"io"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// frameworkMetrics are emitted by the exporter itself, not by a collector;
// they are listed so that the reference is complete.
var frameworkMetrics = []*Metric{
	{Name: "sparkglance_build_info", Type: prometheus.GaugeValue, Unit: "1",
		Labels: []string{"version", "revision", "goversion", "goos", "goarch"},
		Help:   "sparkglance: constant 1, labelled by the version, VCS revision and Go toolchain it was built from."},
	{Name: "sparkglance_scrape_collector_success", Type: prometheus.GaugeValue, Unit: "1", Labels: []string{"collector"},
		Help: "sparkglance: whether a collector succeeded within the scrape deadline (1) or failed or timed out (0)."},
	{Name: "sparkglance_scrape_collector_duration_seconds", Type: prometheus.GaugeValue, Unit: "s", Labels: []string{"collector"},
		Help: "sparkglance: duration of a collector's Update during this scrape."},
}

// WriteMetricsDoc renders docs/metrics.md.
func WriteMetricsDoc(w io.Writer) error {
	var b strings.Builder
	b.WriteString(`# Metrics

<!-- Generated from collectors/appwatch/metrics.go by
     go generate ./collectors/appwatch — do not edit by hand. -->

The names are a contract with dashboards, alerts and outside checks.
Per-application series carry ` + "`app_id`" + ` and ` + "`app_name`" + `;
per-executor series add ` + "`executor_id`" + `. Only the latest attempt of
an application id is exported. Values computed in the background (the
event-log collector reads logs on its own schedule) are as of the latest
poll, by default at most ` + "`--eventlog.poll-interval`" + ` (1s) old.

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

`)
	section := func(title string, ms []*Metric) {
		fmt.Fprintf(&b, "## %s\n\n| name | type | unit | labels | description |\n|---|---|---|---|---|\n", title)
		for _, m := range ms {
			labels := make([]string, len(m.Labels))
			for i, l := range m.Labels {
				labels[i] = "`" + l + "`"
			}
			fmt.Fprintf(&b, "| `%s` | %s | `%s` | %s | %s |\n", m.Name, typeName(m.Type), m.Unit,
				strings.Join(labels, ", "), strings.ReplaceAll(m.Help, "|", `\|`))
		}
		b.WriteString("\n")
	}
	var app, exec, self []*Metric
	for _, m := range Metrics() {
		switch {
		case strings.HasPrefix(m.Name, "spark_executor_"):
			exec = append(exec, m)
		case strings.HasPrefix(m.Name, "spark_"):
			app = append(app, m)
		default:
			self = append(self, m)
		}
	}
	section("Applications (collector `eventlog`)", app)
	section("Executors (collector `eventlog`)", exec)
	section("Event-log reading (collector `eventlog`)", self)
	section("Exporter", frameworkMetrics)
	b.WriteString("Other collectors (spark, process, jvmstack) document their own series in their package documentation.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func typeName(t prometheus.ValueType) string {
	if t == prometheus.CounterValue {
		return "counter"
	}
	return "gauge"
}
