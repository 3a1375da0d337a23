package metricschema

import (
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// Type is a Prometheus metric type.
type Type string

// The metric types the collectors emit.
const (
	Gauge     Type = "gauge"
	Counter   Type = "counter"
	Histogram Type = "histogram"
	Summary   Type = "summary"
)

// Metric is the definition of one metric family.
type Metric struct {
	Name string
	Type Type
	// Unit is the UCUM unit the name's suffix stands for ("s", "By", "J",
	// "1", "{task}"…): the OTLP unit.
	Unit   string
	Labels []string // variable labels, in order
	Help   string
	// Pattern is set when Name is a template ("spark_metrics_<source>_<name>")
	// standing for families named at run time; it has no descriptor.
	Pattern bool
	desc    *prometheus.Desc
}

// New defines a metric family and builds its descriptor.
func New(name string, t Type, unit string, labels []string, help string) *Metric {
	m := &Metric{Name: name, Type: t, Unit: unit, Labels: labels, Help: help}
	m.desc = prometheus.NewDesc(name, help, labels, nil)
	return m
}

// NewPattern documents families whose names are only known at run time.
func NewPattern(name string, t Type, unit string, labels []string, help string) *Metric {
	return &Metric{Name: name, Type: t, Unit: unit, Labels: labels, Help: help, Pattern: true}
}

// Desc is the descriptor to build const metrics with (nil for a pattern).
func (m *Metric) Desc() *prometheus.Desc { return m.desc }

// ValueType is the client_golang value type of a gauge or counter
// (histograms and summaries have none; they report gauge).
func (m *Metric) ValueType() prometheus.ValueType {
	if m.Type == Counter {
		return prometheus.CounterValue
	}
	return prometheus.GaugeValue
}

// Labels joins label name lists, copying so that no caller shares a
// backing array with another.
func Labels(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// Same reports whether two definitions describe the same family exactly:
// what Prometheus' registry demands of two collectors emitting it.
func (m *Metric) Same(o *Metric) bool {
	return m.Name == o.Name && m.Type == o.Type && m.Unit == o.Unit && m.Help == o.Help &&
		strings.Join(m.Labels, ",") == strings.Join(o.Labels, ",")
}
