package alerts

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sparkglance/sparkglance/internal/analysis"
)

// RunbookBase is where every alert's runbook_url points; the anchor is the
// lowercased alert name, a heading of docs/runbook.md.
const RunbookBase = "https://github.com/sparkglance/sparkglance/blob/main/docs/runbook.md#"

// Group is one Prometheus rule group.
type Group struct {
	Name  string `yaml:"name"`
	Rules []Rule `yaml:"rules"`
}

// Rule is a recording rule (Record set) or an alerting rule (Alert set).
type Rule struct {
	Record      string            `yaml:"record,omitempty"`
	Alert       string            `yaml:"alert,omitempty"`
	Expr        string            `yaml:"expr"`
	For         string            `yaml:"for,omitempty"`
	Labels      map[string]string `yaml:"labels,omitempty"`
	Annotations map[string]string `yaml:"annotations,omitempty"`
}

// Recording rule names: dashboards use them too.
const (
	AppCPUSecondsRate    = "app:spark_cpu_seconds:rate5m"
	AppCoreSecondsRate   = "app:spark_core_seconds:rate5m"
	AppCPUEfficiency     = "app:spark_cpu_efficiency:ratio_rate5m"
	AppWastedCoreSeconds = "app:spark_wasted_core_seconds:total"
	ExecutorSpillRate    = "executor:spark_spill_bytes:rate5m"
	AppEnergyWh          = "app_id:spark_energy_wh:sum"
	AppPowerWatts        = "app_id:spark_power_watts:rate1m"
)

// Groups returns the recording and alerting rules for th.
func Groups(th Thresholds) []Group {
	return []Group{
		{Name: "sparkglance.rules", Rules: recordingRules()},
		{Name: "sparkglance.alerts", Rules: alertingRules(th)},
	}
}

func recordingRules() []Rule {
	return []Rule{
		// Under --eventlog.executor-metrics=summary the per-executor series
		// are absent and the summary's _sum holds the same total.
		{Record: AppCPUSecondsRate, Expr: `sum by (app_id, app_name) (rate(spark_executor_task_time_seconds_total{category="cpu"}[5m]))
or
sum by (app_id, app_name) (rate(spark_app_executor_task_time_seconds_sum{category="cpu"}[5m]))`},
		{Record: AppCoreSecondsRate, Expr: `sum by (app_id, app_name) (rate(spark_app_core_seconds_total[5m]))`},
		{Record: AppCPUEfficiency, Expr: AppCPUSecondsRate + " / (" + AppCoreSecondsRate + " > 0)"},
		{Record: AppWastedCoreSeconds, Expr: `sum by (app_id, app_name) (spark_app_core_seconds_total)
- on (app_id, app_name)
(
  sum by (app_id, app_name) (spark_executor_task_time_seconds_total{category="cpu"})
  or
  sum by (app_id, app_name) (spark_app_executor_task_time_seconds_sum{category="cpu"})
)`},
		// Memory bytes spilled, as the analysis' spill findings count them.
		{Record: ExecutorSpillRate, Expr: `sum without (medium) (rate(spark_executor_spill_bytes_total{medium="memory"}[5m]))`},
		// Energy of an application summed over every node's agent.
		{Record: AppEnergyWh, Expr: `sum by (app_id) (spark_executor_energy_joules_total) / 3600`},
		{Record: AppPowerWatts, Expr: `sum by (app_id) (rate(spark_executor_energy_joules_total[1m]))`},
	}
}

// JobSelector matches the scrape jobs of sparkglance as deploy/ names them:
// the static and file-SD jobs sparkglance and sparkglance-node
// (deploy/prometheus), the ServiceMonitor's job, named after its Service
// sparkglance, and the PodMonitor's, <namespace>/sparkglance-node
// (deploy/kubernetes). Name your own jobs sparkglance… for the
// SparkglanceDown alert to see them.
const JobSelector = `job=~"(.+/)?sparkglance.*"`

