package exporter

import (
	"context"
	"fmt"
	"slices"
	"strings"

	dto "github.com/prometheus/client_model/go"
)

// FamilyCollector is a Collector that can also hand over its metrics as
// whole families, each already encoded in the text format. A scrape in the
// text format then copies that text instead of passing every series
// through the registry (hashing, sorting) and the text encoder, which is
// what a scrape of thousands of executors spends its time on. Update stays
// the reference: Families must yield exactly the series Update sends.
type FamilyCollector interface {
	Collector
	// Families returns the collector's non-empty families for this scrape.
	// It must stop early once ctx is done.
	Families(ctx context.Context) ([]Family, error)
}

// Family is one metric family of a FamilyCollector. Its collector vouches
// for what the registry would otherwise check: a valid name, one help and
// type, unique series sorted as the registry sorts them (by label values
// in label-name order).
type Family struct {
	Name string
	Help string
	Type dto.MetricType
	// Text is the family's sample lines in the text format (no HELP or
	// TYPE line), written in this order.
	Text [][]byte
	// Metrics returns the same series, for the other formats, the OTLP
	// push, and merging with another collector's series of this family.
	Metrics func() []*dto.Metric
}

// asMetricFamily converts f for the registry's world.
func (f *Family) asMetricFamily() *dto.MetricFamily {
	return &dto.MetricFamily{Name: &f.Name, Help: &f.Help, Type: f.Type.Enum(), Metric: f.Metrics()}
}

// gathered is one scrape: the registry's families and the ready families
// of FamilyCollectors, each sorted by name, no name in both.
type gathered struct {
	regular []*dto.MetricFamily
	ready   []Family
}

// separate moves into regular every ready family whose name regular also
// has (another collector emits it too) or that two FamilyCollectors
// returned, merging their series as the registry would, so that each
// family is written once.
func separate(regular []*dto.MetricFamily, ready []Family) (gathered, []error) {
	slices.SortStableFunc(ready, func(a, b Family) int { return strings.Compare(a.Name, b.Name) })
	byName := make(map[string]*dto.MetricFamily, len(regular))
	for _, mf := range regular {
		byName[mf.GetName()] = mf
	}
	g := gathered{regular: regular}
	var errs []error
	for i := 0; i < len(ready); {
		n := 1
		for i+n < len(ready) && ready[i+n].Name == ready[i].Name {
			n++
		}
		group := ready[i : i+n]
		i += n
		mf := byName[group[0].Name]
		if mf == nil && n == 1 {
			g.ready = append(g.ready, group[0])
			continue
		}
		if mf == nil {
			mf = group[0].asMetricFamily()
			group = group[1:]
			g.regular = append(g.regular, mf)
		}
		for j := range group {
			if err := mergeInto(mf, &group[j]); err != nil {
				errs = append(errs, err)
			}
		}
	}
	slices.SortFunc(g.regular, func(a, b *dto.MetricFamily) int { return strings.Compare(a.GetName(), b.GetName()) })
	return g, errs
}

// mergeInto adds f's series to mf, refusing a family of another help or
// type and dropping series already there, then sorts as the registry does.
func mergeInto(mf *dto.MetricFamily, f *Family) error {
	if mf.GetType() != f.Type || mf.GetHelp() != f.Help {
		return fmt.Errorf("family %s: collected with type %s and help %q, and elsewhere with type %s and help %q; dropped the latter",
			f.Name, mf.GetType(), mf.GetHelp(), f.Type, f.Help)
	}
	seen := make(map[string]bool, len(mf.Metric))
	for _, m := range mf.Metric {
		seen[labelKey(m)] = true
	}
	dups := 0
	for _, m := range f.Metrics() {
		k := labelKey(m)
		if seen[k] {
			dups++
			continue
		}
		seen[k] = true
		mf.Metric = append(mf.Metric, m)
	}
	slices.SortStableFunc(mf.Metric, compareSeries)
	if dups > 0 {
		return fmt.Errorf("family %s: %d series collected twice with the same label values; kept the first", f.Name, dups)
	}
	return nil
}

// labelKey identifies a series within its family.
func labelKey(m *dto.Metric) string {
	var b strings.Builder
	for _, lp := range m.GetLabel() {
		b.WriteString(lp.GetName())
		b.WriteByte(0xff)
		b.WriteString(lp.GetValue())
		b.WriteByte(0xff)
	}
	return b.String()
}

// compareSeries is the registry's order of the series of a family: by
// label count, then label values in label-name order (collectors here set
// no timestamps, the registry's last criterion).
func compareSeries(a, b *dto.Metric) int {
	if len(a.Label) != len(b.Label) {
		return len(a.Label) - len(b.Label)
	}
	for i, lp := range a.Label {
		if c := strings.Compare(lp.GetValue(), b.Label[i].GetValue()); c != 0 {
			return c
		}
	}
	return 0
}

// CompareSeries exposes the registry's series order to FamilyCollectors,
// which must keep it.
func CompareSeries(a, b *dto.Metric) int { return compareSeries(a, b) }
