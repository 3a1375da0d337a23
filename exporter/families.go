package exporter

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// FamilyCollector is a collector that hands over whole metric families
// built from an immutable snapshot, instead of sending const metrics. That
// one value serves every path: the registry path (any format, OTLP) gathers
// its series, and the text path writes the text each part encoded from
// those same series, once per part. A scrape of thousands of executors then
// mostly copies cached text.
type FamilyCollector interface {
	// Families returns the collector's non-empty families for this scrape.
	// It must stop early once ctx is done.
	Families(ctx context.Context) ([]Family, error)
}

// Family is one metric family of a FamilyCollector, in parts (one per
// application, say), whose series the registry sorts as it sorts any
// family's; a collector whose parts follow that order (see [Part]) gets its
// cached text written as it is.
type Family struct {
	Name  string
	Help  string
	Type  dto.MetricType
	Parts []*Part
}

// Part is an immutable piece of a family: its series, sorted as the
// registry sorts them with repeated label sets dropped, and their text
// encoding, made from those series and kept once a second scrape needs it
// or the collector asks for it (Text): an unchanged part then costs a copy.
// The series are dto metrics (NewPart) or columns (NewColumnsPart), whose
// dto form is built from them when the registry path first gathers them.
type Part struct {
	name    string
	typ     dto.MetricType
	metrics []*dto.Metric // given, or built from cols by Metrics
	cols    *columns      // nil unless made by NewColumnsPart

	metricsOnce sync.Once
	once        sync.Once
	text        []byte
	err         error
	encoded     atomic.Bool // once has run
	written     atomic.Bool // a scrape wrote the text without keeping it

	omOnce sync.Once
	omText []byte // the series' OpenMetrics sample lines
	omErr  error
}

// NewPart makes a part of the family name of type t from ms, which it sorts
// and owns from now on; a series repeating another's labels is dropped, as
// the registry would refuse it.
func NewPart(name string, t dto.MetricType, ms []*dto.Metric) *Part {
	// Collectors mostly build series in order already: one pass to check.
	if !strictlyIncreasing(ms) {
		slices.SortStableFunc(ms, compareSeries)
		ms = slices.CompactFunc(ms, func(a, b *dto.Metric) bool { return compareSeries(a, b) == 0 })
	}
	return &Part{name: name, typ: t, metrics: ms}
}

// strictlyIncreasing reports whether ms is sorted with no label set twice.
func strictlyIncreasing(ms []*dto.Metric) bool {
	for i := 1; i < len(ms); i++ {
		if compareSeries(ms[i-1], ms[i]) >= 0 {
			return false
		}
	}
	return true
}

// Len is the number of series.
func (p *Part) Len() int {
	if p.cols != nil {
		return p.cols.len()
	}
	return len(p.metrics)
}

// Metrics returns the part's series; callers must not modify them.
func (p *Part) Metrics() []*dto.Metric {
	if p.cols != nil {
		p.metricsOnce.Do(func() { p.metrics = p.cols.metrics(p.typ) })
	}
	return p.metrics
}

// Text returns the series' sample lines in the text format (no HELP or
// TYPE line), encoded once and kept.
func (p *Part) Text() ([]byte, error) {
	p.once.Do(func() {
		if p.Len() == 0 && (p.cols == nil || p.cols.err == nil) {
			p.encoded.Store(true)
			return
		}
		scratch := scratchBuffers.Get().(*[]byte)
		b, err := p.appendText((*scratch)[:0])
		if err != nil {
			p.err = err
		} else {
			// Kept at its size: a snapshot holds thousands of parts.
			p.text = slices.Clone(b)
		}
		if cap(b) <= maxScratch {
			*scratch = b
			scratchBuffers.Put(scratch)
		}
		p.encoded.Store(true)
	})
	return p.text, p.err
}

// openMetricsText returns the series' sample lines in OpenMetrics (no
// HELP, TYPE or # EOF line), encoded by expfmt once and kept.
func (p *Part) openMetricsText() ([]byte, error) {
	p.omOnce.Do(func() {
		if p.cols != nil && p.cols.err != nil {
			p.omErr = fmt.Errorf("%s: %w", p.name, p.cols.err)
			return
		}
		// A part in columns builds its dto series for this only, without
		// keeping them (they are the registry path's).
		ms := p.metrics
		if p.cols != nil {
			ms = p.cols.metrics(p.typ)
		}
		if len(ms) == 0 {
			return
		}
		var b bytes.Buffer
		if _, err := expfmt.MetricFamilyToOpenMetrics(&b, &dto.MetricFamily{Name: &p.name, Type: p.typ.Enum(), Metric: ms}); err != nil {
			p.omErr = fmt.Errorf("%s: %w", p.name, err)
			return
		}
		// Without HELP, expfmt's first line is the TYPE line.
		_, samples, _ := bytes.Cut(b.Bytes(), []byte{'\n'})
		p.omText = slices.Clone(samples)
	})
	return p.omText, p.omErr
}