// running keeps applications that have not ended.
const running = ` unless on (app_id, app_name) spark_app_end_time_seconds`

// findingExpr is an alert on the analysis' finding of kind: its series, kept
// by the labels in by, times value (matched on application, and on executor
// when by has it) so the alert shows a number.
func findingExpr(kind, by, value string) string {
	on := "app_id, app_name"
	if strings.Contains(by, "executor_id") && strings.Contains(value, "executor_id") {
		on += ", executor_id"
	}
	return fmt.Sprintf("max by (%s) (spark_app_finding{kind=%q} == 1)\n* on (%s) group_left ()\n%s", by, kind, on, value)
}

func alertingRules(th Thresholds) []Rule {
	f := th.Findings
	return []Rule{
		alert("SparkAppCpuEfficiencyLow", th.LowEfficiencyFor, "warning",
			findingExpr(analysis.KindLowEfficiency, "app_id, app_name", AppCPUEfficiency)+"\n"+strings.TrimSpace(running),
			"Spark application {{ $labels.app_name }} uses little of its CPU.",
			fmt.Sprintf("Tasks of {{ $labels.app_name }} ({{ $labels.app_id }}) used less than %s of the available cores' CPU for at least %s (the analysis' low_efficiency finding); over the last 5m they used {{ $value | humanizePercentage }}.", pct(f.LowEfficiency), dur(f.LowEfficiencyFor))),
		alert("SparkStageSingleCore", th.SingleCoreFor, "warning",
			findingExpr(analysis.KindSingleCoreStage, "app_id, app_name, stage_id", "spark_app_cores"),
			"Spark stage {{ $labels.stage_id }} of {{ $labels.app_name }} runs one task at a time.",
			fmt.Sprintf("Stage {{ $labels.stage_id }} of {{ $labels.app_name }} ({{ $labels.app_id }}) ran one task at a time for at least %s while at least %d cores were available (the analysis' single_core_stage finding; the application has {{ $value }} cores): the repartition(1)/coalesce(1) signature.", dur(f.SingleCoreMinDuration), f.SingleCoreMinCores)),
		alert("SparkExecutorMemoryLow", th.UniformSpillFor, "warning",
			findingExpr(analysis.KindUniformSpill, "app_id, app_name, stage_id", `sum by (app_id, app_name) (spark_executor_spill_bytes_total{medium="memory"})`),
			"Executors of {{ $labels.app_name }} all spill: executor memory is too small.",
			fmt.Sprintf("In stage {{ $labels.stage_id }} of {{ $labels.app_name }} ({{ $labels.app_id }}) at least %s of the executors spilled, by similar amounts (largest at most %s× the median; the analysis' uniform_spill finding); they have spilled {{ $value | humanize1024 }}B in all.", pct(f.UniformSpillShare), num(f.UniformSpillMaxRatio))),
		alert("SparkExecutorSpillSkew", th.SkewedSpillFor, "warning",
			findingExpr(analysis.KindSkewedSpill, "app_id, app_name, stage_id, executor_id", `sum by (app_id, app_name, executor_id) (spark_executor_spill_bytes_total{medium="memory"})`),
			"Executor {{ $labels.executor_id }} of {{ $labels.app_name }} spills far more than the others.",
			fmt.Sprintf("In stage {{ $labels.stage_id }} of {{ $labels.app_name }} ({{ $labels.app_id }}) executor {{ $labels.executor_id }} spilled at least %s× the median of the spilling executors (the analysis' skewed_spill finding); it has spilled {{ $value | humanize1024 }}B in all: its partitions are skewed.", num(f.SkewedSpillRatio))),
		// The finding says a query fell behind at some point; the alert
		// wants it behind now, so it also asks the live gauge for the same
		// number of batches in a row (the finding's threshold).
		alert("SparkStreamingQueryFallingBehind", th.StreamingBehindFor, "warning",
			fmt.Sprintf("spark_streaming_behind_batches >= %d\nand on (app_id, app_name) (spark_app_finding{kind=%q} == 1)\n%s",
				f.StreamingBehindBatches, analysis.KindStreamingFallingBehind, strings.TrimSpace(running)),
			"Streaming query {{ $labels.query_name }} of {{ $labels.app_name }} falls behind its input.",
			fmt.Sprintf("The last {{ $value }} batches of streaming query {{ $labels.query_name }} ({{ $labels.query_id }}) of {{ $labels.app_name }} ({{ $labels.app_id }}) processed rows slower than they arrived or ran longer than the trigger interval: at least %d consecutive batches (the analysis' streaming_falling_behind finding), for %s. Its backlog grows.", f.StreamingBehindBatches, dur(th.StreamingBehindFor))),
		// A workload's latest finished run against the median of its
		// previous ones: the series is 1 per regressed measure until the
		// next run finishes; the value is that measure's ratio.
		alert("SparkWorkloadRegressed", th.WorkloadRegressedFor, "warning",
			"max by (workload, measure) (spark_workload_regression == 1)\n* on (workload, measure) group_left ()\nmax by (workload, measure) (spark_workload_last_run_ratio)",
			"Workload {{ $labels.workload }} regressed on {{ $labels.measure }}.",
			fmt.Sprintf("The latest finished run of workload {{ $labels.workload }} is {{ $value | printf \"%%.2f\" }}× its baseline (the median of its previous finished runs) on {{ $labels.measure }}, beyond the workload_regression thresholds (wall time at least %s× and at least %s longer; efficiency at least %s lower; task CPU time, core-hours or cost at least %s×; memory or disk spill at least %s× and at least %s more) and not explained by the input's growth (within %s).",
				num(f.WorkloadWallTimeRatio), dur(f.WorkloadWallTimeMin), num(f.WorkloadEfficiencyDrop), num(f.WorkloadCostRatio), num(f.WorkloadSpillRatio), bytesIEC(f.WorkloadSpillMinBytes), pct(f.WorkloadInputTolerance))),
		alert("SparkExecutorBlocked", th.BlockedRatioFor, "warning",
			fmt.Sprintf(`spark_executor_blocked_ratio > %s`, num(th.BlockedRatio)),
			"Task threads of executor {{ $labels.executor_id }} of {{ $labels.app_id }} are mostly blocked.",
			fmt.Sprintf("{{ $value | humanizePercentage }} of the task-thread stack samples of executor {{ $labels.executor_id }} ({{ $labels.framework }} application {{ $labels.app_id }}) were not running (threshold %s, Flink's HIGH level) for %s.", pct(th.BlockedRatio), dur(th.BlockedRatioFor))),
		alert("SparkEventLogStalled", th.EventLogLagFor, "warning",
			fmt.Sprintf(`sparkglance_eventlog_lag_seconds > %s`, num(th.EventLogLag.Seconds())),
			"The event log of running application {{ $labels.app_name }} stopped growing.",
			fmt.Sprintf("The newest event of {{ $labels.app_name }} ({{ $labels.app_id }}) is {{ $value | humanizeDuration }} old (threshold %s) on {{ $labels.instance }}.", dur(th.EventLogLag))),
		alert("SparkglanceShardBehind", th.ShardBehindFor, "warning",
			fmt.Sprintf(`sparkglance_eventlog_backlog_logs
  > on (job) group_left ()
    clamp_min(%s * quantile by (job) (0.5, sparkglance_eventlog_backlog_logs), %s)
and on (job, instance)
  sparkglance_eventlog_shard_info{total_shards!="1"}`, num(th.ShardBacklogRatio), num(th.ShardBacklogMin)),
			"Event-log shard {{ $labels.instance }} is far behind the other shards.",
			fmt.Sprintf("Shard {{ $labels.instance }} of {{ $labels.job }} has {{ $value }} event logs not yet read to their end, more than %s× the median of its shards and at least %s, for %s: it holds more or bigger applications than the others, or has less CPU.", num(th.ShardBacklogRatio), num(th.ShardBacklogMin), dur(th.ShardBehindFor))),
		alert("SparkTargetDown", th.TargetDownFor, "warning",
			`spark_target_up == 0`,
			"Spark endpoint {{ $labels.target }} cannot be read.",
			fmt.Sprintf("sparkglance on {{ $labels.instance }} has failed to read the Spark metrics endpoint or REST API at {{ $labels.target }} for %s.", dur(th.TargetDownFor))),
		alert("SparkglanceCollectorFailing", th.CollectorFailingFor, "warning",
			`sparkglance_scrape_collector_success == 0`,
			"sparkglance collector {{ $labels.collector }} is failing.",
			fmt.Sprintf("The %s collector of sparkglance on {{ $labels.instance }} has failed every scrape for %s.", "{{ $labels.collector }}", dur(th.CollectorFailingFor))),
		alert("SparkglanceDown", th.DownFor, "warning",
			// A Prometheus fed by OTLP has no up: there, sparkglance_build_info
			// (pushed with every export, gone 5m after the last) says it is alive.
			fmt.Sprintf("up{%s} == 0\nor\n(absent(up{%s}) unless on () sparkglance_build_info{%s})", JobSelector, JobSelector, JobSelector),
			"sparkglance {{ if $labels.instance }}on {{ $labels.instance }} {{ end }}cannot be scraped.",
			fmt.Sprintf("{{ if $labels.instance }}Prometheus has failed to scrape sparkglance on {{ $labels.instance }} (job {{ $labels.job }}, up {{ $value }}){{ else }}Prometheus has no sparkglance target at all (no up series of a job matching %s, and no sparkglance_build_info pushed by OTLP){{ end }} for %s: every Spark alert is blind there.", JobSelector, dur(th.DownFor))),
		alert("SparkglanceEventLogErrors", th.EventLogErrorsFor, "warning",
			fmt.Sprintf("increase(sparkglance_eventlog_errors_total[%s]) > 0", dur(th.EventLogErrorsWindow)),
			"sparkglance on {{ $labels.instance }} keeps failing to read event logs ({{ $labels.reason }}).",
			fmt.Sprintf("The event-log collector of sparkglance on {{ $labels.instance }} met {{ $value | printf \"%%.0f\" }} read errors of reason {{ $labels.reason }} in the last %s, and has kept meeting them for %s.", dur(th.EventLogErrorsWindow), dur(th.EventLogErrorsFor))),
		alert("SparkAppEnergyBudgetExceeded", th.EnergyBudgetFor, "info",
			fmt.Sprintf(`%s > %s`, AppEnergyWh, num(th.EnergyBudgetWh)),
			"Spark application {{ $labels.app_id }} used more energy than its budget.",
			fmt.Sprintf("Application {{ $labels.app_id }} has used {{ $value | printf \"%%.0f\" }} Wh over all nodes (budget %s Wh).", num(th.EnergyBudgetWh))),
	}
}

func alert(name string, forDur time.Duration, severity, expr, summary, description string) Rule {
	return Rule{
		Alert:  name,
		Expr:   expr,
		For:    dur(forDur),
		Labels: map[string]string{"severity": severity},
		Annotations: map[string]string{
			"summary":     summary,
			"description": description,
			"runbook_url": RunbookBase + strings.ToLower(name),
		},
	}
}

// dur writes a duration the way Prometheus reads it: 15m, 90s, 1h.
func dur(d time.Duration) string {
	switch {
	case d%time.Hour == 0 && d > 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d%time.Minute == 0 && d > 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	default:
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func pct(f float64) string { return num(f*100) + "%" }

// bytesIEC writes a byte count in the largest IEC unit it is a whole
// multiple of: 1GiB, 512MiB, 1000B.
func bytesIEC(b float64) string {
	for _, u := range []struct {
		name string
		size float64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if b >= u.size && b == float64(int64(b/u.size))*u.size {
			return num(b/u.size) + u.name
		}
	}
	return num(b) + "B"
}
