package eventlog

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/internal/analysis/sqlops"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// selfMetrics are the collector's own figures: applications by state,
// bytes and events read, errors by reason.
func (w *Watcher) selfMetrics(tracked []*trackedApp) []prometheus.Metric {
	running, finished := 0.0, 0.0
	for _, a := range tracked {
		if a.view.Load() == nil {
			continue // not an application (a stray file, or nothing decoded yet)
		}
		if a.running.Load() {
			running++
		} else {
			finished++
		}
	}
	out := []prometheus.Metric{
		prometheus.MustNewConstMetric(selfApps.Desc(), gauge, running, string(sm.AppStateRunning)),
		prometheus.MustNewConstMetric(selfApps.Desc(), gauge, finished, string(sm.AppStateFinished)),
		prometheus.MustNewConstMetricWithCreatedTimestamp(selfBytes.Desc(), counter, float64(w.stats.bytes.Load()), w.stats.since),
		prometheus.MustNewConstMetricWithCreatedTimestamp(selfEvents.Desc(), counter, float64(w.stats.events.Load()), w.stats.since),
	}
	out = append(out, w.scaleMetrics(tracked)...)
	for reason, n := range w.skippedCounts() {
		out = append(out, prometheus.MustNewConstMetricWithCreatedTimestamp(selfSkipped.Desc(), counter, n, w.stats.since, reason))
	}
	errs := make(map[string]float64, len(errorReasons))
	for _, reason := range errorReasons {
		errs[reason] = 0
	}
	w.stats.mu.Lock() // the map is read only under the lock: followers count errors meanwhile
	for k, v := range w.stats.errors {
		errs[k] = v
	}
	w.stats.mu.Unlock()
	for reason, n := range errs {
		out = append(out, prometheus.MustNewConstMetricWithCreatedTimestamp(selfErrors.Desc(), counter, n, w.stats.since, reason))
	}
	return append(out, objectRequestMetrics()...)
}

// latestAttempts keeps, per application id, the view of the attempt that
// started last (ties: the greater attempt id), sorted by application id.
// Of two logs that show the same attempt (a copy, a duplicate id), the one
// admitted first is kept, whatever the order apps come in.
func latestAttempts(apps []*trackedApp) []*appView {
	type pick struct {
		v   *appView
		seq uint64
	}
	byID := map[string]pick{}
	for _, a := range apps {
		v := a.view.Load()
		if v == nil {
			continue
		}
		id := v.appID
		if id == "" {
			id = "name:" + v.appName // very old logs have no App ID
		}
		cur, ok := byID[id]
		switch {
		case !ok:
		case cur.v.attemptID == v.attemptID:
			if a.seq > cur.seq {
				continue
			}
		case !newerAttempt(v, cur.v):
			continue
		}
		byID[id] = pick{v, a.seq}
	}
	out := make([]*appView, 0, len(byID))
	for _, p := range byID {
		out = append(out, p.v)
	}
	slices.SortFunc(out, func(a, b *appView) int {
		if c := strings.Compare(a.appID, b.appID); c != 0 {
			return c
		}
		return strings.Compare(a.appName, b.appName)
	})
	return out
}

func newerAttempt(v, cur *appView) bool {
	if v.start != cur.start {
		return v.start > cur.start
	}
	if n, m := attemptNumber(v.attemptID), attemptNumber(cur.attemptID); n != m {
		return n > m
	}
	return v.attemptID > cur.attemptID
}

func attemptNumber(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}

// appPairs are one application's label pairs, shared by its series (each
// pair's text is made once), and the created times of its counters: when
// the series began, which the OTLP push sends as their start time (the
// text format leaves them out). Pairs are indices into the table of the
// columns the view's parts are collected in (cols.Pairs).
type appPairs struct {
	v        *appView
	id, name pairRef
	execs    []pairRef // executor_id, aligned with v.executors
	// created is the application's start; execCreated the time each
	// executor was added (the application's start if the log never said);
	// epoch milliseconds, 0 if unknown.
	created     int64
	execCreated []int64
	cols        *exporter.Columns // where send and add collect the series of the part being built
}

