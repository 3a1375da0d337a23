package eventlog

import (
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/internal/analysis"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
	"github.com/sparkglance/sparkglance/internal/workload"
)

// summarizeEvery bounds how often a live run's summary is taken again: the
// workload pages judge a running run as it grows, and a summary is cheap,
// but not worth taking at every view.
const summarizeEvery = 5 * time.Second

// workloads is the collector's history of recurring workloads: one small
// summary per application attempt (never its analysis), fed as each log is
// published, and the spark_workload_* series made from it.
type workloads struct {
	hist  *workload.History
	since time.Time // the dropped counter's created time (and the runs' of a workload without a start)

	mu sync.Mutex
	// holding is true until the first catch-up is done (caughtUp says when):
	// the logs found at start are read in parallel, in no set order, and a
	// run is counted by how it compares with the runs that started before
	// it, so the runs met then are counted once they are all in, in the
	// order they started, and the counts do not depend on the reading order.
	holding  bool
	caughtUp func() bool
	// counted are the finished runs already in spark_workload_runs_total,
	// per workload; pruned to the runs the history keeps.
	counted map[string]map[string]bool
	runs    map[string]map[string]float64 // workload → status → finished runs
	// first is the earliest start (epoch ms) of a run kept, per workload:
	// its runs counter's created timestamp. Taken from the logs, it is the
	// same after a restart that reads them again, so a Prometheus that
	// uses created timestamps sees no reset there (the exporter's start
	// would be one, and increase() would count every run again).
	first map[string]int64
	gen   uint64 // changes of the history
	// dropped counts the runs (application attempts, each once) whose
	// workload would have exceeded --workload.max-workloads.
	dropped float64
	cached  []exporter.Family
	cacheAt uint64
}

// newWorkloads makes the history; caughtUp reports whether the logs found
// at start were all read once (nil: count each run as it is seen).
func newWorkloads(o workload.HistoryOptions, caughtUp func() bool) *workloads {
	return &workloads{
		hist: workload.NewHistory(o), since: time.Now(),
		holding: caughtUp != nil, caughtUp: caughtUp,
		counted: map[string]map[string]bool{}, runs: map[string]map[string]float64{}, first: map[string]int64{},
	}
}

// workloadOptions is the history's configuration from the collector's.
func (c Config) workloadOptions() workload.HistoryOptions {
	return workload.HistoryOptions{
		Options:      workload.Options{BaselineRuns: c.Workload.BaselineRuns, Thresholds: c.Analysis.Thresholds},
		MaxWorkloads: c.MaxWorkloads,
	}
}

// declareWorkloadFlags declares the flags of the history of workloads.
func declareWorkloadFlags(g exporter.FlagGroup, c *Config) {
	g.Flag("workload.max-workloads", "Most recurring workloads followed (their runs' summaries, the /workloads pages and the spark_workload_* series); runs of further workloads are counted in sparkglance_workload_dropped_total.").
		Default(fmt.Sprint(DefaultConfig().MaxWorkloads)).IntVar(&c.MaxWorkloads)
}

// History is the collector's history of recurring workloads (the
// /workloads pages read it).
func (w *Watcher) History() *workload.History { return w.workloads.hist }

// observe adds the run of r (a deep copy) to the history: always once it
// finished, at most every summarizeEvery while it runs.
func (a *trackedApp) observeWorkload(r *analysis.Report) {
	if r.Workload == "" || r.AppID == "" && r.AppName == "" {
		return
	}
	now := time.Now()
	if r.Live && now.Sub(a.summarizedAt) < summarizeEvery {
		return
	}
	a.summarizedAt = now
	a.w.workloads.add(workload.Summarize(r), &a.workloadDropped)
}

// add keeps s and, the first time its run is seen finished, counts it by
// how it compares with its baseline then. A run whose workload would
// exceed --workload.max-workloads is counted as dropped once (*dropped
// remembers it).
func (ws *workloads) add(s workload.Summary, dropped *bool) {
	ws.mu.Lock() // one Add at a time, so that Dropped moving is this run's
	defer ws.mu.Unlock()
	before := ws.hist.Dropped()
	kept := ws.hist.Add(s)
	ws.gen++
	if !kept {
		if ws.hist.Dropped() != before && !*dropped { // else older than the runs kept: no drop
			*dropped = true
			ws.dropped++
		}
		return
	}
	if f, ok := ws.first[s.Workload]; s.Start > 0 && (!ok || s.Start < f) {
		ws.first[s.Workload] = s.Start
	}
	if !s.Finished || ws.holding {
		return
	}
	ws.countLocked(s)
}

// countLocked counts the finished run s, kept in the history, once.
func (ws *workloads) countLocked(s workload.Summary) {
	seen := ws.counted[s.Workload]
	if seen == nil {
		seen = map[string]bool{}
		ws.counted[s.Workload] = seen
	}
	if seen[s.ID()] {
		return
	}
	res, ok := ws.hist.Evaluate(s.Workload, s.AppID, s.AttemptID)
	if !ok {
		return
	}
	seen[s.ID()] = true
	byStatus := ws.runs[s.Workload]
	if byStatus == nil {
		byStatus = map[string]float64{}
		ws.runs[s.Workload] = byStatus
	}
	byStatus[res.StatusLabel()]++
	if len(seen) > 2*workload.DefaultMaxRuns {
		ws.pruneLocked(s.Workload)
	}
}

