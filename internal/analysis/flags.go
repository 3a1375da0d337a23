package analysis

import (
	"fmt"
	"slices"
	"time"
)

// Threshold is one tunable trigger of a finding. Name is its flag after
// "--finding." (both `analyze` and `serve` declare the same flags from
// FindingThresholds, so they agree on names and defaults); Field points into
// a Config and returns a *time.Duration, *float64 or *int.
type Threshold struct {
	Name  string
	Help  string
	Field func(*Config) any
}

// Default is the threshold's value in DefaultConfig: the single source of
// the shipped number, which the alert rules reuse.
func (t Threshold) Default() any {
	def := DefaultConfig()
	switch p := t.Field(&def).(type) {
	case *time.Duration:
		return *p
	case *float64:
		return *p
	case *int:
		return *p
	default:
		panic(fmt.Sprintf("analysis: threshold %s points at a %T", t.Name, p))
	}
}

var (
	thSingleCoreMinDuration = Threshold{"single-core.min-duration", "single_core_stage: one task at a time for at least this long…",
		func(c *Config) any { return &c.Thresholds.SingleCoreMinDuration }}
	thSingleCoreMinCores = Threshold{"single-core.min-cores", "…while at least this many cores were available.",
		func(c *Config) any { return &c.Thresholds.SingleCoreMinCores }}
	thUniformSpillShare = Threshold{"uniform-spill.share", "uniform_spill: share of a stage's executors that spilled.",
		func(c *Config) any { return &c.Thresholds.UniformSpillShare }}
	thUniformSpillMaxRatio = Threshold{"uniform-spill.max-ratio", "uniform_spill: max/median executor spill at most this.",
		func(c *Config) any { return &c.Thresholds.UniformSpillMaxRatio }}
	thSkewedSpillRatio = Threshold{"skewed-spill.ratio", "skewed_spill: one executor spilled at least this × the median of the spilling ones.",
		func(c *Config) any { return &c.Thresholds.SkewedSpillRatio }}
	thTaskSkewMinMax = Threshold{"task-skew.min-max", "task_skew: the longest task is longer than this…",
		func(c *Config) any { return &c.Thresholds.TaskSkewMinMax }}
	thTaskSkewRatio = Threshold{"task-skew.ratio", "…and at least this × the median task.",
		func(c *Config) any { return &c.Thresholds.TaskSkewRatio }}
	thLowEfficiency = Threshold{"low-efficiency.below", "low_efficiency: efficiency below this…",
		func(c *Config) any { return &c.Thresholds.LowEfficiency }}
	thLowEfficiencyFor = Threshold{"low-efficiency.for", "…for at least this long while tasks run.",
		func(c *Config) any { return &c.Thresholds.LowEfficiencyFor }}
	thGCShare = Threshold{"gc.share", "gc_pressure: GC time over this share of a stage's run time.",
		func(c *Config) any { return &c.Thresholds.GCShare }}
	thShuffleWaitShare = Threshold{"shuffle-wait.share", "shuffle_wait: fetch wait over this share of a stage's run time.",
		func(c *Config) any { return &c.Thresholds.ShuffleWaitShare }}
	thIdleShare = Threshold{"idle.share", "idle_executors: less than this share of available core time used…",
		func(c *Config) any { return &c.Thresholds.IdleShare }}
	thIdleFor = Threshold{"idle.for", "…for at least this long.",
		func(c *Config) any { return &c.Thresholds.IdleFor }}
	thStreamingBehindBatches = Threshold{"streaming.behind-batches", "streaming_falling_behind: this many consecutive batches processed slower than their input arrived, or longer than the trigger interval.",
		func(c *Config) any { return &c.Thresholds.StreamingBehindBatches }}
	thWorkloadWallTimeRatio = Threshold{"workload.wall-time-ratio", "workload_regression: wall time at least this × the workload's baseline…",
		func(c *Config) any { return &c.Thresholds.WorkloadWallTimeRatio }}
	thWorkloadWallTimeMin = Threshold{"workload.wall-time-min", "…and at least this much longer.",
		func(c *Config) any { return &c.Thresholds.WorkloadWallTimeMin }}
	thWorkloadEfficiencyDrop = Threshold{"workload.efficiency-drop", "workload_regression: efficiency at least this much below the baseline.",
		func(c *Config) any { return &c.Thresholds.WorkloadEfficiencyDrop }}
	thWorkloadCostRatio = Threshold{"workload.cost-ratio", "workload_regression: task CPU time, core-hours or cost at least this × the baseline.",
		func(c *Config) any { return &c.Thresholds.WorkloadCostRatio }}
	thWorkloadSpillRatio = Threshold{"workload.spill-ratio", "workload_regression: memory or disk spill at least this × the baseline…",
		func(c *Config) any { return &c.Thresholds.WorkloadSpillRatio }}
	thWorkloadSpillMinBytes = Threshold{"workload.spill-min-bytes", "…and at least this many bytes more.",
		func(c *Config) any { return &c.Thresholds.WorkloadSpillMinBytes }}
	thWorkloadInputTolerance = Threshold{"workload.input-tolerance", "workload_regression: a measure that grew by the input's growth factor within this share is explained by the input, not a regression.",
		func(c *Config) any { return &c.Thresholds.WorkloadInputTolerance }}
	thMinStageRunTime = Threshold{"min-stage-run-time", "gc_pressure and shuffle_wait ignore stages whose tasks ran less than this in total.",
		func(c *Config) any { return &c.Thresholds.MinStageRunTime }}
)

