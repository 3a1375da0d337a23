package metricschema

import (
	"errors"
	"fmt"
	"strings"
)

// Section is one collector's metric table, as documented.
type Section struct {
	Collector string // --collector.<name>, or "exporter" for the framework's own
	Title     string
	Metrics   []*Metric
}

// New defines a family of the schema, lists it in s and builds its
// descriptor.
func (s *Section) New(name string, t Type, unit string, labels []Label, help string) *Metric {
	m := newMetric(name, t, unit, labels, help)
	s.Metrics = append(s.Metrics, m)
	return m
}

// NewPattern documents, in s, families whose names are only known at run
// time.
func (s *Section) NewPattern(name string, t Type, unit string, labels []Label, help string) *Metric {
	m := &Metric{Name: name, Type: t, Unit: unit, Labels: names(labels), labels: labels, Help: help, Pattern: true}
	s.Metrics = append(s.Metrics, m)
	return m
}

// AlsoIn lists m in s too: a family another collector emits as well.
func (m *Metric) AlsoIn(s *Section) *Metric {
	s.Metrics = append(s.Metrics, m)
	return m
}

// Check finds what Prometheus' registry or naming conventions would reject
// across all sections: a family declared twice by one collector, a family
// two collectors define differently (name, type, unit, HELP or labels), a
// counter not ending in _total or a non-counter ending in it.
func Check(sections []Section) error {
	var errs []error
	first := map[string]*Metric{}
	firstBy := map[string]string{}
	for _, s := range sections {
		inSection := map[string]bool{}
		for _, m := range s.Metrics {
			if inSection[m.Name] {
				errs = append(errs, fmt.Errorf("%s: %s declared twice", s.Collector, m.Name))
			}
			inSection[m.Name] = true
			if (m.Type == Counter) != strings.HasSuffix(m.Name, "_total") {
				errs = append(errs, fmt.Errorf("%s: %s: counters and only counters end in _total", s.Collector, m.Name))
			}
			if f, ok := first[m.Name]; ok && !f.Same(m) {
				errs = append(errs, fmt.Errorf("%s is defined differently by %s (%s %v %q) and %s (%s %v %q)",
					m.Name, firstBy[m.Name], f.Type, f.Labels, f.Help, s.Collector, m.Type, m.Labels, m.Help))
			} else if !ok {
				first[m.Name], firstBy[m.Name] = m, s.Collector
			}
		}
	}
	return errors.Join(errs...)
}

// Emitters maps each family name to the collectors that emit it, in
// section order.
func Emitters(sections []Section) map[string][]string {
	out := map[string][]string{}
	for _, s := range sections {
		for _, m := range s.Metrics {
			out[m.Name] = append(out[m.Name], s.Collector)
		}
	}
	return out
}
