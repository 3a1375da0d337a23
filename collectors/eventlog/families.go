package eventlog

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/sparkglance/sparkglance/exporter"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

var _ exporter.FamilyCollector = (*Watcher)(nil)

// Families is Update for the exporter's text fast path: the series of each
// application's view are encoded once per view (views are immutable and
// replaced when the application changes), so a scrape mostly copies text.
func (w *Watcher) Families(ctx context.Context) ([]exporter.Family, error) {
	tracked := w.snapshot()
	views := latestAttempts(tracked)
	now := time.Now()
	texts, err := renderAll(ctx, views)
	if err != nil {
		return nil, err
	}
	var out []exporter.Family
	for fi, f := range families {
		if f.clock {
			var ms []*dto.Metric
			for _, v := range views {
				p := appPairs{v: v, id: labelPair("app_id", v.appID), name: labelPair("app_name", v.appName)}
				ms = append(ms, seriesOf(f, &p, now)...)
			}
			out = appendFamily(out, f.m, ms)
			continue
		}
		var chunks [][]byte
		for _, t := range texts {
			if c := t.family(fi); len(c) > 0 {
				chunks = append(chunks, c)
			}
		}
		if len(chunks) == 0 {
			continue
		}
		out = append(out, exporter.Family{Name: f.m.Name, Help: f.m.Help, Type: dtoType(f.m), Text: chunks,
			Metrics: func() []*dto.Metric {
				var all []*dto.Metric
				for _, v := range views {
					p := newAppPairs(v)
					all = append(all, seriesOf(f, &p, now)...)
				}
				return all
			}})
	}
	self := map[*Metric][]*dto.Metric{}
	for _, m := range w.selfMetrics(tracked) {
		d := &dto.Metric{}
		if err := m.Write(d); err != nil {
			return nil, err
		}
		def := selfByDesc[m.Desc()]
		self[def] = append(self[def], d)
	}
	for _, def := range []*Metric{selfApps, selfBytes, selfEvents, selfErrors, selfSkipped} {
		ms := self[def]
		slices.SortStableFunc(ms, exporter.CompareSeries)
		out = appendFamily(out, def, ms)
	}
	return out, w.dirsErr() // the applications held are still served
}

var selfByDesc = map[*prometheus.Desc]*Metric{
	selfApps.Desc(): selfApps, selfBytes.Desc(): selfBytes, selfEvents.Desc(): selfEvents, selfErrors.Desc(): selfErrors,
	selfSkipped.Desc(): selfSkipped,
}

// appendFamily encodes ms, if any, as a family of m.
func appendFamily(out []exporter.Family, m *Metric, ms []*dto.Metric) []exporter.Family {
	if len(ms) == 0 {
		return out
	}
	var buf bytes.Buffer
	if err := encodeSamples(&buf, m, ms); err != nil {
		panic(err) // series built here from valid names and values
	}
	return append(out, exporter.Family{Name: m.Name, Help: m.Help, Type: dtoType(m),
		Text: [][]byte{buf.Bytes()}, Metrics: func() []*dto.Metric { return ms }})
}

// renderAll returns every view's text, encoding the views that changed
// since the last scrape on all cores: after a quiet spell every live
// application has a new view, and encoding them one by one would double a
// big scrape's time.
func renderAll(ctx context.Context, views []*appView) ([]*renderedView, error) {
	texts := make([]*renderedView, len(views))
	next := atomic.Int64{}
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(views)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(views) && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				texts[i] = views[i].rendered()
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return texts, nil
}

// renderedView is one view's non-clock families in the text format.
type renderedView struct {
	text []byte
	offs []int // family i is text[offs[i]:offs[i+1]]
}

func (r *renderedView) family(i int) []byte { return r.text[r.offs[i]:r.offs[i+1]] }

// rendered encodes v's series once; later scrapes reuse the text.
func (v *appView) rendered() *renderedView {
	v.renderOnce.Do(func() {
		p := newAppPairs(v)
		var buf bytes.Buffer
		buf.Grow(4096 + 3400*len(v.executors)) // ~what 100 executors take, to avoid regrowing
		offs := make([]int, len(families)+1)
		for i, f := range families {
			offs[i] = buf.Len()
			if f.clock {
				continue
			}
			writeFamilyText(&buf, f, &p)
		}
		offs[len(families)] = buf.Len()
		v.text = &renderedView{text: buf.Bytes(), offs: offs}
	})
	return v.text
}

