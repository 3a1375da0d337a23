package metricschema

import (
	"slices"

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
	Labels []string // variable labels' names, in order
	Help   string
	// Pattern is set when Name is a template ("spark_metrics_<source>_<name>")
	// standing for families named at run time; it has no descriptor.
	Pattern bool
	labels  []Label // Labels with the values of the closed ones
	desc    *prometheus.Desc
}

// New defines a family outside the schema (a test's), its labels open,
// and builds its descriptor. The schema's families are defined by
// [Section.New], which lists them in their section.
func New(name string, t Type, unit string, labels []string, help string) *Metric {
	return newMetric(name, t, unit, Open(labels...), help)
}

func newMetric(name string, t Type, unit string, labels []Label, help string) *Metric {
	m := &Metric{Name: name, Type: t, Unit: unit, Labels: names(labels), labels: labels, Help: help}
	m.desc = prometheus.NewDesc(name, help, m.Labels, nil)
	return m
}

// NewPattern documents families whose names are only known at run time.
func NewPattern(name string, t Type, unit string, labels []string, help string) *Metric {
	return &Metric{Name: name, Type: t, Unit: unit, Labels: labels, labels: Open(labels...), Help: help, Pattern: true}
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

// Same reports whether two definitions describe the same family exactly:
// what Prometheus' registry demands of two collectors emitting it.
func (m *Metric) Same(o *Metric) bool {
	return m.Name == o.Name && m.Type == o.Type && m.Unit == o.Unit && m.Help == o.Help &&
		slices.EqualFunc(m.labels, o.labels, func(a, b Label) bool { return a.Name == b.Name && slices.Equal(a.Values, b.Values) })
}
