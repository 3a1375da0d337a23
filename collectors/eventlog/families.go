package eventlog

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/sparkglance/sparkglance/exporter"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

var _ exporter.FamilyCollector = (*Watcher)(nil)

// Families is the view: it turns the published snapshots into metric
// families and does no I/O. Each application's series are built once per
// snapshot (views are immutable and replaced when the application
// changes), as one part per family, and the exporter derives both the
// registry path and the cached text from those parts. Of several attempts
// of one application id only the one that started last is exported, so
// that series stay unique.
func (w *Watcher) Families(ctx context.Context) ([]exporter.Family, error) {
	tracked := w.snapshot()
	views := latestAttempts(tracked)
	now := w.now()
	parts, err := partsOfAll(ctx, views)
	if err != nil {
		return nil, err
	}
	var out []exporter.Family
	for fi, f := range families {
		var ps []*exporter.Part
		if f.clock {
			var cols exporter.Columns
			for _, v := range views {
				p := appPairs{v: v, cols: &cols}
				p.id, p.name = p.pair("app_id", v.appID), p.pair("app_name", v.appName)
				f.emit(func(prometheus.Metric) {}, &p, now) // the clock's families are gauges, collected in cols
			}
			if cols.Len() > 0 {
				ps = []*exporter.Part{exporter.NewColumnsPart(f.m.Name, dtoType(f.m.Metric), &cols)}
			}
		} else {
			for _, vp := range parts {
				if p := vp[fi]; p != nil {
					ps = append(ps, p)
				}
			}
		}
		out = appendFamily(out, f.m.Metric, ps)
	}
	self := map[*prometheus.Desc][]*dto.Metric{}
	for _, m := range w.selfMetrics(tracked) {
		d := &dto.Metric{}
		if err := m.Write(d); err != nil {
			return nil, err
		}
		self[m.Desc()] = append(self[m.Desc()], d)
	}
	for _, def := range Metrics() { // those selfMetrics gave; the exporter sorts families by name
		if ms := self[def.Desc()]; len(ms) > 0 {
			out = appendFamily(out, def, []*exporter.Part{exporter.NewPart(def.Name, dtoType(def), ms)})
		}
	}
	wl, werr := w.workloads.families()
	out = append(out, wl...)
	return out, errors.Join(werr, w.dirsErr()) // the applications held are still served
}

// appendFamily adds the family of m made of parts, if any.
func appendFamily(out []exporter.Family, m *sm.Metric, parts []*exporter.Part) []exporter.Family {
	if len(parts) == 0 {
		return out
	}
	return append(out, exporter.Family{Name: m.Name, Help: m.Help, Type: dtoType(m), Parts: parts})
}

// partsOfAll returns every view's parts, building those of the views that
// changed since the last scrape on all cores.
func partsOfAll(ctx context.Context, views []*appView) ([][]*exporter.Part, error) {
	out := make([][]*exporter.Part, len(views))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(views)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(views) && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				views[i].scraped.Store(true)
				out[i] = views[i].partsOnce()
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// partsOnce builds v's series once, one part per family of [families]
// (nil where v has none, and for the clock's families); later scrapes
// reuse them.
func (v *appView) partsOnce() []*exporter.Part {
	v.partsDone.Do(func() {
		cols := columnsScratch.Get().(*exporter.Columns)
		p := newAppPairs(v, cols)
		var summaries []*dto.Metric
		collect := func(m prometheus.Metric) {
			d := &dto.Metric{}
			if err := m.Write(d); err == nil {
				summaries = append(summaries, d)
			}
		}
		v.parts = make([]*exporter.Part, len(families))
		for i, f := range families {
			if f.clock {
				continue
			}
			cols.Reset()
			summaries = nil
			f.emit(collect, &p, time.Time{})
			switch {
			case cols.Len() > 0:
				v.parts[i] = exporter.NewColumnsPart(f.m.Name, dtoType(f.m.Metric), cols)
			case len(summaries) > 0:
				v.parts[i] = exporter.NewPart(f.m.Name, dtoType(f.m.Metric), summaries)
			}
		}
		cols.Reset()
		cols.Pairs = nil // the view's parts hold the table
		columnsScratch.Put(cols)
	})
	return v.parts
}

// encode builds v's parts and their text now, so that a scrape finds
// them ready and only copies bytes: called by the application's goroutine
// as it publishes v (trackedApp.store), for the cache's sake too (the
// view's data was just touched there).
func (v *appView) encode() {
	for _, p := range v.partsOnce() {
		if p != nil {
			_, _ = p.Text() // an error is met again, and logged, by the scrape
		}
	}
}

// columnsScratch collects a family's series while they are emitted, so
// that its columns grow once per goroutine, not once per part.
var columnsScratch = sync.Pool{New: func() any { return &exporter.Columns{} }}

func dtoType(m *sm.Metric) dto.MetricType {
	switch m.Type {
	case sm.Counter:
		return dto.MetricType_COUNTER
	case sm.Summary:
		return dto.MetricType_SUMMARY
	}
	return dto.MetricType_GAUGE
}