// newAppPairs starts a new table of pairs in cols for v: the parts built
// from the previous table keep it as it is.
func newAppPairs(v *appView, cols *exporter.Columns) appPairs {
	cols.Pairs = make([]*exporter.Pair, 0, len(constTable)+2+len(v.executors)+16)
	cols.Pairs = append(cols.Pairs, constTable...)
	p := appPairs{v: v, cols: cols, created: max(v.startMs, 0),
		execs: make([]pairRef, len(v.executors)), execCreated: make([]int64, len(v.executors))}
	p.id, p.name = p.pair("app_id", v.appID), p.pair("app_name", v.appName)
	// All executors' pairs at once: a view of 100 executors would
	// otherwise make hundreds of small allocations.
	ids := make([]string, len(v.executors))
	for i := range v.executors {
		ids[i] = v.executors[i].id
	}
	pairs := exporter.NewPairs("executor_id", ids...)
	for i := range v.executors {
		p.execs[i] = pairRef(len(cols.Pairs))
		cols.Pairs = append(cols.Pairs, &pairs[i])
		p.execCreated[i] = p.created
		if added := v.executors[i].addedMs; added > 0 {
			p.execCreated[i] = added
		}
	}
	return p
}

// pair adds name=value to the table and returns it.
func (p *appPairs) pair(name, value string) pairRef {
	p.cols.Pairs = append(p.cols.Pairs, labelPair(name, value))
	return pairRef(len(p.cols.Pairs) - 1)
}

// value is r's label value.
func (p *appPairs) value(r pairRef) string { return p.cols.Pairs[r].Value() }

// sink receives the series of a family that the application's columns
// do not hold (summaries, built by client_golang).
type sink func(prometheus.Metric)

// family is one per-application metric family and how to emit an
// application's series of it. Only the lag depends on the clock (now).
type family struct {
	m     *Metric
	emit  func(ch sink, p *appPairs, now time.Time)
	clock bool
}

