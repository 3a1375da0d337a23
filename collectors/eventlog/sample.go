package eventlog

import (
	"slices"

	"github.com/sparkglance/sparkglance/exporter"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// maxLabels is the most labels a family of this collector has
// (spark_app_finding: app_id, app_name, kind, stage_id, executor_id).
const maxLabels = 5

// labelPair returns a new pair; callers keep it for every series that
// carries the same label value, so that its text is made once. Every label
// value of this collector passes here (exporter.NewPair), so invalid UTF-8
// from a log (an application name, a user) becomes U+FFFD once, for every
// exposition path, instead of breaking the scrape.
func labelPair(name, value string) *exporter.Pair {
	return exporter.NewPair(name, value)
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

// pairRef is a label pair of the view being built: its index in the
// view's table of pairs. The constant pairs (category="cpu", …) come first
// in every table, at the same indices.
type pairRef = uint32

// constTable holds the constant pairs, the start of every view's table.
var constTable []*exporter.Pair

// send collects a series of m with the application's pairs and extra (the
// rest of m's labels in declared order); a counter began when the
// application started.
func (p *appPairs) send(m *Metric, value float64, extra ...pairRef) {
	var all [maxLabels]pairRef
	all[0], all[1] = p.id, p.name
	n := 2 + copy(all[2:], extra)
	p.add(m, p.created, value, all[:n]...)
}

// add collects a series of m into the part being built: pairs given in
// m's declared label order, sorted here into label-name order; createdMs
// (0 if unknown) is when a counter's series began.
func (p *appPairs) add(m *Metric, createdMs int64, value float64, pairs ...pairRef) {
	var sorted [maxLabels]pairRef
	for i, j := range m.order {
		sorted[i] = pairs[j]
	}
	if m.Type != sm.Counter {
		createdMs = 0
	}
	p.cols.Add(value, createdMs, sorted[:len(pairs)]...)
}

// constPairs are the pairs of a closed label's values (category="cpu",
// …), made once for every view.
type constPairs[V ~string] map[V]pairRef

func newConstPairs[V ~string](l sm.ClosedLabel[V]) constPairs[V] {
	c := constPairs[V]{}
	for _, v := range l.Values {
		c[v] = pairRef(len(constTable))
		constTable = append(constTable, labelPair(l.Name, string(v)))
	}
	return c
}

var (
	taskTimePairs  = newConstPairs(sm.TaskTimeCategory)
	ratioPairs     = newConstPairs(sm.IntervalCategory)
	mediumPairs    = newConstPairs(sm.SpillMedium)
	statusPairs    = newConstPairs(sm.TaskStatusLabel)
	jobStatusPairs = newConstPairs(sm.JobStatusLabel)
)
