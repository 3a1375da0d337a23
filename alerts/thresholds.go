// Package alerts builds sparkglance's Prometheus recording and alerting
// rules from one set of thresholds, renders them as a rule file, and holds
// the promtool unit tests that pin every alert's behaviour.
package alerts

import "time"

// Thresholds is the one place where every alert's trigger and delay is
// set. Change a value here, run `make dashboards`, and the rule file, the
// PrometheusRule manifest and the runbook links follow.
type Thresholds struct {
	// LowEfficiency: running tasks used less than this share of the
	// available cores' CPU, averaged over 5m…
	LowEfficiency    float64
	LowEfficiencyFor time.Duration

	// SingleCoreMinCores: one task at a time while at least this many
	// cores were available (the repartition(1) / coalesce(1) signature).
	SingleCoreMinCores int
	SingleCoreFor      time.Duration

	// UniformSpillShare: at least this share of executors spill, and the
	// largest spiller spills at most UniformSpillMaxRatio × the median.
	UniformSpillShare    float64
	UniformSpillMaxRatio float64
	// SpillMinBytesPerSecond keeps the uniform-spill alert quiet on trivial spill.
	SpillMinBytesPerSecond float64
	UniformSpillFor        time.Duration

	// SkewedSpillFor: how long the analysis' skewed_spill finding must
	// stand. Its trigger (one executor spilled ≥ 3× the median of the
	// spilling executors of a stage) is the analysis' own threshold
	// (collectors/analysis Thresholds.SkewedSpillRatio): only a whole
	// stage shows skew, which a rate over a time window blurs.
	SkewedSpillFor time.Duration

	// BlockedRatio: share of task-thread samples not running (Flink's HIGH
	// back-pressure level starts above 0.5).
	BlockedRatio    float64
	BlockedRatioFor time.Duration

	// EventLogLag: a live application's newest event is older than this.
	EventLogLag    time.Duration
	EventLogLagFor time.Duration

	TargetDownFor       time.Duration
	CollectorFailingFor time.Duration

	// EnergyBudgetWh: energy of one application summed over all nodes.
	EnergyBudgetWh  float64
	EnergyBudgetFor time.Duration
}

// DefaultThresholds are the values shipped in alerts/sparkglance-rules.yml.
func DefaultThresholds() Thresholds {
	return Thresholds{
		LowEfficiency:    0.3,
		LowEfficiencyFor: 15 * time.Minute,

		SingleCoreMinCores: 4,
		SingleCoreFor:      2 * time.Minute,

		UniformSpillShare:      0.8,
		UniformSpillMaxRatio:   2,
		SpillMinBytesPerSecond: 1 << 20,
		UniformSpillFor:        10 * time.Minute,

		SkewedSpillFor: time.Minute,

		BlockedRatio:    0.5,
		BlockedRatioFor: 5 * time.Minute,

		EventLogLag:    15 * time.Minute,
		EventLogLagFor: 5 * time.Minute,

		TargetDownFor:       5 * time.Minute,
		CollectorFailingFor: 10 * time.Minute,

		EnergyBudgetWh:  1000,
		EnergyBudgetFor: time.Minute,
	}
}