// families emit one metric family each for one application, in the order
// of the label values sorted by label name (category < executor_id <
// medium; failed < killed < success; …).
var families = append([]family{
	{m: appInfo, emit: func(ch sink, p *appPairs, _ time.Time) {
		v := p.v
		p.send(appInfo, 1, p.pair("spark_version", v.sparkVersion), p.pair("user", v.user), p.pair("attempt_id", v.attemptID))
	}},
	{m: appStart, emit: func(ch sink, p *appPairs, _ time.Time) { p.send(appStart, p.v.start) }},
	{m: appEnd, emit: func(ch sink, p *appPairs, _ time.Time) {
		if p.v.ended {
			p.send(appEnd, p.v.end)
		}
	}},
	{m: appCores, emit: func(ch sink, p *appPairs, _ time.Time) { p.send(appCores, p.v.cores) }},
	{m: appCoreSeconds, emit: func(ch sink, p *appPairs, _ time.Time) {
		p.send(appCoreSeconds, p.v.coreSeconds)
	}},
	{m: appActiveTasks, emit: func(ch sink, p *appPairs, _ time.Time) {
		p.send(appActiveTasks, p.v.activeTasks)
	}},
	{m: appTasks, emit: func(ch sink, p *appPairs, _ time.Time) {
		for _, status := range sm.TaskStatusLabel.Values {
			p.send(appTasks, p.v.tasks[statusIndex[status]], statusPairs[status])
		}
	}},
	{m: appIntervalEfficiency, emit: func(ch sink, p *appPairs, _ time.Time) {
		if iv := p.v.interval; iv != nil {
			p.send(appIntervalEfficiency, iv.efficiency)
		}
	}},
	{m: appIntervalTimeRatio, emit: func(ch sink, p *appPairs, _ time.Time) {
		if iv := p.v.interval; iv != nil {
			for _, c := range sm.IntervalCategory.Values {
				p.send(appIntervalTimeRatio, iv.ratios[ratioIndex[c]], ratioPairs[c])
			}
		}
	}},
	{m: appIntervalStart, emit: func(ch sink, p *appPairs, _ time.Time) {
		if iv := p.v.interval; iv != nil {
			p.send(appIntervalStart, iv.start)
		}
	}},
	{m: appSettledTaskSeconds, emit: func(ch sink, p *appPairs, _ time.Time) {
		for _, c := range sm.IntervalCategory.Values {
			p.send(appSettledTaskSeconds, p.v.settled.task[ratioIndex[c]], ratioPairs[c])
		}
	}},
	{m: appSettledCoreSeconds, emit: func(ch sink, p *appPairs, _ time.Time) {
		p.send(appSettledCoreSeconds, p.v.settled.core)
	}},
	{m: stageActive, emit: func(ch sink, p *appPairs, _ time.Time) {
		for _, s := range p.v.activeStages {
			p.send(stageActive, 1, p.pair("stage_id", s[0]), p.pair("attempt_id", s[1]))
		}
	}},
	{m: appFinding, emit: func(ch sink, p *appPairs, _ time.Time) {
		for _, f := range p.v.findings {
			p.send(appFinding, 1, p.pair("kind", f[0]), p.pair("stage_id", f[1]), p.pair("executor_id", f[2]))
		}
	}},
	{m: selfLag, clock: true, emit: func(ch sink, p *appPairs, now time.Time) {
		if v := p.v; v.running && v.lastEventMs > 0 {
			p.send(selfLag, max(0, float64(now.UnixMilli()-v.lastEventMs)/1e3))
		}
	}},
	execFamily(execCores, func(e *execView) (float64, bool) { return e.cores, e.live }),
	execFamily(execActiveTasks, func(e *execView) (float64, bool) { return e.activeTasks, e.live }),
	{m: execTaskTime, emit: func(ch sink, p *appPairs, _ time.Time) {
		for _, c := range sm.TaskTimeCategory.Values {
			cat, pair := taskTimeIndex[c], taskTimePairs[c] // looked up once, not per executor
			for i := range p.v.executors {
				e := &p.v.executors[i]
				p.add(execTaskTime, p.execCreated[i], e.totals.Time[cat], p.id, p.name, p.execs[i], pair)
			}
		}
	}},
	{m: execSpill, emit: func(ch sink, p *appPairs, _ time.Time) {
		disk, memory := mediumPairs[sm.MediumDisk], mediumPairs[sm.MediumMemory]
		for i := range p.v.executors {
			t := &p.v.executors[i].totals
			p.add(execSpill, p.execCreated[i], t.DiskSpill, p.id, p.name, p.execs[i], disk)
			p.add(execSpill, p.execCreated[i], t.MemorySpill, p.id, p.name, p.execs[i], memory)
		}
	}},
	{m: execIntervalSpill, emit: func(ch sink, p *appPairs, _ time.Time) {
		iv := p.v.interval
		if iv == nil {
			return
		}
		disk, memory := mediumPairs[sm.MediumDisk], mediumPairs[sm.MediumMemory]
		for i := range p.v.executors {
			s := iv.spill[p.v.executors[i].id]
			p.add(execIntervalSpill, p.execCreated[i], s[1], p.id, p.name, p.execs[i], disk)
			p.add(execIntervalSpill, p.execCreated[i], s[0], p.id, p.name, p.execs[i], memory)
		}
	}},
	{m: execSettledSpill, emit: func(ch sink, p *appPairs, _ time.Time) {
		disk, memory := mediumPairs[sm.MediumDisk], mediumPairs[sm.MediumMemory]
		for i := range p.v.executors {
			s := p.v.settled.spill[p.v.executors[i].id]
			p.add(execSettledSpill, p.execCreated[i], s[1], p.id, p.name, p.execs[i], disk)
			p.add(execSettledSpill, p.execCreated[i], s[0], p.id, p.name, p.execs[i], memory)
		}
	}},
	execFamily(execShuffleRead, func(e *execView) (float64, bool) { return e.totals.ShuffleRead, true }),
	execFamily(execShuffleWrite, func(e *execView) (float64, bool) { return e.totals.ShuffleWrite, true }),
	execFamily(execInput, func(e *execView) (float64, bool) { return e.totals.Input, true }),
	execFamily(execOutput, func(e *execView) (float64, bool) { return e.totals.Output, true }),
	{m: sqlExecutions, emit: func(ch sink, p *appPairs, _ time.Time) {
		for _, status := range sm.SQLStatusLabel.Values {
			if n, ok := p.v.sql.ExecutionsByStatus[sqlStatuses[status]]; ok {
				p.send(sqlExecutions, float64(n), sqlStatusPairs[status])
			}
		}
	}},
	{m: sqlDuration, emit: func(ch sink, p *appPairs, _ time.Time) {
		d := p.v.sql.DurationsSeconds
		if len(d) == 0 {
			return
		}
		if p.created <= 0 {
			ch(prometheus.MustNewConstSummary(sqlDuration.Desc(), uint64(len(d)), sum(d), quantiles(d), p.value(p.id), p.value(p.name)))
			return
		}
		ch(prometheus.MustNewConstSummaryWithCreatedTimestamp(sqlDuration.Desc(), uint64(len(d)), sum(d), quantiles(d), time.UnixMilli(p.created), p.value(p.id), p.value(p.name)))
	}},
	sqlOperatorFamily(sqlOpTime, func(o *sqlops.OperatorTotals) float64 { return o.TimeSeconds }),
	sqlOperatorFamily(sqlOpSpill, func(o *sqlops.OperatorTotals) float64 { return o.SpillBytes }),
	sqlOperatorFamily(sqlOpPeakMemory, func(o *sqlops.OperatorTotals) float64 { return o.PeakMemoryBytes }),
}, slices.Concat(executorSummaryFamilies, streamingFamilies, stageFamilies)...)

