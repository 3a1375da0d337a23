// Package alerts builds sparkglance's Prometheus recording and alerting
// rules from one set of thresholds, renders them as a rule file, and holds
// the promtool unit tests that pin every alert's behaviour.
package alerts

import (
	"time"

	"github.com/sparkglance/sparkglance/internal/analysis"
)

// Thresholds is the one place where every alert's trigger and delay is
// set. Alerts about a finding fire on spark_app_finding and quote the
// analysis' own thresholds (Findings, from analysis.DefaultThresholds, the
// same numbers the --finding.* flags default to); the other alerts need
// PromQL and own their triggers here. Change a value, run `make docs`, and
// the rule file, the PrometheusRule manifest and the runbook links follow.
type Thresholds struct {
	// Findings are the analysis' triggers, quoted by the finding alerts.
	Findings analysis.Thresholds

	// How long each finding must stand before its alert fires.
	LowEfficiencyFor   time.Duration // low_efficiency
	SingleCoreFor      time.Duration // single_core_stage
	UniformSpillFor    time.Duration // uniform_spill
	SkewedSpillFor     time.Duration // skewed_spill
	StreamingBehindFor time.Duration // streaming_falling_behind, while the query is still behind
	// WorkloadRegressedFor: how long a workload's latest finished run must
	// stand regressed (spark_workload_regression, the Workload* findings
	// thresholds) before SparkWorkloadRegressed fires.
	WorkloadRegressedFor time.Duration

	// BlockedRatio: share of task-thread samples not running (Flink's HIGH
	// back-pressure level starts above 0.5).
	BlockedRatio    float64
	BlockedRatioFor time.Duration

	// EventLogLag: a live application's newest event is older than this.
	EventLogLag    time.Duration
	EventLogLagFor time.Duration

	// ShardBacklogRatio, ShardBacklogMin: one shard of a sharded event-log
	// exporter has more logs not yet read to their end than this many times
	// the median of its job's shards, and at least ShardBacklogMin.
	ShardBacklogRatio float64
	ShardBacklogMin   float64
	ShardBehindFor    time.Duration

	TargetDownFor       time.Duration
	CollectorFailingFor time.Duration

	// DownFor: how long a sparkglance target may be down or absent.
	DownFor time.Duration

	// EventLogErrorsWindow: event-log read errors counted over this window;
	// EventLogErrorsFor: how long every window must hold some. A single
	// damaged log counts once and stays silent; errors that keep coming
	// (an unreadable directory, logs rewritten under the reader) fire.
	EventLogErrorsWindow time.Duration
	EventLogErrorsFor    time.Duration

	// EnergyBudgetWh: energy of one application summed over all nodes.
	EnergyBudgetWh  float64
	EnergyBudgetFor time.Duration
}

// DefaultThresholds are the values shipped in alerts/sparkglance-rules.yml.
func DefaultThresholds() Thresholds {
	return Thresholds{
		Findings: analysis.DefaultThresholds(),

		LowEfficiencyFor:   15 * time.Minute,
		SingleCoreFor:      2 * time.Minute,
		UniformSpillFor:    10 * time.Minute,
		SkewedSpillFor:     time.Minute,
		StreamingBehindFor: 2 * time.Minute,

		WorkloadRegressedFor: time.Minute,

		BlockedRatio:    0.5,
		BlockedRatioFor: 5 * time.Minute,

		EventLogLag:    15 * time.Minute,
		EventLogLagFor: 5 * time.Minute,

		ShardBacklogRatio: 2,
		ShardBacklogMin:   50,
		ShardBehindFor:    15 * time.Minute,

		TargetDownFor:       5 * time.Minute,
		CollectorFailingFor: 10 * time.Minute,

		DownFor: 5 * time.Minute,

		EventLogErrorsWindow: 10 * time.Minute,
		EventLogErrorsFor:    15 * time.Minute,

		EnergyBudgetWh:  1000,
		EnergyBudgetFor: time.Minute,
	}
}
