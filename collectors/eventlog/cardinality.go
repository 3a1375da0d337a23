package eventlog

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// Cardinality controls: an application with 1,000 executors would export
// some 20,000 per-executor series. --eventlog.executor-metrics chooses
// between those series, a fixed set of per-application summaries across
// executors, or nothing per executor; --eventlog.max-executors-per-app
// keeps the busiest executors and sums the rest as executor_id="other".
// docs/scaling.md gives the series budget of each setting.

// The values of --eventlog.executor-metrics.
const (
	ExecutorMetricsAll     = "all"
	ExecutorMetricsSummary = "summary"
	ExecutorMetricsNone    = "none"
)

// otherExecutor labels the executors summed beyond --eventlog.max-executors-per-app.
const otherExecutor = "other"

func (c Config) validateCardinality() error {
	switch c.ExecutorMetrics {
	case ExecutorMetricsAll, ExecutorMetricsSummary, ExecutorMetricsNone:
	default:
		return fmt.Errorf("--eventlog.executor-metrics %q must be all, summary or none", c.ExecutorMetrics)
	}
	if c.MaxExecutorsPerApp < 0 {
		return fmt.Errorf("--eventlog.max-executors-per-app %d must not be negative (0: no limit)", c.MaxExecutorsPerApp)
	}
	return nil
}

// The families of --eventlog.executor-metrics=summary.
var (
	appExecTaskTime     = of(sm.AppExecutorTaskTime)
	appExecSpill        = of(sm.AppExecutorSpillBytes)
	appExecShuffleRead  = of(sm.AppExecutorShuffleReadBytes)
	appExecShuffleWrite = of(sm.AppExecutorShuffleWriteBytes)
	appExecInput        = of(sm.AppExecutorInputBytes)
	appExecOutput       = of(sm.AppExecutorOutputBytes)
)

// summaryQuantiles are the quantiles of the executor summaries: the median,
// the 0.9 quantile and the busiest executor (1).
var summaryQuantiles = []float64{0.5, 0.9, 1}

// execSummary is one quantity summarised across an application's executors.
type execSummary struct {
	count     uint64
	sum       float64
	quantiles map[float64]float64
}

// execSummaries are the summaries of one application, by family.
type execSummaries struct {
	taskTime                  [len(taskTimeCategories)]execSummary
	diskSpill, memSpill       execSummary
	shuffleRead, shuffleWrite execSummary
	input, output             execSummary
}

func summarise(execs []execView, value func(*execTotals) float64) execSummary {
	xs := make([]float64, len(execs))
	for i := range execs {
		xs[i] = value(&execs[i].totals)
	}
	s := execSummary{count: uint64(len(xs)), sum: sum(xs), quantiles: map[float64]float64{}}
	if len(xs) == 0 {
		return s
	}
	slices.Sort(xs)
	for _, q := range summaryQuantiles {
		s.quantiles[q] = xs[min(int(q*float64(len(xs))), len(xs)-1)]
	}
	return s
}

func summariesOf(execs []execView) *execSummaries {
	s := &execSummaries{}
	for c := range taskTimeCategories {
		s.taskTime[c] = summarise(execs, func(t *execTotals) float64 { return t.Time[c] })
	}
	s.diskSpill = summarise(execs, func(t *execTotals) float64 { return t.DiskSpill })
	s.memSpill = summarise(execs, func(t *execTotals) float64 { return t.MemorySpill })
	s.shuffleRead = summarise(execs, func(t *execTotals) float64 { return t.ShuffleRead })
	s.shuffleWrite = summarise(execs, func(t *execTotals) float64 { return t.ShuffleWrite })
	s.input = summarise(execs, func(t *execTotals) float64 { return t.Input })
	s.output = summarise(execs, func(t *execTotals) float64 { return t.Output })
	return s
}

// executorSummaryFamilies emit the summaries of a view that has them.
var executorSummaryFamilies = []family{
	{m: appExecTaskTime, emit: func(ch sink, p *appPairs, _ time.Time) {
		if s := p.v.execSummary; s != nil {
			for _, c := range sm.TaskTimeCategory.Values {
				sendSummary(ch, appExecTaskTime, p, &s.taskTime[taskTimeIndex[c]], string(c))
			}
		}
	}},
	{m: appExecSpill, emit: func(ch sink, p *appPairs, _ time.Time) {
		if s := p.v.execSummary; s != nil {
			sendSummary(ch, appExecSpill, p, &s.diskSpill, string(sm.MediumDisk))
			sendSummary(ch, appExecSpill, p, &s.memSpill, string(sm.MediumMemory))
		}
	}},
	summaryFamily(appExecShuffleRead, func(s *execSummaries) *execSummary { return &s.shuffleRead }),
	summaryFamily(appExecShuffleWrite, func(s *execSummaries) *execSummary { return &s.shuffleWrite }),
	summaryFamily(appExecInput, func(s *execSummaries) *execSummary { return &s.input }),
	summaryFamily(appExecOutput, func(s *execSummaries) *execSummary { return &s.output }),
}