// sqlStatuses are sqlops' execution statuses by label value.
var sqlStatuses = map[sm.SQLStatus]string{
	sm.SQLCompleted: sqlops.StatusCompleted, sm.SQLFailed: sqlops.StatusFailed, sm.SQLRunning: sqlops.StatusRunning,
}

var sqlStatusPairs = newConstPairs(sm.SQLStatusLabel)

// sqlOperatorFamily emits m for each of the application's top operators.
func sqlOperatorFamily(m *Metric, value func(*sqlops.OperatorTotals) float64) family {
	return family{m: m, emit: func(ch sink, p *appPairs, _ time.Time) {
		ops := p.v.sql.Operators
		for i := range ops {
			p.send(m, value(&ops[i]), p.pair("operator", ops[i].Operator))
		}
	}}
}

func sum(xs []float64) float64 {
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t
}

// quantiles returns the median, 0.9 and 0.99 of xs by Spark's index rule
// (min(floor(q·n), n−1) of the sorted values).
func quantiles(xs []float64) map[float64]float64 {
	s := slices.Sorted(slices.Values(xs))
	out := make(map[float64]float64, 3)
	for _, q := range []float64{0.5, 0.9, 0.99} {
		out[q] = s[min(int(q*float64(len(s))), len(s)-1)]
	}
	return out
}

// execFamily emits m for every executor for which value says so.
func execFamily(m *Metric, value func(*execView) (float64, bool)) family {
	return family{m: m, emit: func(ch sink, p *appPairs, _ time.Time) {
		for i := range p.v.executors {
			if v, ok := value(&p.v.executors[i]); ok {
				p.add(m, p.execCreated[i], v, p.id, p.name, p.execs[i])
			}
		}
	}}
}

// The indices of label values in the arrays the views hold figures in
// (the analysis' order, not the labels').
var (
	statusIndex   = map[sm.TaskStatus]int{sm.TaskSuccess: 0, sm.TaskFailed: 1, sm.TaskKilled: 2}
	ratioIndex    = indexOf(intervalCategories[:])
	taskTimeIndex = indexOf(taskTimeCategories[:])
)

func indexOf[S ~string](values []S) map[sm.Category]int {
	m := make(map[sm.Category]int, len(values))
	for i, v := range values {
		m[sm.Category(v)] = i
	}
	return m
}