// sqlThresholds are the per-SQL-operator findings' triggers (their checks
// live in package sqlops).
var sqlThresholds = []Threshold{
	{"sql.bottleneck.min-query-time", "bottleneck_operator: a query's exclusive time at least this…", func(c *Config) any { return &c.SQLThresholds.BottleneckMinQueryTime }},
	{"sql.bottleneck.share", "…and its top operator's share at least this.", func(c *Config) any { return &c.SQLThresholds.BottleneckShare }},
	{"sql.filter-project.min-time", "expensive_filter_or_project: own time at least this…", func(c *Config) any { return &c.SQLThresholds.FilterProjectMinTime }},
	{"sql.filter-project.share", "…and at least this share of the query's exclusive time.", func(c *Config) any { return &c.SQLThresholds.FilterProjectShare }},
	{"sql.join.min-time", "join_build_dominated / join_probe_dominated: build + probe time at least this…", func(c *Config) any { return &c.SQLThresholds.JoinMinTime }},
	{"sql.join.dominant-share", "…and one phase at least this share of it.", func(c *Config) any { return &c.SQLThresholds.JoinDominantShare }},
	{"sql.spill.min-bytes", "native_spill: an operator spilled at least this many bytes.", func(c *Config) any { return &c.SQLThresholds.SpillMinBytes }},
	{"sql.pushdown.min-processed", "pushdown_not_applied: splits + row groups processed at least this.", func(c *Config) any { return &c.SQLThresholds.PushdownMinProcessed }},
	{"sql.cold-cache.min-bytes", "cold_cache: storage reads at least this many bytes…", func(c *Config) any { return &c.SQLThresholds.ColdCacheMinBytes }},
	{"sql.cold-cache.share", "…and at least this share of all tiers.", func(c *Config) any { return &c.SQLThresholds.ColdCacheShare }},
	{"sql.io-bound.min-time", "io_bound_scan: scan wall time at least this…", func(c *Config) any { return &c.SQLThresholds.IOBoundMinTime }},
	{"sql.io-bound.share", "…and I/O wait at least this share of it.", func(c *Config) any { return &c.SQLThresholds.IOBoundShare }},
}

// FindingThresholds returns every finding threshold once: the rules' in
// table order, then the SQL operators'. Command-line packages turn each into
// a --finding.<Name> flag.
func FindingThresholds() []Threshold {
	var out []Threshold
	for _, r := range findingRules {
		for _, t := range r.Thresholds {
			if !slices.ContainsFunc(out, func(o Threshold) bool { return o.Name == t.Name }) {
				out = append(out, t)
			}
		}
	}
	return append(out, sqlThresholds...)
}
