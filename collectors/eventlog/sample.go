package eventlog

import (
	"slices"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/sparkglance/sparkglance/exporter"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// sample is a const metric whose label pairs are built once per
// application, executor or label value and shared between series:
// prometheus.MustNewConstMetric builds and validates them for every series,
// which dominated the cost of a scrape with many executors. It carries its
// dto form, so that a series costs one allocation.
type sample struct {
	m      *Metric
	d      dto.Metric
	value  dto.Gauge // or the counter's value, see newSample
	count  dto.Counter
	v      float64
	labels [maxLabels]*dto.LabelPair
}

// maxLabels is the most labels a family of this collector has
// (spark_app_finding: app_id, app_name, kind, stage_id, executor_id).
const maxLabels = 5

func (s *sample) Desc() *prometheus.Desc { return s.m.Desc() }

// Write never alters the shared label pairs: it only points at them.
func (s *sample) Write(out *dto.Metric) error {
	out.Label, out.Gauge, out.Counter = s.d.Label, s.d.Gauge, s.d.Counter
	return nil
}

// labelPair returns a new pair; callers keep it for every series that
// carries the same label value. Every label value of this collector passes
// here, so invalid UTF-8 from a log (an application name, a user) becomes
// U+FFFD once, for every exposition path, instead of breaking the scrape.
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

// newSample sorts pairs (given in declared label order) into a new sample;
// a counter's carries created, when its series began (nil if unknown).
func (m *Metric) newSample(created *timestamppb.Timestamp, value float64, pairs ...*dto.LabelPair) *sample {
	s := &sample{m: m, v: value}
	lps := s.labels[:len(pairs)]
	for i, j := range m.order {
		lps[i] = pairs[j]
	}
	s.d.Label = lps
	if m.Type == sm.Counter {
		s.count.Value = &s.v
		s.count.CreatedTimestamp = created
		s.d.Counter = &s.count
	} else {
		s.value.Value = &s.v
		s.d.Gauge = &s.value
	}
	return s
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