// release ends the holding once the first catch-up is done: every
// finished run the history keeps is counted, in the order the runs started.
func (ws *workloads) release() {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if !ws.holding || !ws.caughtUp() {
		return
	}
	ws.holding = false
	ws.gen++
	for _, key := range ws.hist.Workloads() {
		for _, r := range ws.hist.Runs(key) {
			if r.Finished {
				ws.countLocked(r)
			}
		}
	}
}

// pruneLocked forgets the counted runs the history no longer keeps: they
// cannot come back (older than the runs kept).
func (ws *workloads) pruneLocked(key string) {
	kept := map[string]bool{}
	for _, r := range ws.hist.Runs(key) {
		if ws.counted[key][r.ID()] {
			kept[r.ID()] = true
		}
	}
	ws.counted[key] = kept
}

// families returns the spark_workload_* families, rebuilt only when the
// history changed since the last scrape.
func (ws *workloads) families() ([]exporter.Family, error) {
	ws.release()
	ws.mu.Lock()
	gen := ws.gen
	if ws.cached != nil && ws.cacheAt == gen {
		out := ws.cached
		ws.mu.Unlock()
		return out, nil
	}
	dropped := ws.dropped
	runs := make(map[string]map[string]float64, len(ws.runs))
	for k, v := range ws.runs {
		c := make(map[string]float64, len(v))
		for s, n := range v {
			c[s] = n
		}
		runs[k] = c
	}
	first := maps.Clone(ws.first)
	// Until the runs found at start are counted, their counters are left
	// out rather than shown at 0: after a restart, a 0 between the last
	// counts before and the same counts again would be a reset.
	holding := ws.holding
	ws.mu.Unlock()

	byDesc := map[*sm.Metric][]*dto.Metric{}
	var errs []error
	put := func(def *sm.Metric, m prometheus.Metric, err error) {
		if err != nil {
			errs = append(errs, err)
			return
		}
		d := &dto.Metric{}
		if err := m.Write(d); err != nil {
			errs = append(errs, err)
			return
		}
		byDesc[def] = append(byDesc[def], d)
	}
	gauge := func(def *sm.Metric, v float64, labels ...string) {
		m, err := prometheus.NewConstMetric(def.Desc(), prometheus.GaugeValue, v, labels...)
		put(def, m, err)
	}
	for _, raw := range ws.hist.Workloads() {
		key := exporter.LabelValue(raw) // a name with invalid UTF-8 must not fail the scrape
		created := ws.since
		if ms, ok := first[raw]; ok {
			created = time.UnixMilli(ms)
		}
		for _, status := range sm.WorkloadStatusLabel.Values {
			if !holding {
				m, err := prometheus.NewConstMetricWithCreatedTimestamp(sm.WorkloadRuns.Desc(), prometheus.CounterValue, runs[raw][string(status)], created, key, string(status))
				put(sm.WorkloadRuns, m, err)
			}
		}
		_, fin, ok := ws.hist.Latest(raw)
		if !ok || fin.Run == "" {
			continue
		}
		if r := lastFinished(ws.hist.Runs(raw)); r != nil {
			gauge(sm.WorkloadLastRunStart, float64(r.Start)/1e3, key)
			for _, m := range workload.Measures() {
				if v, ok := r.Values.Get(m); ok {
					gauge(sm.WorkloadLastRunValue, v, key, m.String())
				}
			}
		}
		if fin.Baseline == nil {
			continue
		}
		regressed := map[workload.Measure]bool{}
		for _, c := range fin.Regressed {
			regressed[c.Measure] = true
		}
		for _, m := range workload.Measures() {
			if v, ok := fin.Baseline.Values.Get(m); ok {
				gauge(sm.WorkloadBaseline, v, key, m.String())
			}
		}
		for _, c := range fin.Ratios {
			gauge(sm.WorkloadLastRunRatio, c.Ratio, key, c.Name)
			flag := 0.0
			if regressed[c.Measure] {
				flag = 1
			}
			gauge(sm.WorkloadRegression, flag, key, c.Name)
		}
	}
	m, err := prometheus.NewConstMetricWithCreatedTimestamp(sm.WorkloadDropped.Desc(), prometheus.CounterValue, dropped, ws.since)
	put(sm.WorkloadDropped, m, err)
	if len(errs) > 0 {
		return nil, fmt.Errorf("workload series: %w", errs[0])
	}
	var out []exporter.Family
	for _, def := range Metrics() { // those put above; the exporter sorts families by name
		if ms := byDesc[def]; len(ms) > 0 {
			out = appendFamily(out, def, []*exporter.Part{exporter.NewPart(def.Name, dtoType(def), ms)})
		}
	}
	ws.mu.Lock()
	if ws.gen == gen {
		ws.cached, ws.cacheAt = out, gen
	}
	ws.mu.Unlock()
	return out, nil
}

// lastFinished is the newest finished run of runs (oldest first).
func lastFinished(runs []workload.Summary) *workload.Summary {
	for i := len(runs) - 1; i >= 0; i-- {
		if runs[i].Finished {
			return &runs[i]
		}
	}
	return nil
}
