package exporter

import (
	"fmt"
	"math"
	"slices"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/model"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// A part of thousands of gauge or counter series is cheaper kept in
// columns of numbers (label pairs as indices into a table of pairs,
// values, created times) than as one dto.Metric each: a dto.Metric with
// its Gauge or Counter is ~250 bytes of pointers, and building them for
// every application that changed was most of what a scrape of 100
// applications × 100 executors allocated; even a pointer per label costs
// a write barrier while the garbage collector marks, which is most of the
// time in a busy exporter. Both outputs are derived from the columns: the
// text straight from them (each label pair's text made once, when the
// pair is), the dto series for the registry path only when something
// gathers them.

// Pair is a label pair shared by the series that carry it (one
// application's app_id, one executor's executor_id): its dto form and its
// text are made once, by NewPair.
type Pair struct {
	name, value string
	text        string // name="value" as the text format writes it
	lp          dto.LabelPair
}

// NewPair returns the pair name=value, value made valid UTF-8 (LabelValue)
// so that every exposition path carries the same value.
func NewPair(name, value string) *Pair {
	p := &Pair{name: name, value: LabelValue(value)}
	p.lp.Name, p.lp.Value = &p.name, &p.value
	var space [128]byte // most pairs' text fits: one allocation, the string
	p.text = string(appendPair(space[:0], p.name, p.value))
	return p
}

// NewPairs returns the pairs name=value of each value (an application's
// executor ids, say), made together: a few allocations for all of them.
func NewPairs(name string, values ...string) []Pair {
	ps := make([]Pair, len(values))
	ends := make([]int, len(values))
	size := 0
	for _, v := range values {
		size += len(name) + len(v) + len(`=""`) // as long unless escaped or quoted
	}
	text := make([]byte, 0, size)
	for i, v := range values {
		ps[i].name, ps[i].value = name, LabelValue(v)
		text = appendPair(text, name, ps[i].value)
		ends[i] = len(text)
	}
	all := string(text) // one string; each pair's text is a piece of it
	start := 0
	for i := range ps {
		p := &ps[i]
		p.lp.Name, p.lp.Value = &p.name, &p.value
		p.text = all[start:ends[i]]
		start = ends[i]
	}
	return ps
}

// Name is the label name.
func (p *Pair) Name() string { return p.name }

// Value is the label value.
func (p *Pair) Value() string { return p.value }

// appendPair appends name="value" as expfmt writes a label pair.
func appendPair(b []byte, name, value string) []byte {
	b = appendName(b, name)
	b = append(b, `="`...)
	b = appendEscaped(b, value, true)
	return append(b, '"')
}

// Columns collects the series of one part of a gauge, counter or untyped
// family, all with the same number of labels. Labels are indices into
// Pairs, a table the collector fills and may share between the parts it
// builds one after another: a part keeps the table as it was when made,
// so the collector must only append to it. NewColumnsPart copies the
// series out, so one Columns (the zero value is empty) can collect part
// after part.
type Columns struct {
	Pairs []*Pair

	width   int // labels per series, as the first series has
	refs    []uint32
	values  []float64
	created []int64
	err     error
}

// Reset empties the series, keeping their storage and Pairs.
func (c *Columns) Reset() {
	c.refs, c.values, c.created = c.refs[:0], c.values[:0], c.created[:0]
	c.width, c.err = 0, nil
}

// Len is the number of series collected.
func (c *Columns) Len() int { return len(c.values) }

// Add collects a series: its label pairs (indices into Pairs) sorted by
// label name, its value and, for a counter, when it began in epoch
// milliseconds (0 or less if unknown; the OTLP push sends it as the start time,
// the text format leaves it out). A series with another number of labels
// than the first is left out, and the part made from c reports it, as it
// reports a pair not in Pairs (and then holds no series).
func (c *Columns) Add(value float64, createdMs int64, refs ...uint32) {
	if len(c.values) == 0 {
		c.width = len(refs)
	}
	if len(refs) != c.width {
		if c.err == nil {
			c.err = fmt.Errorf("a series with %d labels among series with %d", len(refs), c.width)
		}
		return
	}
	// Pairs missing from the table are found by NewColumnsPart, in one pass.
	c.refs = append(c.refs, refs...)
	c.values = append(c.values, value)
	c.created = append(c.created, createdMs)
}

// columns are a part's series: the label pairs every series carries first
// (app_id, app_name) once, the others per series.
type columns struct {
	pairs   []*Pair  // the collector's table as the part was made
	shared  []uint32 // the leading pairs of every series
	vary    int      // pairs per series after the shared ones
	refs    []uint32 // vary per series
	values  []float64
	created []int64 // epoch ms; nil if no series has one
	err     error   // a series was refused (Columns.Add)
}

// NewColumnsPart makes a part of the family name of type t (gauge, counter
// or untyped) from c's series, copied at their size. Like NewPart it sorts
// them as the registry does and drops a series repeating another's labels.
func NewColumnsPart(name string, t dto.MetricType, c *Columns) *Part {
	n := c.Len()
	both := &struct { // one allocation for the part and its columns
		Part
		columns
	}{}
	cols := &both.columns
	cols.err, cols.pairs = c.err, c.Pairs[:len(c.Pairs):len(c.Pairs)]
	for _, r := range c.refs {
		if int(r) >= len(c.Pairs) { // no series kept: none could be written or gathered
			cols.err, n = fmt.Errorf("label pair %d of %d", r, len(c.Pairs)), 0
			break
		}
	}
	switch t {
	case dto.MetricType_GAUGE, dto.MetricType_COUNTER, dto.MetricType_UNTYPED:
	default:
		cols.err, n = fmt.Errorf("series in columns of type %s", t), 0
	}
	p := &both.Part
	p.name, p.typ, p.cols = name, t, cols
	if n == 0 {
		return p
	}
	w := c.width
	series := func(i int) []uint32 { return c.refs[i*w : (i+1)*w] }
	// Collectors mostly add series in order already: one pass checks that
	// and finds the leading pairs every series shares (app_id, app_name).
	inOrder, shared := true, w
	first := series(0)
	for i := 1; i < n; i++ {
		cur := series(i)
		if inOrder && cols.compareRefs(series(i-1), cur) >= 0 {
			inOrder = false
		}
		for shared > 0 && !slices.Equal(cur[:shared], first[:shared]) {
			shared--
		}
	}
	var order []int // of the series, for those added out of order
	if !inOrder {
		order = make([]int, n)
		for i := range order {
			order[i] = i
		}
		cmp := func(a, b int) int { return cols.compareRefs(series(a), series(b)) }
		slices.SortStableFunc(order, cmp)
		order = slices.CompactFunc(order, func(a, b int) bool { return cmp(a, b) == 0 })
		n = len(order)
	}
	at := func(k int) int {
		if order == nil {
			return k
		}
		return order[k]
	}
	cols.shared = slices.Clone(first[:shared])
	cols.vary = w - shared
	cols.refs = make([]uint32, n*cols.vary)
	cols.values = make([]float64, n)
	hasCreated := false
	for k := range n {
		i := at(k)
		copy(cols.refs[k*cols.vary:], c.refs[i*w+shared:(i+1)*w])
		cols.values[k] = c.values[i]
		hasCreated = hasCreated || c.created[i] > 0
	}
	if hasCreated && t == dto.MetricType_COUNTER {
		cols.created = make([]int64, n)
		for k := range n {
			cols.created[k] = c.created[at(k)]
		}
	}
	return p
}

// compareRefs is compareSeries for two series of equally many labels.
func (c *columns) compareRefs(a, b []uint32) int {
	for i := range a {
		if a[i] == b[i] {
			continue
		}
		if c := strings.Compare(c.pairs[a[i]].value, c.pairs[b[i]].value); c != 0 {
			return c
		}
	}
	return 0
}

// len is the number of series.
func (c *columns) len() int { return len(c.values) }

// pair is the k-th label pair of series i.
func (c *columns) pair(i, k int) *Pair {
	if k < len(c.shared) {
		return c.pairs[c.shared[k]]
	}
	return c.pairs[c.refs[i*c.vary+k-len(c.shared)]]
}

// appendText appends the sample lines of the series as expfmt writes
// them: the name and the shared pairs' text once per line, each other
// pair's text as the pair made it, the value.
func (c *columns) appendText(b []byte, name string) []byte {
	b, _ = c.appendLines(b, name, 0, math.MaxInt)
	return b
}

// appendLines appends the lines of the series from the first on, at least
// one, while they fit in limit bytes of b as far as the longest line so
// far tells; it returns b and the series to go on from.
func (c *columns) appendLines(b []byte, name string, first, limit int) ([]byte, int) {
	// head is what every line starts with; open whether a brace is open.
	var headSpace [256]byte
	head := headSpace[:0]
	open := false
	if model.LegacyValidation.IsValidMetricName(name) {
		head = append(head, name...)
	} else {
		head = append(head, '{')
		head = appendName(head, name)
		open = true
	}
	for _, r := range c.shared {
		if open {
			head = append(head, ',')
		} else {
			head = append(head, '{')
			open = true
		}
		head = append(head, c.pairs[r].text...)
	}
	closeBrace := open || c.vary > 0
	longest := 0
	i := first
	for ; i < c.len() && (i == first || len(b)+longest <= limit); i++ {
		start := len(b)
		b = append(b, head...)
		for k, r := range c.refs[i*c.vary : (i+1)*c.vary] {
			if k == 0 && !open {
				b = append(b, '{')
			} else {
				b = append(b, ',')
			}
			b = append(b, c.pairs[r].text...)
		}
		if closeBrace {
			b = append(b, '}')
		}
		b = append(b, ' ')
		b = appendFloat(b, c.values[i])
		b = append(b, '\n')
		longest = max(longest, len(b)-start)
	}
	return b, i
}

// metrics builds the dto form of the series for the registry path, all
// from a few allocations; the label pairs are the table's, and each value
// points into the columns (they never change).
func (c *columns) metrics(t dto.MetricType) []*dto.Metric {
	n, w := c.len(), len(c.shared)+c.vary
	ms := make([]dto.Metric, n)
	out := make([]*dto.Metric, n)
	lps := make([]*dto.LabelPair, n*w)
	var gauges []dto.Gauge
	var counters []dto.Counter
	var untyped []dto.Untyped
	var created []timestamppb.Timestamp
	switch t {
	case dto.MetricType_GAUGE:
		gauges = make([]dto.Gauge, n)
	case dto.MetricType_COUNTER:
		counters = make([]dto.Counter, n)
		if c.created != nil {
			created = make([]timestamppb.Timestamp, n)
		}
	default:
		untyped = make([]dto.Untyped, n)
	}
	for i := range n {
		m := &ms[i]
		l := lps[i*w : (i+1)*w : (i+1)*w]
		for k := range l {
			l[k] = &c.pair(i, k).lp
		}
		m.Label = l
		switch {
		case gauges != nil:
			gauges[i].Value = &c.values[i]
			m.Gauge = &gauges[i]
		case counters != nil:
			counters[i].Value = &c.values[i]
			if created != nil && c.created[i] > 0 {
				at := c.created[i]
				created[i].Seconds, created[i].Nanos = at/1e3, int32(at%1e3)*1e6
				counters[i].CreatedTimestamp = &created[i]
			}
			m.Counter = &counters[i]
		default:
			untyped[i].Value = &c.values[i]
			m.Untyped = &untyped[i]
		}
		out[i] = m
	}
	return out
}
