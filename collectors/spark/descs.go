package spark

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// Families the event-log collector emits too: the one definition lives in
// package metricschema, so that name, type, HELP and labels agree exactly
// (Prometheus' registry rejects a family whose HELP differs between
// collectors). Kept under these names for callers of this package.
var (
	AppInfoDesc             = sm.AppInfo.Desc()
	ExecutorCoresDesc       = sm.ExecutorCores.Desc()
	ExecutorActiveTasksDesc = sm.ExecutorActiveTasks.Desc()
	StageActiveDesc         = sm.StageActive.Desc()
)

// The collector's own families, defined in package metricschema.
var (
	appRunning          = sm.AppRunning
	executorMaxTasks    = sm.ExecutorMaxTasks
	executorCompleted   = sm.ExecutorCompletedTasks
	executorFailed      = sm.ExecutorFailedTasks
	executorStorageUsed = sm.ExecutorStorageMemoryUsed
	executorStorageMax  = sm.ExecutorStorageMemoryMax
	executorDiskUsed    = sm.ExecutorDiskUsed
	executorPeakMemory  = sm.ExecutorPeakMemory
	stageTasks          = sm.StageTasks
	stageActiveTasks    = sm.StageActiveTasks
	stageCompletedTasks = sm.StageCompletedTasks
	stageFailedTasks    = sm.StageFailedTasks
	pluginEnergy        = sm.PluginEnergy
	targetUp            = sm.TargetUp
	targetDuration      = sm.TargetScrapeDuration
	targetErrors        = sm.TargetScrapeErrors
	targetsFile         = sm.TargetsFileLoadSuccess
)

// Metrics lists every family of the spark collector in documentation
// order, the shared ones first.
func Metrics() []*sm.Metric { return sm.For(sm.CollectorSpark) }

// emit is a shorthand for a definition's descriptor and value type.
func (e *emitter) emit(m *sm.Metric, v float64, lvs ...string) {
	e.send(m.Desc(), m.ValueType(), v, lvs...)
}

// emitSince is emit for a counter that began at created (zero: unknown),
// which it carries as its created timestamp: the OTLP push's start time.
func (e *emitter) emitSince(m *sm.Metric, created time.Time, v float64, lvs ...string) {
	if m.ValueType() != prometheus.CounterValue || created.IsZero() {
		e.emit(m, v, lvs...)
		return
	}
	if lvs, ok := e.first(m.Desc(), lvs); ok {
		e.ch <- prometheus.MustNewConstMetricWithCreatedTimestamp(m.Desc(), prometheus.CounterValue, v, created, lvs...)
	}
}