// writeOpenMetrics writes the part's sample lines in OpenMetrics. The
// lines of a counter, gauge or untyped part without timestamps differ from
// the text format's only in integral values, which OpenMetrics writes with
// ".0" (1.0, 42.0; expfmt's float format otherwise): they are written from
// the part's kept text with that added, a pass over bytes. Other parts are
// encoded by expfmt once (openMetricsText).
func (p *Part) writeOpenMetrics(w *bufio.Writer) error {
	if !p.valueLinesOnly() {
		text, err := p.openMetricsText()
		if err != nil {
			return err
		}
		_, err = w.Write(text)
		return err
	}
	text, err := p.Text()
	if err != nil {
		return err
	}
	for len(text) > 0 {
		line, rest, _ := bytes.Cut(text, []byte{'\n'})
		text = rest
		if _, err := w.Write(line); err != nil {
			return err
		}
		if integral(line[bytes.LastIndexByte(line, ' ')+1:]) {
			if _, err := w.WriteString(".0"); err != nil {
				return err
			}
		}
		if err := w.WriteByte('\n'); err != nil {
			return err
		}
	}
	return nil
}

// openMetricsErr is the error writeOpenMetrics meets, if any.
func (p *Part) openMetricsErr() error {
	if p.valueLinesOnly() {
		return p.encodingErr()
	}
	_, err := p.openMetricsText()
	return err
}

// valueLinesOnly reports whether the part's lines are name, labels and
// value only: counters, gauges and untyped series without timestamps.
func (p *Part) valueLinesOnly() bool {
	switch p.typ {
	case dto.MetricType_COUNTER, dto.MetricType_GAUGE, dto.MetricType_UNTYPED:
	default:
		return false
	}
	if p.cols != nil {
		return true // columns hold no timestamps
	}
	for _, m := range p.metrics {
		if m.TimestampMs != nil {
			return false
		}
	}
	return true
}

// integral reports whether a text-format value is written without a
// fraction or exponent, which OpenMetrics adds ".0" to.
func integral(v []byte) bool {
	switch string(v) {
	case "NaN", "+Inf", "-Inf":
		return false
	}
	return len(v) > 0 && !bytes.ContainsAny(v, ".e")
}

// appendText appends the sample lines, encoded now.
func (p *Part) appendText(b []byte) ([]byte, error) {
	if p.cols == nil {
		b, err := appendSamples(b, p.name, p.typ, p.metrics)
		if err != nil {
			return b, fmt.Errorf("%s: %w", p.name, err)
		}
		return b, nil
	}
	if p.cols.err != nil {
		return b, fmt.Errorf("%s: %w", p.name, p.cols.err)
	}
	return p.cols.appendText(b, p.name), nil
}

// writeForScrape writes the part's text for a scrape: the kept text if
// there is one. A part in columns is otherwise encoded straight into w's
// buffer the first time and not kept: a live application mostly publishes
// a new snapshot before the next scrape, which would make keeping its text
// a copy of megabytes for nothing; a part a second scrape meets is encoded
// and kept.
func (p *Part) writeForScrape(w *bufio.Writer) error {
	if p.cols == nil || p.encoded.Load() || p.written.Swap(true) {
		text, err := p.Text()
		if err != nil {
			return err
		}
		_, err = w.Write(text)
		return err
	}
	if p.cols.err != nil {
		return fmt.Errorf("%s: %w", p.name, p.cols.err)
	}
	for i := 0; i < p.cols.len(); {
		if w.Available() < minLinesChunk {
			if err := w.Flush(); err != nil {
				return err
			}
		}
		var b []byte
		b, i = p.cols.appendLines(w.AvailableBuffer(), p.name, i, w.Available())
		if _, err := w.Write(b); err != nil { // b is w's own buffer, unless a line outgrew it
			return err
		}
	}
	return nil
}

// minLinesChunk is the least room in the writer's buffer worth encoding
// lines into before flushing it.
const minLinesChunk = 4 << 10

// encodingErr is the error encoding the part meets, if any: known from
// the columns, or met encoding the dto series (whose text is then kept).
func (p *Part) encodingErr() error {
	if p.cols != nil {
		if p.cols.err != nil {
			return fmt.Errorf("%s: %w", p.name, p.cols.err)
		}
		return nil
	}
	_, err := p.Text()
	return err
}