func summaryFamily(m *Metric, pick func(*execSummaries) *execSummary) family {
	return family{m: m, emit: func(ch sink, p *appPairs, _ time.Time) {
		if s := p.v.execSummary; s != nil {
			sendSummary(ch, m, p, pick(s))
		}
	}}
}

func sendSummary(ch sink, m *Metric, p *appPairs, s *execSummary, extra ...string) {
	labels := append([]string{p.value(p.id), p.value(p.name)}, extra...)
	ch(prometheus.MustNewConstSummary(m.Desc(), s.count, s.sum, s.quantiles, labels...))
}

// executorShaper applies the cardinality settings to one application's
// views. The executors named under --eventlog.max-executors-per-app stay
// named for the application's life: "other" then only ever grows, a true
// counter, and no named executor's series starts late.
type executorShaper struct {
	named map[string]bool
}

// shape returns the view to export for v under mode and limit; v itself
// when nothing changes. v is not modified (the caller keeps it as the
// previous view, with every executor).
func (s *executorShaper) shape(v *appView, mode string, limit int) *appView {
	switch {
	case mode == ExecutorMetricsNone:
		return v.withExecutors(nil, nil, nil, nil)
	case mode == ExecutorMetricsSummary:
		return v.withExecutors(nil, summariesOf(v.executors), nil, nil)
	case limit <= 0 || len(v.executors) <= limit && len(s.named) == 0:
		return v
	}
	s.name(v.executors, limit)
	var kept []execView
	other := execView{id: otherExecutor}
	merged := false
	for _, e := range v.executors {
		if s.named[e.id] {
			kept = append(kept, e)
			continue
		}
		merged = true
		other.live = other.live || e.live
		other.cores += e.cores
		other.activeTasks += e.activeTasks
		other.totals.Add(&e.totals)
	}
	if !merged {
		return v
	}
	kept = append(kept, other)
	slices.SortFunc(kept, func(a, b execView) int { return strings.Compare(a.id, b.id) })
	var iv *intervalView
	if v.interval != nil {
		c := *v.interval
		c.spill = s.mergeSpill(v.interval.spill)
		iv = &c
	}
	return v.withExecutors(kept, nil, iv, s.mergeSpill(v.settled.spill))
}

// name adds the busiest executors not named yet (by run time, then id)
// until limit are named.
func (s *executorShaper) name(execs []execView, limit int) {
	if s.named == nil {
		s.named = map[string]bool{}
	}
	if len(s.named) >= limit {
		return
	}
	run := taskTimeIndex[sm.CategoryRun]
	cands := slices.Clone(execs)
	slices.SortFunc(cands, func(a, b execView) int {
		if c := cmp.Compare(b.totals.Time[run], a.totals.Time[run]); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	for _, e := range cands {
		if len(s.named) >= limit {
			break
		}
		if e.id != otherExecutor {
			s.named[e.id] = true
		}
	}
}

// mergeSpill sums the spill of the executors not named into "other".
func (s *executorShaper) mergeSpill(in map[string][2]float64) map[string][2]float64 {
	if in == nil {
		return nil
	}
	out := make(map[string][2]float64, len(s.named)+1)
	for id, v := range in {
		if !s.named[id] {
			id = otherExecutor
		}
		o := out[id]
		out[id] = [2]float64{o[0] + v[0], o[1] + v[1]}
	}
	return out
}

// withExecutors is a copy of v with other executors, summaries, interval
// and settled spill (the interval kept when iv is nil and v has one with
// its per-executor spill dropped).
func (v *appView) withExecutors(execs []execView, summaries *execSummaries, iv *intervalView, settledSpill map[string][2]float64) *appView {
	if iv == nil && v.interval != nil {
		c := *v.interval
		c.spill = nil
		iv = &c
	}
	settled := v.settled
	settled.spill = settledSpill
	c := &appView{viewData: v.viewData}
	c.interval, c.settled = iv, settled
	c.executors, c.execSummary = execs, summaries
	return c
}
