package spark

import (
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sparkglance/sparkglance/exporter"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// emitter sends const metrics for one scrape. It drops a series already
// sent (two targets that show the same application: the first target in
// sorted order wins) and a metrics-system family whose label names or type
// would clash with an earlier one.
type emitter struct {
	ch     chan<- prometheus.Metric
	claims AppClaims
	logger *slog.Logger
	seen   map[string]bool
	descs  map[string]familyDesc
}

type familyDesc struct {
	desc    *prometheus.Desc
	labels  string
	summary bool
	vt      prometheus.ValueType
}

func newEmitter(ch chan<- prometheus.Metric, claims AppClaims, logger *slog.Logger) *emitter {
	return &emitter{ch: ch, claims: claims, logger: logger, seen: map[string]bool{}, descs: map[string]familyDesc{}}
}

// first returns the label values made valid UTF-8 (names come from
// Spark's endpoints as they are, and MustNewConstMetric panics on invalid
// UTF-8) and whether the series is new in this scrape.
func (e *emitter) first(desc *prometheus.Desc, lvs []string) ([]string, bool) {
	lvs = exporter.LabelValues(lvs)
	id := desc.String() + "\xff" + strings.Join(lvs, "\xff")
	if e.seen[id] {
		return lvs, false
	}
	e.seen[id] = true
	return lvs, true
}

func (e *emitter) send(desc *prometheus.Desc, vt prometheus.ValueType, v float64, lvs ...string) {
	if lvs, ok := e.first(desc, lvs); ok {
		e.ch <- prometheus.MustNewConstMetric(desc, vt, v, lvs...)
	}
}

// appResolver maps metrics-system namespaces to applications.
type appResolver struct {
	names     map[string]string // app id → name, from every target's REST API
	sanitized map[string]string // sanitized app id → app id (PrometheusServlet keys)
}

func newAppResolver(results []targetResult) appResolver {
	r := appResolver{names: map[string]string{}, sanitized: map[string]string{}}
	for _, res := range results {
		for _, a := range res.apps {
			r.names[a.app.ID] = a.app.Name
			r.sanitized[sanitize(a.app.ID)] = a.app.ID
		}
	}
	return r
}

// resolve returns app id and name for a namespace seen on a target. A
// namespace that is no app id (spark.metrics.namespace set) belongs to the
// target's only running application if it has exactly one.
func (r appResolver) resolve(namespace string, res targetResult) (id, name string) {
	if namespace == "" {
		return "", ""
	}
	if n, ok := r.names[namespace]; ok {
		return namespace, n
	}
	if id, ok := r.sanitized[namespace]; ok {
		return id, r.names[id]
	}
	var running []application
	for _, a := range res.apps {
		if a.app.running() {
			running = append(running, a.app)
		}
	}
	if len(running) == 1 {
		return running[0].ID, running[0].Name
	}
	return namespace, ""
}

// emitREST sends the application, executor and stage series of a result.
// For an application the event-log collector claims, the families both
// emit (metricschema.Shared) are left to it.
func (e *emitter) emitREST(res targetResult) {
	for _, st := range res.apps {
		a := st.app
		claimed := e.claims.Claimed(a.ID)
		latest := a.latest()
		if !claimed {
			e.emit(sm.AppInfo, 1, a.ID, a.Name, latest.AppSparkVersion, latest.SparkUser, latest.AttemptID)
			if latest.StartTimeEpoch > 0 {
				e.emit(sm.AppStartTime, float64(latest.StartTimeEpoch)/1e3, a.ID, a.Name)
			}
		}
		e.emit(appRunning, boolValue(a.running()), a.ID, a.Name)
		for _, x := range st.executors {
			if x.IsActive {
				e.emitExecutor(a, x, claimed)
			}
		}
		for _, s := range st.stages {
			if s.Status == "ACTIVE" {
				e.emitStage(a, s, claimed)
			}
		}
	}
}

func (e *emitter) emitExecutor(a application, x executor, claimed bool) {
	lv := []string{a.ID, a.Name, x.ID}
	// The executor's counters began when it was added (else with the
	// application's attempt).
	since := x.added()
	if since.IsZero() && a.latest().StartTimeEpoch > 0 {
		since = time.UnixMilli(a.latest().StartTimeEpoch)
	}
	if !claimed {
		e.emit(sm.ExecutorCores, x.TotalCores, lv...)
		e.emit(sm.ExecutorActiveTasks, x.ActiveTasks, lv...)
		// REST totalDuration is Σ(finish − launch) and totalGCTime Σ JVM GC
		// time over ended tasks: the event-log collector's run and gc.
		e.emitSince(sm.ExecutorTaskTime, since, x.TotalGCTime/1e3, a.ID, a.Name, x.ID, string(sm.CategoryGC))
		e.emitSince(sm.ExecutorTaskTime, since, x.TotalDuration/1e3, a.ID, a.Name, x.ID, string(sm.CategoryRun))
		e.emitSince(sm.ExecutorInputBytes, since, x.TotalInputBytes, lv...)
		e.emitSince(sm.ExecutorShuffleReadBytes, since, x.TotalShuffleRead, lv...)
		e.emitSince(sm.ExecutorShuffleWriteBytes, since, x.TotalShuffleWrite, lv...)
	}
	e.emit(executorMaxTasks, x.MaxTasks, lv...)
	e.emitSince(executorCompleted, since, x.CompletedTasks, lv...)
	e.emitSince(executorFailed, since, x.FailedTasks, lv...)
	e.emit(executorStorageUsed, x.MemoryUsed, lv...)
	e.emit(executorStorageMax, x.MaxMemory, lv...)
	e.emit(executorDiskUsed, x.DiskUsed, lv...)
	for _, k := range sortedKeys(x.PeakMemoryMetrics) {
		if area, ok := strings.CutSuffix(k, "Memory"); ok && area != "" {
			e.emit(executorPeakMemory, x.PeakMemoryMetrics[k], a.ID, a.Name, x.ID, snakeCase(area))
		}
	}
}

func (e *emitter) emitStage(a application, s stage, claimed bool) {
	lv := []string{a.ID, a.Name, strconv.Itoa(s.StageID), strconv.Itoa(s.AttemptID)}
	if !claimed {
		e.emit(sm.StageActive, 1, lv...)
	}
	e.emit(stageTasks, s.NumTasks, lv...)
	e.emit(stageActiveTasks, s.NumActiveTasks, lv...)
	e.emit(stageCompletedTasks, s.NumCompleteTasks, lv...)
	e.emit(stageFailedTasks, s.NumFailedTasks, lv...)
}

// emitSamples sends the metrics-system series of a result.
func (e *emitter) emitSamples(res targetResult, apps appResolver) {
	for _, s := range res.samples {
		f, ok := describe(s)
		if !ok {
			continue
		}
		appID, appName := apps.resolve(s.namespace, res)
		labels := []string{"app_id", "app_name"}
		lvs := []string{appID, appName}
		if !f.appOnly {
			labels = append(labels, "executor_id")
			lvs = append(lvs, s.instance)
		}
		labels = append(labels, f.labels...)
		lvs = append(lvs, f.values...)
		fd, ok := e.familyDesc(f, labels)
		if !ok {
			continue
		}
		lvs, ok = e.first(fd.desc, lvs)
		if !ok {
			continue
		}
		if f.summary {
			quantiles := make(map[float64]float64, len(dropwizardQuantiles))
			for i, q := range dropwizardQuantiles {
				quantiles[q] = s.dist.quantiles[i] * f.scale
			}
			sum := s.dist.mean * float64(s.dist.count) * f.scale
			e.ch <- prometheus.MustNewConstSummary(fd.desc, s.dist.count, sum, quantiles, lvs...)
			continue
		}
		e.ch <- prometheus.MustNewConstMetric(fd.desc, f.valueType, s.value*f.scale, lvs...)
	}
}

// familyDesc returns the descriptor of f's family, created at its first
// sample; a later sample whose labels or type differ is dropped.
func (e *emitter) familyDesc(f family, labels []string) (familyDesc, bool) {
	joined := strings.Join(labels, ",")
	if fd, ok := e.descs[f.name]; ok {
		if fd.labels != joined || fd.summary != f.summary || (!f.summary && fd.vt != f.valueType) {
			e.logger.Debug("dropping metrics-system sample whose name clashes with another", "name", f.name, "labels", joined)
			return familyDesc{}, false
		}
		return fd, true
	}
	fd := familyDesc{desc: prometheus.NewDesc(f.name, f.help, labels, nil), labels: joined, summary: f.summary, vt: f.valueType}
	e.descs[f.name] = fd
	return fd, true
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
