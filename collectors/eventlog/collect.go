package eventlog

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/sparkglance/sparkglance/internal/analysis/sqlops"
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
		prometheus.MustNewConstMetric(selfApps.Desc(), gauge, running, "running"),
		prometheus.MustNewConstMetric(selfApps.Desc(), gauge, finished, "finished"),
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

// appPairs are one application's label pairs, shared by its series, and
// the created timestamps of its counters: when the series began, which the
// OTLP push sends as their start time (the text format leaves them out).
type appPairs struct {
	v        *appView
	id, name *dto.LabelPair
	execs    []*dto.LabelPair // executor_id, aligned with v.executors
	// created is the application's start; execCreated the time each
	// executor was added (the application's start if the log never said).
	created     *timestamppb.Timestamp
	execCreated []*timestamppb.Timestamp
	slab        *sampleSlab // where the view's series are allocated, if set
}

func newAppPairs(v *appView) appPairs {
	p := appPairs{v: v, id: labelPair("app_id", v.appID), name: labelPair("app_name", v.appName),
		execs: make([]*dto.LabelPair, len(v.executors)), created: createdAt(v.startMs),
		execCreated: make([]*timestamppb.Timestamp, len(v.executors))}
	for i := range v.executors {
		p.execs[i] = labelPair("executor_id", v.executors[i].id)
		p.execCreated[i] = p.created
		if added := v.executors[i].addedMs; added > 0 {
			p.execCreated[i] = createdAt(added)
		}
	}
	return p
}

// createdAt is a created timestamp from epoch milliseconds, nil when the
// log gave none (the bridge then takes the exporter's start).
func createdAt(ms int64) *timestamppb.Timestamp {
	if ms <= 0 {
		return nil
	}
	return timestamppb.New(time.UnixMilli(ms))
}

func (p *appPairs) send(ch sink, m *Metric, val float64, extra ...*dto.LabelPair) {
	ch(p.newSample(m, p.created, val, append([]*dto.LabelPair{p.id, p.name}, extra...)...))
}