// writeFamilyText appends one application's sample lines of f. Plain
// gauges and counters (all but the SQL duration summary) are written
// directly from their shared label pairs, which is what keeps re-encoding a
// changed application cheap; anything else goes through expfmt.
func writeFamilyText(buf *bytes.Buffer, f family, p *appPairs) {
	var plain []*sample
	var other []prometheus.Metric
	f.emit(func(m prometheus.Metric) {
		if s, ok := m.(*sample); ok {
			plain = append(plain, s)
		} else {
			other = append(other, m)
		}
	}, p, time.Time{})
	if len(other) > 0 || len(plain) == 0 {
		if ms := seriesOf(f, p, time.Time{}); len(ms) > 0 {
			if err := encodeSamples(buf, f.m, ms); err != nil {
				// Only a series with an invalid name or label could fail,
				// and every one is built from the metric table; keep the
				// family out rather than break the scrape.
				return
			}
		}
		return
	}
	slices.SortStableFunc(plain, compareSamples)
	plain = slices.CompactFunc(plain, func(a, b *sample) bool { return compareSamples(a, b) == 0 })
	var num []byte
	for _, s := range plain {
		buf.WriteString(s.m.Name)
		if len(s.labels) > 0 {
			buf.WriteByte('{')
			for i, lp := range s.labels {
				if i > 0 {
					buf.WriteByte(',')
				}
				buf.WriteString(lp.GetName())
				buf.WriteString(`="`)
				writeEscapedLabelValue(buf, lp.GetValue())
				buf.WriteByte('"')
			}
			buf.WriteByte('}')
		}
		buf.WriteByte(' ')
		num = appendSampleValue(num[:0], s.value)
		buf.Write(num)
		buf.WriteByte('\n')
	}
}

// compareSamples is exporter.CompareSeries for samples: label count, then
// label values in label-name order.
func compareSamples(a, b *sample) int {
	if len(a.labels) != len(b.labels) {
		return len(a.labels) - len(b.labels)
	}
	for i, lp := range a.labels {
		if c := strings.Compare(lp.GetValue(), b.labels[i].GetValue()); c != 0 {
			return c
		}
	}
	return 0
}

// writeEscapedLabelValue escapes as the text format requires: backslash,
// double quote and line feed.
func writeEscapedLabelValue(buf *bytes.Buffer, v string) {
	if !strings.ContainsAny(v, "\\\"\n") {
		buf.WriteString(v)
		return
	}
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '\\':
			buf.WriteString(`\\`)
		case '"':
			buf.WriteString(`\"`)
		case '\n':
			buf.WriteString(`\n`)
		default:
			buf.WriteByte(c)
		}
	}
}

// appendSampleValue formats a value as expfmt does.
func appendSampleValue(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(b, "NaN"...)
	case math.IsInf(v, +1):
		return append(b, "+Inf"...)
	case math.IsInf(v, -1):
		return append(b, "-Inf"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// seriesOf is one application's series of f, sorted as the registry sorts
// them; a repeated label set keeps its first series, as the registry
// would refuse the second.
func seriesOf(f family, p *appPairs, now time.Time) []*dto.Metric {
	var ms []*dto.Metric
	f.emit(func(m prometheus.Metric) {
		d := &dto.Metric{}
		if err := m.Write(d); err == nil {
			ms = append(ms, d)
		}
	}, p, now)
	slices.SortStableFunc(ms, exporter.CompareSeries)
	return slices.CompactFunc(ms, func(a, b *dto.Metric) bool { return exporter.CompareSeries(a, b) == 0 })
}

// encodeSamples appends ms' sample lines in the text format, without the
// HELP and TYPE lines, which the exporter writes once per family.
func encodeSamples(buf *bytes.Buffer, m *Metric, ms []*dto.Metric) error {
	var one bytes.Buffer
	if _, err := expfmt.MetricFamilyToText(&one, &dto.MetricFamily{Name: &m.Name, Type: dtoType(m).Enum(), Metric: ms}); err != nil {
		return fmt.Errorf("%s: %w", m.Name, err)
	}
	// Without Help, the first line is the TYPE line.
	header, samples, ok := bytes.Cut(one.Bytes(), []byte("\n"))
	if !ok || !bytes.HasPrefix(header, []byte("# TYPE ")) {
		return fmt.Errorf("%s: unexpected text encoding %q", m.Name, header)
	}
	buf.Write(samples)
	return nil
}

func dtoType(m *Metric) dto.MetricType {
	switch m.Type {
	case sm.Counter:
		return dto.MetricType_COUNTER
	case sm.Summary:
		return dto.MetricType_SUMMARY
	}
	return dto.MetricType_GAUGE
}
