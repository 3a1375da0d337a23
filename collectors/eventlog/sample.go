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
// dto form; a gaugeSample or counterSample holds it with the one value
// type it needs, since a view of 100 executors has thousands of them.
type sample struct {
	m      *Metric
	d      dto.Metric
	v      float64
	labels [maxLabels]*dto.LabelPair
}

type gaugeSample struct {
	sample
	g dto.Gauge
}

type counterSample struct {
	sample
	c dto.Counter
}

// series is the sample's dto form, which the exporter's part keeps.
func (s *sample) series() *dto.Metric { return &s.d }

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
	if m.Type == sm.Counter {
		return m.initCounter(&counterSample{}, created, value, pairs)
	}
	return m.initGauge(&gaugeSample{}, value, pairs)
}

// newSample is m's newSample from p's slab, if it has one.
func (p *appPairs) newSample(m *Metric, created *timestamppb.Timestamp, value float64, pairs ...*dto.LabelPair) *sample {
	switch {
	case p.slab == nil:
		return m.newSample(created, value, pairs...)
	case m.Type == sm.Counter:
		return m.initCounter(nextOf(&p.slab.counters, &p.slab.counterRun), created, value, pairs)
	}
	return m.initGauge(nextOf(&p.slab.gauges, &p.slab.gaugeRun), value, pairs)
}

// sampleSlab hands out a view's samples from arrays allocated together: a
// view of 100 executors has 2,000 series, and one allocation each was the
// largest cost of building a changed view. The samples of a view live and
// die together, so no array outlives its use; the arrays grow from small
// to bounded, so that a small application wastes little of its last one.
type sampleSlab struct {
	gauges               []gaugeSample
	counters             []counterSample
	gaugeRun, counterRun int // size of the next array of each
}

// gaugeOrCounter are the slabs' element types, one per array.
type gaugeOrCounter interface{ gaugeSample | counterSample }

const (
	firstSlab = 8
	maxSlab   = 256 // ~60 KB
)

func nextOf[T gaugeOrCounter](free *[]T, run *int) *T {
	if len(*free) == 0 {
		*run = min(max(2**run, firstSlab), maxSlab)
		*free = make([]T, *run)
	}
	s := &(*free)[0]
	*free = (*free)[1:]
	return s
}

func (m *Metric) initGauge(s *gaugeSample, value float64, pairs []*dto.LabelPair) *sample {
	s.g.Value = &s.v
	s.d.Gauge = &s.g
	return m.initSample(&s.sample, value, pairs)
}

func (m *Metric) initCounter(s *counterSample, created *timestamppb.Timestamp, value float64, pairs []*dto.LabelPair) *sample {
	s.c.Value = &s.v
	s.c.CreatedTimestamp = created
	s.d.Counter = &s.c
	return m.initSample(&s.sample, value, pairs)
}

// initSample sets s's metric, value and pairs, sorted into label order.
func (m *Metric) initSample(s *sample, value float64, pairs []*dto.LabelPair) *sample {
	s.m, s.v = m, value
	lps := s.labels[:len(pairs)]
	for i, j := range m.order {
		lps[i] = pairs[j]
	}
	s.d.Label = lps
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