// sink receives one application's series of a family.
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
		p.send(ch, appInfo, 1, labelPair("spark_version", v.sparkVersion), labelPair("user", v.user), labelPair("attempt_id", v.attemptID))
	}},
	{m: appStart, emit: func(ch sink, p *appPairs, _ time.Time) { p.send(ch, appStart, p.v.start) }},
	{m: appEnd, emit: func(ch sink, p *appPairs, _ time.Time) {
		if p.v.ended {
			p.send(ch, appEnd, p.v.end)
		}
	}},
	{m: appCores, emit: func(ch sink, p *appPairs, _ time.Time) { p.send(ch, appCores, p.v.cores) }},
	{m: appCoreSeconds, emit: func(ch sink, p *appPairs, _ time.Time) {
		p.send(ch, appCoreSeconds, p.v.coreSeconds)
	}},
	{m: appActiveTasks, emit: func(ch sink, p *appPairs, _ time.Time) {
		p.send(ch, appActiveTasks, p.v.activeTasks)
	}},
	{m: appTasks, emit: func(ch sink, p *appPairs, _ time.Time) {
		for _, status := range [...]string{"failed", "killed", "success"} {
			p.send(ch, appTasks, p.v.tasks[statusIndex[status]], statusPairs[status])
		}
	}},
	{m: appIntervalEfficiency, emit: func(ch sink, p *appPairs, _ time.Time) {
		if iv := p.v.interval; iv != nil {
			p.send(ch, appIntervalEfficiency, iv.efficiency)
		}
	}},
	{m: appIntervalTimeRatio, emit: func(ch sink, p *appPairs, _ time.Time) {
		if iv := p.v.interval; iv != nil {
			for _, c := range [...]string{"cpu", "gc", "serde", "shuffle"} {
				p.send(ch, appIntervalTimeRatio, iv.ratios[ratioIndex[c]], ratioPairs[c])
			}
		}
	}},
	{m: appIntervalStart, emit: func(ch sink, p *appPairs, _ time.Time) {
		if iv := p.v.interval; iv != nil {
			p.send(ch, appIntervalStart, iv.start)
		}
	}},
	{m: appSettledTaskSeconds, emit: func(ch sink, p *appPairs, _ time.Time) {
		for _, c := range [...]string{"cpu", "gc", "serde", "shuffle"} {
			p.send(ch, appSettledTaskSeconds, p.v.settled.task[ratioIndex[c]], ratioPairs[c])
		}
	}},
	{m: appSettledCoreSeconds, emit: func(ch sink, p *appPairs, _ time.Time) {
		p.send(ch, appSettledCoreSeconds, p.v.settled.core)
	}},
	{m: stageActive, emit: func(ch sink, p *appPairs, _ time.Time) {
		for _, s := range p.v.activeStages {
			p.send(ch, stageActive, 1, labelPair("stage_id", s[0]), labelPair("attempt_id", s[1]))
		}
	}},
	{m: appFinding, emit: func(ch sink, p *appPairs, _ time.Time) {
		for _, f := range p.v.findings {
			p.send(ch, appFinding, 1, labelPair("kind", f[0]), labelPair("stage_id", f[1]), labelPair("executor_id", f[2]))
		}
	}},
	{m: selfLag, clock: true, emit: func(ch sink, p *appPairs, now time.Time) {
		if v := p.v; v.running && v.lastEventMs > 0 {
			p.send(ch, selfLag, max(0, float64(now.UnixMilli()-v.lastEventMs)/1e3))
		}
	}},
	execFamily(execCores, func(e *execView) (float64, bool) { return e.cores, e.live }),
	execFamily(execActiveTasks, func(e *execView) (float64, bool) { return e.activeTasks, e.live }),
	{m: execTaskTime, emit: func(ch sink, p *appPairs, _ time.Time) {
		for _, c := range [...]string{"cpu", "gc", "run", "serde", "shuffle"} {
			for i := range p.v.executors {
				e := &p.v.executors[i]
				ch(p.newSample(execTaskTime, p.execCreated[i], e.totals.taskTime[taskTimeIndex[c]], p.id, p.name, p.execs[i], taskTimePairs[c]))
			}
		}
	}},
	{m: execSpill, emit: func(ch sink, p *appPairs, _ time.Time) {
		for i := range p.v.executors {
			t := &p.v.executors[i].totals
			ch(p.newSample(execSpill, p.execCreated[i], t.diskSpill, p.id, p.name, p.execs[i], mediumPairs["disk"]))
			ch(p.newSample(execSpill, p.execCreated[i], t.memSpill, p.id, p.name, p.execs[i], mediumPairs["memory"]))
		}
	}},
	{m: execIntervalSpill, emit: func(ch sink, p *appPairs, _ time.Time) {
		iv := p.v.interval
		if iv == nil {
			return
		}
		for i := range p.v.executors {
			s := iv.spill[p.v.executors[i].id]
			ch(p.newSample(execIntervalSpill, p.execCreated[i], s[1], p.id, p.name, p.execs[i], mediumPairs["disk"]))
			ch(p.newSample(execIntervalSpill, p.execCreated[i], s[0], p.id, p.name, p.execs[i], mediumPairs["memory"]))
		}
	}},
	{m: execSettledSpill, emit: func(ch sink, p *appPairs, _ time.Time) {
		for i := range p.v.executors {
			s := p.v.settled.spill[p.v.executors[i].id]
			ch(p.newSample(execSettledSpill, p.execCreated[i], s[1], p.id, p.name, p.execs[i], mediumPairs["disk"]))
			ch(p.newSample(execSettledSpill, p.execCreated[i], s[0], p.id, p.name, p.execs[i], mediumPairs["memory"]))
		}
	}},
	execFamily(execShuffleRead, func(e *execView) (float64, bool) { return e.totals.shuffleRead, true }),
	execFamily(execShuffleWrite, func(e *execView) (float64, bool) { return e.totals.shuffleW, true }),
	execFamily(execInput, func(e *execView) (float64, bool) { return e.totals.input, true }),
	execFamily(execOutput, func(e *execView) (float64, bool) { return e.totals.output, true }),
	{m: sqlExecutions, emit: func(ch sink, p *appPairs, _ time.Time) {
		for _, status := range sqlStatuses {
			if n, ok := p.v.sql.ExecutionsByStatus[status]; ok {
				p.send(ch, sqlExecutions, float64(n), labelPair("status", strings.ToLower(status)))
			}
		}
	}},
	{m: sqlDuration, emit: func(ch sink, p *appPairs, _ time.Time) {
		d := p.v.sql.DurationsSeconds
		if len(d) == 0 {
			return
		}
		if p.created == nil {
			ch(prometheus.MustNewConstSummary(sqlDuration.Desc(), uint64(len(d)), sum(d), quantiles(d), p.id.GetValue(), p.name.GetValue()))
			return
		}
		ch(prometheus.MustNewConstSummaryWithCreatedTimestamp(sqlDuration.Desc(), uint64(len(d)), sum(d), quantiles(d), p.created.AsTime(), p.id.GetValue(), p.name.GetValue()))
	}},
	sqlOperatorFamily(sqlOpTime, func(o *sqlops.OperatorTotals) float64 { return o.TimeSeconds }),
	sqlOperatorFamily(sqlOpSpill, func(o *sqlops.OperatorTotals) float64 { return o.SpillBytes }),
	sqlOperatorFamily(sqlOpPeakMemory, func(o *sqlops.OperatorTotals) float64 { return o.PeakMemoryBytes }),
}, slices.Concat(executorSummaryFamilies, streamingFamilies, stageFamilies)...)

// sqlStatuses are sqlops' execution statuses in label order.
var sqlStatuses = []string{sqlops.StatusCompleted, sqlops.StatusFailed, sqlops.StatusRunning}

// sqlOperatorFamily emits m for each of the application's top operators.
func sqlOperatorFamily(m *Metric, value func(*sqlops.OperatorTotals) float64) family {
	return family{m: m, emit: func(ch sink, p *appPairs, _ time.Time) {
		ops := p.v.sql.Operators
		for i := range ops {
			p.send(ch, m, value(&ops[i]), labelPair("operator", ops[i].Operator))
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
				ch(p.newSample(m, p.execCreated[i], v, p.id, p.name, p.execs[i]))
			}
		}
	}}
}

var (
	statusIndex   = map[string]int{"success": 0, "failed": 1, "killed": 2}
	ratioIndex    = indexOf(intervalCategories[:])
	taskTimeIndex = indexOf(taskTimeCategories[:])
)

func indexOf(values []string) map[string]int {
	m := make(map[string]int, len(values))
	for i, v := range values {
		m[v] = i
	}
	return m
}