// Encoded reports whether the text is made already: a collector that
// encodes its parts before the scrape asks can check that it did.
func (p *Part) Encoded() bool { return p.encoded.Load() }

// labelCount is the number of labels of series i.
func (p *Part) labelCount(i int) int {
	if p.cols != nil {
		return len(p.cols.shared) + p.cols.vary
	}
	return len(p.metrics[i].Label)
}

// labelValue is the value of the k-th label of series i.
func (p *Part) labelValue(i, k int) string {
	if p.cols != nil {
		return p.cols.pair(i, k).value
	}
	return p.metrics[i].Label[k].GetValue()
}

// compareAcross is compareSeries for series i of p and series j of q.
func compareAcross(p *Part, i int, q *Part, j int) int {
	if n, m := p.labelCount(i), q.labelCount(j); n != m {
		return n - m
	}
	for k := range p.labelCount(i) {
		if c := strings.Compare(p.labelValue(i, k), q.labelValue(j, k)); c != 0 {
			return c
		}
	}
	return 0
}

// scratchBuffers hold the text of a part while it is encoded, so that its
// growth is paid once per encoding goroutine rather than once per part.
var scratchBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// maxScratch bounds a scratch buffer kept for reuse.
const maxScratch = 4 << 20

// metricFamily is f for the registry's world: every part's series.
func (f *Family) metricFamily() *dto.MetricFamily {
	n := 0
	for _, p := range f.Parts {
		n += p.Len()
	}
	ms := make([]*dto.Metric, 0, n)
	for _, p := range f.Parts {
		ms = append(ms, p.Metrics()...)
	}
	return &dto.MetricFamily{Name: &f.Name, Help: &f.Help, Type: f.Type.Enum(), Metric: ms}
}

// sorted reports whether the parts' series, in part order, are in the
// registry's order, so that their texts can be written one after another.
func (f *Family) sorted() bool {
	var last *Part
	for _, p := range f.Parts {
		if p.Len() == 0 {
			continue
		}
		if last != nil && compareAcross(last, last.Len()-1, p, 0) >= 0 {
			return false
		}
		last = p
	}
	return true
}

// familiesGatherer serves families through the registry path: client_golang
// checks and merges them with the other gatherers' (prometheus.Gatherers).
func familiesGatherer(fs []Family) prometheus.Gatherer {
	return prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		out := make([]*dto.MetricFamily, 0, len(fs))
		for i := range fs {
			out = append(out, fs[i].metricFamily())
		}
		return out, nil
	})
}

// GatherFamilies is the registry path for fs alone: their series checked,
// merged and sorted by client_golang, as a scrape in a format other than
// text serves them.
func GatherFamilies(fs []Family) ([]*dto.MetricFamily, error) {
	return prometheus.Gatherers{familiesGatherer(fs)}.Gather()
}

// gathered is one scrape for the text path: the registry's families and the
// FamilyCollectors' families written from their parts' text, each sorted by
// name, no name in both.
type gathered struct {
	regular []*dto.MetricFamily
	ready   []Family
}

// separate keeps ready the families only one FamilyCollector returned, whose
// parts are in order, and no other collector emits; the others are merged
// into regular by client_golang (prometheus.Gatherers), as the registry
// path would merge them.
func separate(regular []*dto.MetricFamily, ready []Family) (gathered, error) {
	slices.SortStableFunc(ready, func(a, b Family) int { return strings.Compare(a.Name, b.Name) })
	inRegular := make(map[string]bool, len(regular))
	for _, mf := range regular {
		inRegular[mf.GetName()] = true
	}
	var g gathered
	var merge []Family
	for i := range ready {
		f := ready[i]
		dup := (i > 0 && ready[i-1].Name == f.Name) || (i+1 < len(ready) && ready[i+1].Name == f.Name)
		if inRegular[f.Name] || dup || !f.sorted() {
			merge = append(merge, f)
			continue
		}
		g.ready = append(g.ready, f)
	}
	if len(merge) == 0 {
		g.regular = regular
		return g, nil
	}
	mfs, err := prometheus.Gatherers{
		prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) { return regular, nil }),
		familiesGatherer(merge),
	}.Gather()
	g.regular = mfs
	return g, err
}

// compareSeries is the registry's order of the series of a family: by
// label count, then label values in label-name order (collectors here set
// no timestamps, the registry's last criterion).
func compareSeries(a, b *dto.Metric) int {
	if len(a.Label) != len(b.Label) {
		return len(a.Label) - len(b.Label)
	}
	for i, lp := range a.Label {
		if lp == b.Label[i] { // a pair shared between series
			continue
		}
		if c := strings.Compare(lp.GetValue(), b.Label[i].GetValue()); c != 0 {
			return c
		}
	}
	return 0
}
