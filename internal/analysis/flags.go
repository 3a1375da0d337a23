package analysis

import (
	"cmp"
	"fmt"
	"strconv"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/sparkglance/sparkglance/internal/analysis/sqlops"
)

// FlagGroup is where flags are declared: a *kingpin.Application or a
// *kingpin.CmdClause.
type FlagGroup interface {
	Flag(name, help string) *kingpin.FlagClause
}

// RegisterThresholdFlags declares one --finding.* flag per finding
// threshold (and --sql.max-plan-nodes), defaulting to cfg's current values and writing into cfg. Both
// `analyze` and `serve` use it, so the two agree on names and defaults.
func RegisterThresholdFlags(f FlagGroup, cfg *Config) {
	t, q := &cfg.Thresholds, &cfg.SQLThresholds
	dur := func(name, help string, v *time.Duration) {
		f.Flag("finding."+name, help).Default(v.String()).DurationVar(v)
	}
	num := func(name, help string, v *float64) {
		f.Flag("finding."+name, help).Default(strconv.FormatFloat(*v, 'g', -1, 64)).Float64Var(v)
	}
	dur("single-core.min-duration", "single_core_stage: one task at a time for at least this long…", &t.SingleCoreMinDuration)
	f.Flag("finding.single-core.min-cores", "…while at least this many cores were available.").Default(fmt.Sprint(t.SingleCoreMinCores)).IntVar(&t.SingleCoreMinCores)
	num("uniform-spill.share", "uniform_spill: share of a stage's executors that spilled.", &t.UniformSpillShare)
	num("uniform-spill.max-ratio", "uniform_spill: max/median executor spill at most this.", &t.UniformSpillMaxRatio)
	num("skewed-spill.ratio", "skewed_spill: one executor spilled at least this × the median of the spilling ones.", &t.SkewedSpillRatio)
	dur("task-skew.min-max", "task_skew: the longest task is longer than this…", &t.TaskSkewMinMax)
	num("task-skew.ratio", "…and at least this × the median task.", &t.TaskSkewRatio)
	num("low-efficiency.below", "low_efficiency: efficiency below this…", &t.LowEfficiency)
	dur("low-efficiency.for", "…for at least this long while tasks run.", &t.LowEfficiencyFor)
	num("gc.share", "gc_pressure: GC time over this share of a stage's run time.", &t.GCShare)
	num("shuffle-wait.share", "shuffle_wait: fetch wait over this share of a stage's run time.", &t.ShuffleWaitShare)
	num("idle.share", "idle_executors: less than this share of available core time used…", &t.IdleShare)
	dur("idle.for", "…for at least this long.", &t.IdleFor)
	dur("min-stage-run-time", "gc_pressure and shuffle_wait ignore stages whose tasks ran less than this in total.", &t.MinStageRunTime)

	dur("sql.bottleneck.min-query-time", "bottleneck_operator: a query's exclusive time at least this…", &q.BottleneckMinQueryTime)
	num("sql.bottleneck.share", "…and its top operator's share at least this.", &q.BottleneckShare)
	dur("sql.filter-project.min-time", "expensive_filter_or_project: own time at least this…", &q.FilterProjectMinTime)
	num("sql.filter-project.share", "…and at least this share of the query's exclusive time.", &q.FilterProjectShare)
	dur("sql.join.min-time", "join_build_dominated / join_probe_dominated: build + probe time at least this…", &q.JoinMinTime)
	num("sql.join.dominant-share", "…and one phase at least this share of it.", &q.JoinDominantShare)
	num("sql.spill.min-bytes", "native_spill: an operator spilled at least this many bytes.", &q.SpillMinBytes)
	num("sql.pushdown.min-processed", "pushdown_not_applied: splits + row groups processed at least this.", &q.PushdownMinProcessed)
	num("sql.cold-cache.min-bytes", "cold_cache: storage reads at least this many bytes…", &q.ColdCacheMinBytes)
	num("sql.cold-cache.share", "…and at least this share of all tiers.", &q.ColdCacheShare)
	dur("sql.io-bound.min-time", "io_bound_scan: scan wall time at least this…", &q.IOBoundMinTime)
	num("sql.io-bound.share", "…and I/O wait at least this share of it.", &q.IOBoundShare)

	f.Flag("sql.max-plan-nodes", "Nodes kept of each SQL plan (the first in pre-order); a bigger plan is cut, with a counted problem, so that a huge generated plan cannot take gigabytes.").
		Default(fmt.Sprint(cmp.Or(cfg.SQLMaxPlanNodes, sqlops.DefaultMaxPlanNodes))).IntVar(&cfg.SQLMaxPlanNodes)
}
