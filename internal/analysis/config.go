// Package analysis turns a stream of typed Spark events into the numbers
// behind sparkglance's charts: per-interval CPU efficiency with correct
// units, Spark's own History Server aggregates per stage attempt and per
// executor, and automated findings.
//
// One App analyses one application attempt incrementally: Add costs about
// O(1) per event plus the intervals a task spans, and memory grows with
// executors, stages and intervals, never with tasks. The same code serves a
// finished log (the analyze command) and a live, growing one (the exporter).
package analysis

import (
	"time"

	"github.com/sparkglance/sparkglance/internal/analysis/sqlops"
	"github.com/sparkglance/sparkglance/internal/workloadkey"
)

// Config chooses the intervals, the core count and the finding thresholds.
type Config struct {
	// Interval is the width of the fixed intervals (aligned to epoch
	// multiples). Ignored when StageBorders is set.
	Interval time.Duration
	// StageBorders uses spark-sight's intervals instead: borders at every
	// stage's first task launch and last task finish.
	StageBorders bool
	// CPUs, when > 0, replaces the executors' cores by a constant N over
	// the application's life.
	CPUs int
	// ExactQuantileTasks is how many task durations per stage attempt are
	// kept exactly before switching to a bounded sketch (1% relative error).
	ExactQuantileTasks int
	Thresholds         Thresholds
	// SQLThresholds are the per-SQL-operator findings' triggers; the zero
	// value means sqlops.DefaultThresholds().
	SQLThresholds sqlops.Thresholds
	// SQLMaxExecutions bounds the SQL executions kept (oldest finished
	// dropped first); 0 means 1000, Spark's own UI default.
	SQLMaxExecutions int
	// SQLMaxPlanNodes bounds the plan nodes kept of each SQL execution,
	// all its plan versions together; a bigger plan is cut and older
	// versions dropped (counted problems). 0 means
	// sqlops.DefaultMaxPlanNodes.
	SQLMaxPlanNodes int
	// StreamingMaxQueries bounds the streaming queries analysed per
	// application; 0 means DefaultStreamingMaxQueries.
	StreamingMaxQueries int
	// Energy turns CPU time into energy and carbon; the zero value means
	// DefaultEnergyModel().
	Energy EnergyModel
	// Workload chooses how the report's workload key is derived.
	Workload workloadkey.Options
	// Cost prices the allocated core and memory time; CoreHour 0 turns
	// cost off (Report.Cost nil).
	Cost CostModel
	// NoExecutorTaskSums leaves Report.ExecutorTaskSums nil: only the
	// live exporter reads them, and a million executors make them a map
	// of 170 MB built for every report.
	NoExecutorTaskSums bool
}

