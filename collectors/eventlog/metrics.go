package eventlog

import (
	"github.com/prometheus/client_golang/prometheus"

	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// Metric is one exported metric: its definition (from which the collector
// builds its descriptor and docs/metrics.md is rendered, so the two cannot
// drift apart) and the order its labels sort in.
type Metric struct {
	*sm.Metric
	order []int // Labels' indices sorted by label name
}

// of adds the label sort order to a schema definition.
func of(def *sm.Metric) *Metric {
	return &Metric{Metric: def, order: sortedOrder(def.Labels)}
}

const (
	gauge   = prometheus.GaugeValue
	counter = prometheus.CounterValue
)

// The collector's families, defined in package metricschema (names, types,
// help and labels are a contract with dashboards and alerts), with the
// label order this package writes them in.
var (
	appInfo               = of(sm.AppInfo)
	appStart              = of(sm.AppStartTime)
	appEnd                = of(sm.AppEndTime)
	appCores              = of(sm.AppCores)
	appCoreSeconds        = of(sm.AppCoreSeconds)
	appActiveTasks        = of(sm.AppActiveTasks)
	appTasks              = of(sm.AppTasks)
	appIntervalEfficiency = of(sm.AppIntervalEfficiency)
	appIntervalTimeRatio  = of(sm.AppIntervalTimeRatio)
	appIntervalStart      = of(sm.AppIntervalStartTime)
	appSettledTaskSeconds = of(sm.AppSettledTaskSeconds)
	appSettledCoreSeconds = of(sm.AppSettledCoreSeconds)
	stageActive           = of(sm.StageActive)
	appFinding            = of(sm.AppFinding)
	execCores             = of(sm.ExecutorCores)
	execActiveTasks       = of(sm.ExecutorActiveTasks)
	execTaskTime          = of(sm.ExecutorTaskTime)
	execSpill             = of(sm.ExecutorSpillBytes)
	execIntervalSpill     = of(sm.ExecutorIntervalSpillBytes)
	execSettledSpill      = of(sm.ExecutorSettledSpillBytes)
	execShuffleRead       = of(sm.ExecutorShuffleReadBytes)
	execShuffleWrite      = of(sm.ExecutorShuffleWriteBytes)
	execInput             = of(sm.ExecutorInputBytes)
	execOutput            = of(sm.ExecutorOutputBytes)
	sqlExecutions         = of(sm.SQLExecutions)
	sqlDuration           = of(sm.SQLExecutionDuration)
	sqlOpTime             = of(sm.SQLOperatorTime)
	sqlOpSpill            = of(sm.SQLOperatorSpillBytes)
	sqlOpPeakMemory       = of(sm.SQLOperatorPeakMemoryBytes)
	selfApps              = of(sm.EventlogApps)
	selfBytes             = of(sm.EventlogBytesRead)
	selfEvents            = of(sm.EventlogEvents)
	selfErrors            = of(sm.EventlogErrors)
	selfSkipped           = of(sm.EventlogSkipped)
	selfLag               = of(sm.EventlogLag)
	selfShardInfo         = of(sm.EventlogShardInfo)
	selfBacklog           = of(sm.EventlogBacklog)
	selfObjectRequests    = of(sm.EventlogObjectRequests)
)

// Metrics lists every metric of the event-log collector in documentation
// order: the schema's eventlog sections.
func Metrics() []*sm.Metric { return sm.For(sm.CollectorEventlog) }
