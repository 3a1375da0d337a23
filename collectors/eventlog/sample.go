package eventlog

import (
	"slices"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/sparkglance/sparkglance/exporter"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// sample is a const metric whose label pairs are built once per
// application, executor or label value and shared between series:
// prometheus.MustNewConstMetric builds and validates them for every series,
// which dominated the cost of a scrape with many executors.
type sample struct {
	m      *Metric
	labels []*dto.LabelPair // sorted by name
	value  float64
}

func (s *sample) Desc() *prometheus.Desc { return s.m.Desc() }

// Write never alters the shared label pairs: it only points at them.
func (s *sample) Write(out *dto.Metric) error {
	out.Label = s.labels
	v := s.value
	if s.m.Type == sm.Counter {
		out.Counter = &dto.Counter{Value: &v}
	} else {
		out.Gauge = &dto.Gauge{Value: &v}
	}
	return nil
}

// labelPair returns a new pair; callers keep it for every series that
// carries the same label value. The value is made valid UTF-8: these pairs
// bypass the checks of MustNewConstMetric.
func labelPair(name, value string) *dto.LabelPair {
	value = exporter.LabelValue(value)
	return &dto.LabelPair{Name: &name, Value: &value}
}

// sortedOrder is, for each metric, the order of its declared labels sorted
// by name (what the exposition format and the registry expect).
func sortedOrder(labels []string) []int {
	idx := make([]int, len(labels))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		switch {
		case labels[a] < labels[b]:
			return -1
		case labels[a] > labels[b]:
			return 1
		}
		return 0
	})
	return idx
}

// newSample sorts pairs (given in declared label order) into a new slice.
func (m *Metric) newSample(value float64, pairs ...*dto.LabelPair) *sample {
	lps := make([]*dto.LabelPair, len(pairs))
	for i, j := range m.order {
		lps[i] = pairs[j]
	}
	return &sample{m: m, labels: lps, value: value}
}

// constPairs caches pairs of fixed label values (category="cpu", …).
type constPairs map[string]*dto.LabelPair

func newConstPairs(name string, values ...string) constPairs {
	c := constPairs{}
	for _, v := range values {
		c[v] = labelPair(name, v)
	}
	return c
}

var (
	taskTimePairs = newConstPairs("category", taskTimeCategories[:]...)
	ratioPairs    = newConstPairs("category", intervalCategories[:]...)
	mediumPairs   = newConstPairs("medium", "memory", "disk")
	statusPairs   = newConstPairs("status", "success", "failed", "killed")
)
