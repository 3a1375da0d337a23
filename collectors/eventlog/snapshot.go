package eventlog

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/analysis/sqlops"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// appView is an immutable snapshot of one application attempt, ready to be
// turned into const metrics without computation: its data, and the series
// and text built from them.
type appView struct {
	viewData

	// The view's series, one part per family, built at the first scrape
	// that needs them or, once scrapes come, by the application's own
	// goroutine when it publishes the view (families.go). Not data: a view
	// equal to the published one in its data keeps the published one,
	// with its parts and their text (sameData).
	partsDone sync.Once
	parts     []*exporter.Part
	scraped   atomic.Bool // a scrape asked for the parts
}

// viewData is what an appView shows. It holds no cache and no lock, so a
// view derived from another (ended, or shaped by the executor settings)
// copies it whole and cannot forget a field.
type viewData struct {
	appID, appName, attemptID, sparkVersion, user string

	start, end  float64 // epoch seconds; end only when ended
	startMs     int64   // start in epoch milliseconds, 0 if unknown
	ended       bool
	running     bool  // the log is still being written
	lastEventMs int64 // newest event's timestamp (for the lag)

	cores, coreSeconds, activeTasks float64
	tasks                           [3]float64 // success, failed, killed

	interval *intervalView // latest published, nil before the first
	settled  settledTotals // sums of the settled intervals (counters)

	activeStages [][2]string // stage_id, attempt_id
	findings     [][3]string // kind, stage_id, executor_id (unique)
	executors    []execView
	execSummary  *execSummaries // --eventlog.executor-metrics=summary (cardinality.go)

	sql sqlops.Summary // SQL executions and operators, top operators by time

	streaming []streamingView // Structured Streaming queries, by id
	stages    *stagesView     // stage, job and energy series (stages.go); nil before the first build
}

// sameData reports whether v and o hold the same data, so that their
// series and text are the same: a quiet live application republishes its
// view every few seconds, and keeping the published one then costs no
// series building or encoding at the next scrape. (A NaN compares unequal:
// such a view is rebuilt, never wrongly kept.)
func (v *appView) sameData(o *appView) bool {
	return reflect.DeepEqual(v.viewData, o.viewData)
}

// asEnded is a copy of v for an application that will not be read any
// more: not running, no live executors, no lag.
func (v *appView) asEnded() *appView {
	e := &appView{viewData: v.viewData}
	e.running, e.cores, e.activeTasks, e.activeStages = false, 0, 0, nil
	e.executors = nil
	for _, ex := range v.executors {
		ex.live, ex.cores, ex.activeTasks = false, 0, 0
		e.executors = append(e.executors, ex)
	}
	return e
}

type intervalView struct {
	start      float64
	efficiency float64
	ratios     [4]float64 // cpu, shuffle, serde, gc
	spill      map[string][2]float64
}

// Interval categories of spark_app_interval_time_ratio, in output order.
var intervalCategories = [...]sm.Category{sm.CategoryCPU, sm.CategoryShuffle, sm.CategorySerde, sm.CategoryGC}

type execView struct {
	id          string
	live        bool // registered and not removed, application running
	cores       float64
	activeTasks float64
	totals      execTotals
	addedMs     int64 // SparkListenerExecutorAdded, epoch milliseconds; 0 if never announced
}

// buildView turns a Report, with its per-executor task sums, into a view. now decides which unsettled interval has waited long enough.
func buildView(r *analysis.Report, user string, running bool,
	settleTimeout time.Duration, now time.Time) *appView {
	v := &appView{viewData: viewData{
		// Label values from the log, made valid UTF-8 before anything sorts
		// or compares them (the text fast path writes them as they are).
		appID: exporter.LabelValue(r.AppID), appName: exporter.LabelValue(r.AppName),
		attemptID: exporter.LabelValue(r.AttemptID), sparkVersion: exporter.LabelValue(r.SparkVersion), user: exporter.LabelValue(user),
		start: float64(r.Start) / 1e3, startMs: r.Start, ended: !r.Live, running: running, lastEventMs: r.LastEventTime,
		coreSeconds: r.Totals.AvailableCoreSecs,
	}}
	if v.ended {
		v.end = float64(r.End) / 1e3
	}
	for _, st := range r.Stages {
		v.tasks[0] += float64(st.NumCompleteTasks)
		v.tasks[1] += float64(st.NumFailedTasks)
		v.tasks[2] += float64(st.NumKilledTasks)
		if st.Status == "ACTIVE" {
			v.activeStages = append(v.activeStages, [2]string{strconv.Itoa(st.StageID), strconv.Itoa(st.AttemptID)})
		}
	}
	v.interval = publishedInterval(r, settleTimeout, now)
	v.findings = uniqueFindings(r.Findings)
	v.streaming = streamingViews(r.Streaming)

	seen := map[string]bool{}
	for _, ex := range r.Executors {
		seen[ex.ID] = true
		ev := execView{id: exporter.LabelValue(ex.ID), activeTasks: float64(ex.ActiveTasks), addedMs: ex.AddTime}
		if ex.IsActive && !v.ended {
			ev.live, ev.cores = true, float64(ex.TotalCores)
		}
		ev.totals = r.ExecutorTaskSums[ex.ID]
		v.activeTasks += ev.activeTasks
		if ex.ID != "driver" || r.LocalCores == 0 {
			v.cores += ev.cores
		}
		v.executors = append(v.executors, ev)
	}
	for id, t := range r.ExecutorTaskSums { // tasks on an executor the log never announced
		if !seen[id] {
			v.executors = append(v.executors, execView{id: exporter.LabelValue(id), totals: t})
		}
	}
	// Plain string order: the order the registry sorts series in.
	slices.SortFunc(v.executors, func(a, b execView) int { return strings.Compare(a.id, b.id) })
	if r.LocalCores > 0 && !v.ended {
		v.cores = float64(r.LocalCores)
	}
	return v
}

// publishedInterval is the latest interval that is settled, or that ended
// at least settleTimeout ago (by the wall clock or, for logs replayed
// faster than real time, by the log's own clock).
func publishedInterval(r *analysis.Report, settleTimeout time.Duration, now time.Time) *intervalView {
	clock := max(now.UnixMilli(), r.LastEventTime)
	for i := len(r.Intervals) - 1; i >= 0; i-- {
		iv := &r.Intervals[i]
		if !iv.Settled && iv.End+settleTimeout.Milliseconds() > clock {
			continue
		}
		out := &intervalView{start: float64(iv.Start) / 1e3, efficiency: iv.Efficiency, spill: map[string][2]float64{}}
		if a := iv.AvailableCoreSeconds; a > 0 {
			out.ratios = [4]float64{iv.CPUSeconds / a, iv.ShuffleSeconds / a, iv.SerdeSeconds / a, iv.GCSeconds / a}
		}
		for _, s := range iv.Spill {
			out.spill[exporter.LabelValue(s.ExecutorID)] = [2]float64{s.MemoryBytes, s.DiskBytes}
		}
		return out
	}
	return nil
}

// uniqueFindings keeps one series per (kind, stage_id, executor_id):
// several findings of a kind may share labels (two low-efficiency spells).
func uniqueFindings(fs []analysis.Finding) [][3]string {
	var out [][3]string
	seen := map[[3]string]bool{}
	for _, f := range fs {
		k := [3]string{f.Kind, "", exporter.LabelValue(f.ExecutorID)}
		if f.StageID != nil {
			k[1] = strconv.Itoa(*f.StageID)
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}
