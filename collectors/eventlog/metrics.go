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

// Labels every per-application metric starts with.
var (
	appLabels  = sm.AppLabels
	execLabels = sm.ExecutorLabels
)

func withLabels(base []string, extra ...string) []string {
	return sm.Labels(base, extra)
}

func metric(name string, t prometheus.ValueType, unit string, labels []string, help string) *Metric {
	typ := sm.Gauge
	if t == prometheus.CounterValue {
		typ = sm.Counter
	}
	return shared(sm.New(name, typ, unit, labels, help))
}

// shared is a metric the spark collector emits too, defined once in
// package metricschema.
func shared(def *sm.Metric) *Metric {
	return &Metric{Metric: def, order: sortedOrder(def.Labels)}
}

const (
	gauge   = prometheus.GaugeValue
	counter = prometheus.CounterValue
)

// The metric names are a contract with dashboards, alerts and outside
// checks: change them only with a migration note.
var (
	appInfo  = shared(sm.AppInfo)
	appStart = shared(sm.AppStartTime)
	appEnd   = metric("spark_app_end_time_seconds", gauge, "s", appLabels,
		"Application end (SparkListenerApplicationEnd), seconds since the epoch; absent while the application runs.")
	appCores = metric("spark_app_cores", gauge, "{core}", appLabels,
		"Executor cores available now (the driver's cores in local mode; 0 once the application ended).")
	appCoreSeconds = metric("spark_app_core_seconds_total", counter, "s", appLabels,
		"Core-seconds made available by executors since the application started (cores × time alive).")
	appActiveTasks = metric("spark_app_active_tasks", gauge, "{task}", appLabels,
		"Tasks running now (sum of spark_executor_active_tasks).")
	appTasks = metric("spark_app_tasks_total", counter, "{task}", withLabels(appLabels, "status"),
		"Tasks ended, by status: success, failed or killed (as the History Server counts them per stage).")
	appIntervalEfficiency = metric("spark_app_interval_efficiency", gauge, "1", appLabels,
		"CPU efficiency of the latest published interval: executor CPU time over available core time (ratio). Computed in the background; an interval is published once settled or after --eventlog.settle-timeout.")
	appIntervalTimeRatio = metric("spark_app_interval_time_ratio", gauge, "1", withLabels(appLabels, "category"),
		"Share of the latest published interval's available core time spent in cpu, shuffle (fetch wait + write), serde (deserialize CPU + result serialization) or gc (ratio).")
	appIntervalStart = metric("spark_app_interval_start_time_seconds", gauge, "s", appLabels,
		"Start of the latest published interval, seconds since the epoch.")
	appSettledTaskSeconds = metric("spark_app_settled_task_seconds_total", counter, "s", withLabels(appLabels, "category"),
		"Task time of the application's settled intervals, by category: cpu, shuffle, serde or gc (as spark_app_interval_time_ratio); advances by each interval's exact values when it settles, so increase() over any range counts every interval once.")
	appSettledCoreSeconds = metric("spark_app_settled_core_seconds_total", counter, "s", appLabels,
		"Available core-seconds of the application's settled intervals; the share of a category over a range is increase(spark_app_settled_task_seconds_total) over increase(this).")
	stageActive = shared(sm.StageActive)
	appFinding  = metric("spark_app_finding", gauge, "1", withLabels(appLabels, "kind", "stage_id", "executor_id"),
		"1 while the analysis reports a finding of this kind (stage_id and executor_id are empty when the finding has none).")

	execCores       = shared(sm.ExecutorCores)
	execActiveTasks = shared(sm.ExecutorActiveTasks)
	execTaskTime    = shared(sm.ExecutorTaskTime)
	execSpill       = metric("spark_executor_spill_bytes_total", counter, "By", withLabels(execLabels, "medium"),
		"Bytes spilled by the executor's ended tasks, by medium: memory (deserialized size) or disk (serialized size).")
	execIntervalSpill = metric("spark_executor_interval_spill_bytes", gauge, "By", withLabels(execLabels, "medium"),
		"Bytes the executor spilled within the latest published interval (tasks' spill spread over their run time), by medium.")
	execSettledSpill = metric("spark_executor_settled_spill_bytes_total", counter, "By", withLabels(execLabels, "medium"),
		"Bytes the executor spilled within the application's settled intervals (tasks' spill spread over their run time), by medium; advances by each interval's values when it settles.")
	execShuffleRead  = shared(sm.ExecutorShuffleReadBytes)
	execShuffleWrite = shared(sm.ExecutorShuffleWriteBytes)
	execInput        = shared(sm.ExecutorInputBytes)
	execOutput       = metric("spark_executor_output_bytes_total", counter, "By", execLabels,
		"Output bytes written by the executor's ended tasks.")

	sqlExecutions = metric("spark_sql_executions_total", counter, "{execution}", withLabels(appLabels, "status"),
		"SQL query executions seen, by status: running, completed or failed.")
	sqlDuration = shared(sm.New("spark_sql_execution_duration_seconds", sm.Summary, "s", appLabels,
		"Duration of the application's finished SQL executions (start to end), with quantiles."))
	sqlOpTime = metric("spark_sql_operator_time_seconds_total", counter, "s", withLabels(appLabels, "operator"),
		"Exclusive time of SQL plan operators, summed over the application's executions, by operator name (the --sql.max-operators with the most time; the rest summed as other).")
	sqlOpSpill = metric("spark_sql_operator_spill_bytes_total", counter, "By", withLabels(appLabels, "operator"),
		"Bytes spilled by SQL plan operators, by operator name (bounded as spark_sql_operator_time_seconds_total).")
	sqlOpPeakMemory = metric("spark_sql_operator_peak_memory_bytes", gauge, "By", withLabels(appLabels, "operator"),
		"Largest peak memory of an SQL plan operator of this name in the application's executions.")

	selfApps = metric("sparkglance_eventlog_apps", gauge, "{application}", []string{"state"},
		"Application attempts followed by the event-log collector, by state: running or finished (kept for --eventlog.retention).")
	selfBytes = metric("sparkglance_eventlog_bytes_read_total", counter, "By", nil,
		"Event-log bytes read as stored (compressed).")
	selfEvents = metric("sparkglance_eventlog_events_total", counter, "{event}", nil,
		"Event-log lines decoded into events.")
	selfErrors = metric("sparkglance_eventlog_errors_total", counter, "{error}", []string{"reason"},
		"Problems met while reading event logs, by reason (a damage kind of the reader, or open-failed, dir-unreadable, log-vanished, log-rewritten, duplicate-app, max-apps).")
	selfSkipped = metric("sparkglance_eventlog_skipped_total", counter, "{log}", []string{"reason"},
		"Event logs not shown, each counted once, by reason: retention (the application ended longer ago than --eventlog.retention) or max-apps (--eventlog.max-apps applications held already).")
	selfLag = metric("sparkglance_eventlog_lag_seconds", gauge, "s", appLabels,
		"Age of the newest event processed, per running application (wall clock now minus the event's timestamp).")
)

// Metrics lists every metric of the event-log collector in documentation
// order.
func Metrics() []*sm.Metric {
	table := metricTable()
	out := make([]*sm.Metric, len(table))
	for i, m := range table {
		out[i] = m.Metric
	}
	return out
}

func metricTable() []*Metric {
	return []*Metric{
		appInfo, appStart, appEnd, appCores, appCoreSeconds, appActiveTasks, appTasks,
		appIntervalEfficiency, appIntervalTimeRatio, appIntervalStart, appSettledTaskSeconds, appSettledCoreSeconds,
		stageActive, appFinding,
		execCores, execActiveTasks, execTaskTime, execSpill, execIntervalSpill, execSettledSpill,
		execShuffleRead, execShuffleWrite, execInput, execOutput,
		sqlExecutions, sqlDuration, sqlOpTime, sqlOpSpill, sqlOpPeakMemory,
		selfApps, selfBytes, selfEvents, selfErrors, selfSkipped, selfLag,
	}
}