// Thresholds holds every finding's trigger. DefaultThresholds is the one
// source of the shipped values: the --finding.* flags default to them and
// the alert rules (package alerts) quote them.
type Thresholds struct {
	SingleCoreMinDuration time.Duration // single_core_stage: one task at a time for at least this long…
	SingleCoreMinCores    int           // …while at least this many cores were available
	UniformSpillShare     float64       // uniform_spill: share of a stage's executors that spilled
	UniformSpillMaxRatio  float64       // uniform_spill: max/median executor spill at most this
	SkewedSpillRatio      float64       // skewed_spill: one executor spilled ≥ this × the median of the spilling ones
	TaskSkewMinMax        time.Duration // task_skew: longest task longer than this…
	TaskSkewRatio         float64       // …and at least this × the median task
	LowEfficiency         float64       // low_efficiency: efficiency below this…
	LowEfficiencyFor      time.Duration // …for at least this long while tasks run
	GCShare               float64       // gc_pressure: GC time over this share of run time
	ShuffleWaitShare      float64       // shuffle_wait: fetch wait over this share of run time
	IdleShare             float64       // idle_executors: less than this share of core time used…
	IdleFor               time.Duration // …for at least this long
	// MinStageRunTime keeps gc_pressure and shuffle_wait quiet on stages
	// whose tasks ran for less than this in total (ratios of tiny numbers
	// are noise).
	MinStageRunTime time.Duration
	// ExecutorCountTolerance is how much slower than today the what-if's
	// ideal executor count may be predicted to run (a share of the wall
	// time); ExecutorCountOversized: executor_count_oversized when that
	// count is at most this share of today's peak.
	ExecutorCountTolerance float64
	ExecutorCountOversized float64
	// StageRetriesMinLost: stage_retries when the task time lost to a
	// stage's failed attempts and fetch failures is at least this.
	StageRetriesMinLost time.Duration
	// DriverHeapShare, DriverGCShare: driver_memory_pressure when the
	// driver's peak heap reaches this share of its maximum, or its GC time
	// this share of the application's wall time.
	DriverHeapShare float64
	DriverGCShare   float64
	// StreamingBehindBatches: streaming_falling_behind after this many
	// consecutive batches processed slower than their input arrived or
	// took longer than the trigger interval.
	StreamingBehindBatches int
	// Workload*: workload_regression, a finished run against the median
	// of its workload's previous runs (package workload checks it). Wall
	// time regressed at ≥ WallTimeRatio × the baseline and ≥ WallTimeMin
	// longer; efficiency at ≥ EfficiencyDrop lower; task CPU time,
	// core-hours and cost at ≥ CostRatio ×; spill (memory or disk) at ≥
	// SpillRatio × and ≥ SpillMinBytes more. A measure that grew no more
	// than InputTolerance beyond the input's growth (ratio over input
	// ratio ≤ 1 + InputTolerance) is explained by the input, not regressed.
	WorkloadWallTimeRatio  float64
	WorkloadWallTimeMin    time.Duration
	WorkloadEfficiencyDrop float64
	WorkloadCostRatio      float64
	WorkloadSpillRatio     float64
	WorkloadSpillMinBytes  float64
	WorkloadInputTolerance float64
}

// DefaultConfig returns 10 s intervals and the default finding thresholds.
func DefaultConfig() Config {
	return Config{
		Interval:            10 * time.Second,
		ExactQuantileTasks:  10000,
		Thresholds:          DefaultThresholds(),
		SQLThresholds:       sqlops.DefaultThresholds(),
		SQLMaxPlanNodes:     sqlops.DefaultMaxPlanNodes,
		StreamingMaxQueries: DefaultStreamingMaxQueries,
		Energy:              DefaultEnergyModel(),
		Cost:                DefaultCostModel(),
	}
}

// DefaultThresholds returns the shipped finding thresholds: the levels at
// which a pattern is costly enough to be worth a sentence of advice.
func DefaultThresholds() Thresholds {
	return Thresholds{
		SingleCoreMinDuration: 30 * time.Second,
		SingleCoreMinCores:    8,
		UniformSpillShare:     0.75,
		UniformSpillMaxRatio:  2,
		SkewedSpillRatio:      3,
		TaskSkewMinMax:        5 * time.Second,
		TaskSkewRatio:         10,
		LowEfficiency:         0.2,
		LowEfficiencyFor:      time.Minute,
		GCShare:               0.1,
		ShuffleWaitShare:      0.2,
		IdleShare:             0.2,
		IdleFor:               5 * time.Minute,
		MinStageRunTime:       10 * time.Second,

		ExecutorCountTolerance: 0.1,
		ExecutorCountOversized: 0.5,
		StageRetriesMinLost:    10 * time.Second,
		DriverHeapShare:        0.9,
		DriverGCShare:          0.1,
		StreamingBehindBatches: 3,

		WorkloadWallTimeRatio:  1.5,
		WorkloadWallTimeMin:    2 * time.Minute,
		WorkloadEfficiencyDrop: 0.15,
		WorkloadCostRatio:      1.5,
		WorkloadSpillRatio:     2,
		WorkloadSpillMinBytes:  1 << 30,
		WorkloadInputTolerance: 0.25,
	}
}
