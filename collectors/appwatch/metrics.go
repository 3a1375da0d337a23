package appwatch

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/sparkglance/sparkglance/collectors/sparkapi"
)

// Metric is one exported metric, declared once: the collector builds its
// descriptors from this table and docs/metrics.md is rendered from it, so
// the two cannot drift apart.
type Metric struct {
	Name   string
	Type   prometheus.ValueType
	Help   string
	Labels []string // variable labels, in order
	// Unit is the OTLP unit (UCUM) the Prometheus suffix stands for.
	Unit  string
	desc  *prometheus.Desc
	order []int // Labels' indices sorted by label name
}

// Labels every per-application metric starts with.
var (
	appLabels  = []string{"app_id", "app_name"}
	execLabels = []string{"app_id", "app_name", "executor_id"}
)

func withLabels(base []string, extra ...string) []string {
	return append(append([]string(nil), base...), extra...)
}

func metric(name string, t prometheus.ValueType, unit string, labels []string, help string) *Metric {
	return &Metric{Name: name, Type: t, Help: help, Labels: labels, Unit: unit,
		desc: prometheus.NewDesc(name, help, labels, nil), order: sortedOrder(labels)}
}

// shared is a metric the spark collector emits too: the descriptor is
// sparkapi's (one registry family must have one HELP), and help repeats
// its text for the documentation; a test checks that they agree.
func shared(desc *prometheus.Desc, name string, t prometheus.ValueType, unit string, labels []string, help string) *Metric {
	return &Metric{Name: name, Type: t, Help: help, Labels: labels, Unit: unit, desc: desc, order: sortedOrder(labels)}
}

const (
	gauge   = prometheus.GaugeValue
	counter = prometheus.CounterValue
)

// The metric names are a contract with dashboards, alerts and outside
// checks: change them only with a migration note.
var (
	// HELP as the spark collector's spark_app_info (same family); the labels
	// are the contract.
	appInfo = metric("spark_app_info", gauge, "1", withLabels(appLabels, "spark_version", "user", "attempt_id"),
		"Spark application: 1 per application, its name, Spark version and user as labels.")
	appStart = metric("spark_app_start_time_seconds", gauge, "s", appLabels,
		"Application start (SparkListenerApplicationStart), seconds since the epoch.")
	appEnd = metric("spark_app_end_time_seconds", gauge, "s", appLabels,
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
	stageActive = shared(sparkapi.StageActiveDesc, "spark_stage_active", gauge, "1", withLabels(appLabels, "stage_id", "attempt_id"),
		"1 for each Spark stage attempt that is running now.")
	appFinding = metric("spark_app_finding", gauge, "1", withLabels(appLabels, "kind", "stage_id", "executor_id"),
		"1 while the analysis reports a finding of this kind (stage_id and executor_id are empty when the finding has none).")

	execCores = shared(sparkapi.ExecutorCoresDesc, "spark_executor_cores", gauge, "{core}", execLabels,
		"Cores of a live Spark executor (the driver in local mode).")
	execActiveTasks = shared(sparkapi.ExecutorActiveTasksDesc, "spark_executor_active_tasks", gauge, "{task}", execLabels,
		"Tasks running now on a Spark executor.")
	execTaskTime = metric("spark_executor_task_time_seconds_total", counter, "s", withLabels(execLabels, "category"),
		"Time of the executor's ended tasks by category: cpu, shuffle (fetch wait + write), serde (deserialize CPU + result serialization), gc, and run (task wall time, launch to finish).")
	execSpill = metric("spark_executor_spill_bytes_total", counter, "By", withLabels(execLabels, "medium"),
		"Bytes spilled by the executor's ended tasks, by medium: memory (deserialized size) or disk (serialized size).")
	execIntervalSpill = metric("spark_executor_interval_spill_bytes", gauge, "By", withLabels(execLabels, "medium"),
		"Bytes the executor spilled within the latest published interval (tasks' spill spread over their run time), by medium.")
	execShuffleRead = metric("spark_executor_shuffle_read_bytes_total", counter, "By", execLabels,
		"Shuffle bytes read (remote + local) by the executor's ended tasks.")
	execShuffleWrite = metric("spark_executor_shuffle_write_bytes_total", counter, "By", execLabels,
		"Shuffle bytes written by the executor's ended tasks.")
	execInput = metric("spark_executor_input_bytes_total", counter, "By", execLabels,
		"Input bytes read by the executor's ended tasks.")
	execOutput = metric("spark_executor_output_bytes_total", counter, "By", execLabels,
		"Output bytes written by the executor's ended tasks.")

	selfApps = metric("sparkglance_eventlog_apps", gauge, "{application}", []string{"state"},
		"Application attempts followed by the event-log collector, by state: running or finished (kept for --eventlog.retention).")
	selfBytes = metric("sparkglance_eventlog_bytes_read_total", counter, "By", nil,
		"Event-log bytes read as stored (compressed).")
	selfEvents = metric("sparkglance_eventlog_events_total", counter, "{event}", nil,
		"Event-log lines decoded into events.")
	selfErrors = metric("sparkglance_eventlog_errors_total", counter, "{error}", []string{"reason"},
		"Problems met while reading event logs, by reason (a damage kind of the reader, or open-failed, dir-unreadable, log-vanished, max-apps).")
	selfLag = metric("sparkglance_eventlog_lag_seconds", gauge, "s", appLabels,
		"Age of the newest event processed, per running application (wall clock now minus the event's timestamp).")
)

// Metrics lists every metric of the event-log collector in documentation
// order.
func Metrics() []*Metric {
	return []*Metric{
		appInfo, appStart, appEnd, appCores, appCoreSeconds, appActiveTasks, appTasks,
		appIntervalEfficiency, appIntervalTimeRatio, appIntervalStart, stageActive, appFinding,
		execCores, execActiveTasks, execTaskTime, execSpill, execIntervalSpill,
		execShuffleRead, execShuffleWrite, execInput, execOutput,
		selfApps, selfBytes, selfEvents, selfErrors, selfLag,
	}
}
