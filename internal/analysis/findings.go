package analysis

import (
	"slices"

	"github.com/sparkglance/sparkglance/internal/analysis/sqlops"
)

// Finding kinds.
const (
	KindSingleCoreStage = "single_core_stage"
	KindUniformSpill    = "uniform_spill"
	KindSkewedSpill     = "skewed_spill"
	KindTaskSkew        = "task_skew"
	KindLowEfficiency   = "low_efficiency"
	KindGCPressure      = "gc_pressure"
	KindShuffleWait     = "shuffle_wait"
	KindIdleExecutors   = "idle_executors"
	// KindStreamingFallingBehind: a streaming query processed its input
	// slower than it arrived, or its batches outlasted the trigger.
	KindStreamingFallingBehind = "streaming_falling_behind"
	// KindWorkloadRegression: a finished run of a recurring workload was
	// slower, less efficient or costlier than its own baseline (checked by
	// package workload over the workload's history, not from one report).
	KindWorkloadRegression = "workload_regression"
)

// Finding is one diagnosis: what it concerns, the numbers behind it and a
// sentence of advice.
type Finding struct {
	Kind           string             `json:"kind"`
	StageID        *int               `json:"stageId,omitempty"`
	StageAttemptID *int               `json:"stageAttemptId,omitempty"`
	ExecutorID     string             `json:"executorId,omitempty"`
	Start          int64              `json:"start,omitempty"`
	End            int64              `json:"end,omitempty"`
	Numbers        map[string]float64 `json:"numbers"`
	Advice         string             `json:"advice"`

	// ExecutionID, OperatorID and Operator place SQL findings: the query,
	// and the plan node (id within Report.SQL's operators, node name).
	ExecutionID *int64 `json:"executionId,omitempty"`
	OperatorID  *int   `json:"operatorId,omitempty"`
	Operator    string `json:"operator,omitempty"`

	// QueryID and QueryName place streaming findings.
	QueryID   string `json:"queryId,omitempty"`
	QueryName string `json:"queryName,omitempty"`
}

func stageFinding(s *Stage, numbers map[string]float64) Finding {
	id, att := s.StageID, s.AttemptID
	return Finding{StageID: &id, StageAttemptID: &att, Numbers: numbers}
}

// FindingRule is one kind of finding: its thresholds (which become
// --finding.* flags and the alert rules' numbers), the advice it gives and
// how it is checked. Exactly one of checkStage and checkApp is set, or
// neither when CheckedElsewhere names the package that checks it.
type FindingRule struct {
	Kind       string
	Thresholds []Threshold
	Advice     string
	// checkStage looks at one stage attempt; checkApp at the whole report.
	// Both return findings without Kind and Advice, which come from the rule.
	checkStage func(s *Stage, th Thresholds) []Finding
	checkApp   func(r *Report, th Thresholds) []Finding
	// CheckedElsewhere names the package that checks a finding one report
	// cannot tell (workload_regression needs the workload's history).
	CheckedElsewhere string
}

// FindingRules returns every application-level finding, in the order the
// report lists them (per stage, then over the whole application).
func FindingRules() []FindingRule { return slices.Clone(findingRules) }

// FindingRuleOf returns the rule of kind, or false.
func FindingRuleOf(kind string) (FindingRule, bool) {
	i := slices.IndexFunc(findingRules, func(r FindingRule) bool { return r.Kind == kind })
	if i < 0 {
		return FindingRule{}, false
	}
	return findingRules[i], true
}

var findingRules = []FindingRule{
	{
		Kind:       KindSingleCoreStage,
		Thresholds: []Threshold{thSingleCoreMinDuration, thSingleCoreMinCores},
		Advice:     "This stage ran one task at a time while many cores sat idle, the repartition(1)/coalesce(1) signature: keep more partitions until the final write.",
		checkStage: func(s *Stage, th Thresholds) []Finding {
			if s.SingleTaskMs < th.SingleCoreMinDuration.Milliseconds() {
				return nil
			}
			return []Finding{stageFinding(s, map[string]float64{"singleTaskSeconds": float64(s.SingleTaskMs) / 1e3, "minCores": float64(th.SingleCoreMinCores)})}
		},
	},
	{
		Kind:       KindUniformSpill,
		Thresholds: []Threshold{thUniformSpillShare, thUniformSpillMaxRatio},
		Advice:     "Nearly every executor spilled about the same amount: executor memory is too small for this stage; raise spark.executor.memory or use more partitions.",
		checkStage: func(s *Stage, th Thresholds) []Finding {
			sp, ok := stageSpill(s)
			if !ok || sp.share < th.UniformSpillShare || sp.top/sp.median > th.UniformSpillMaxRatio {
				return nil
			}
			return []Finding{stageFinding(s, map[string]float64{"spillingExecutorShare": sp.share, "maxToMedian": sp.top / sp.median, "medianSpillBytes": sp.median})}
		},
	},
	{
		Kind:       KindSkewedSpill,
		Thresholds: []Threshold{thSkewedSpillRatio},
		Advice:     "One executor spilled far more than the others: its partitions are skewed; repartition on a better key or salt the hot keys.",
		checkStage: func(s *Stage, th Thresholds) []Finding {
			sp, ok := stageSpill(s)
			if !ok || sp.spilling < 2 || sp.top < th.SkewedSpillRatio*sp.median {
				return nil
			}
			f := stageFinding(s, map[string]float64{"maxSpillBytes": sp.top, "medianSpillBytes": sp.median, "maxToMedian": sp.top / sp.median})
			f.ExecutorID = sp.topID
			return []Finding{f}
		},
	},
	{
		Kind:       KindTaskSkew,
		Thresholds: []Threshold{thTaskSkewMinMax, thTaskSkewRatio},
		Advice:     "One task ran far longer than the median: the data is skewed across partitions; salt the hot keys or enable adaptive skew-join handling.",
		checkStage: func(s *Stage, th Thresholds) []Finding {
			q := s.TaskDurations
			if q == nil || q.Max <= float64(th.TaskSkewMinMax.Milliseconds()) || q.Max < th.TaskSkewRatio*q.Median {
				return nil
			}
			return []Finding{stageFinding(s, map[string]float64{"maxTaskMs": q.Max, "medianTaskMs": q.Median})}
		},
	},
	{
		Kind:       KindGCPressure,
		Thresholds: []Threshold{thGCShare, thMinStageRunTime},
		Advice:     "Tasks spent much of their time in garbage collection: give executors more memory or fewer cores each, or cache less.",
		checkStage: func(s *Stage, th Thresholds) []Finding {
			run := float64(s.ExecutorRunTime)
			if !longEnough(s, th) || float64(s.JVMGCTime) <= th.GCShare*run {
				return nil
			}
			return []Finding{stageFinding(s, map[string]float64{"gcShare": float64(s.JVMGCTime) / run, "jvmGcTimeMs": float64(s.JVMGCTime), "executorRunTimeMs": run})}
		},
	},
	{
		Kind:       KindShuffleWait,
		Thresholds: []Threshold{thShuffleWaitShare, thMinStageRunTime},
		Advice:     "Tasks waited long for remote shuffle blocks: check network and shuffle-service load, or reduce the shuffled data.",
		checkStage: func(s *Stage, th Thresholds) []Finding {
			run := float64(s.ExecutorRunTime)
			if !longEnough(s, th) || float64(s.ShuffleFetchWaitTime) <= th.ShuffleWaitShare*run {
				return nil
			}
			return []Finding{stageFinding(s, map[string]float64{"fetchWaitShare": float64(s.ShuffleFetchWaitTime) / run, "shuffleFetchWaitTimeMs": float64(s.ShuffleFetchWaitTime), "executorRunTimeMs": run})}
		},
	},
	{
		Kind:       KindLowEfficiency,
		Thresholds: []Threshold{thLowEfficiency, thLowEfficiencyFor},
		Advice:     "Tasks were running but used little of the available CPU: look for waiting on I/O, shuffle or too few tasks for the cores.",
		checkApp: func(r *Report, th Thresholds) []Finding {
			if !r.CPUTimeAvailable {
				return nil
			}
			return runs(r.Intervals, th.LowEfficiencyFor.Milliseconds(), func(iv *Interval) bool {
				return iv.TaskSeconds > 0 && iv.AvailableCoreSeconds > 0 && iv.Efficiency < th.LowEfficiency
			}, func(used, avail float64) Finding {
				return Finding{Numbers: map[string]float64{"efficiency": used / avail}}
			}, func(iv *Interval) float64 { return iv.CPUSeconds })
		},
	},
	{
		Kind:       KindIdleExecutors,
		Thresholds: []Threshold{thIdleShare, thIdleFor},
		Advice:     "Executors sat mostly idle for minutes: enable dynamic allocation or use fewer executors.",
		checkApp: func(r *Report, th Thresholds) []Finding {
			return runs(r.Intervals, th.IdleFor.Milliseconds(), func(iv *Interval) bool {
				return iv.AvailableCoreSeconds > 0 && iv.TaskSeconds < th.IdleShare*iv.AvailableCoreSeconds
			}, func(used, avail float64) Finding {
				return Finding{Numbers: map[string]float64{"usedShare": used / avail, "idleCoreSeconds": avail - used}}
			}, func(iv *Interval) float64 { return iv.TaskSeconds })
		},
	},
	{
		Kind:       KindStageRetries,
		Thresholds: []Threshold{thStageRetriesMinLost},
		Advice:     "A stage ran again after failed attempts (fetch failures: shuffle output lost with its executor), and their task time was lost: look for executors lost to memory limits or preemption, and enable the external shuffle service or decommissioning so shuffle files outlive executors.",
		checkApp:   checkStageRetries,
	},
	{
		Kind:       KindDriverMemoryPressure,
		Thresholds: []Threshold{thDriverHeapShare, thDriverGCShare},
		Advice:     "The driver's heap came close to spark.driver.memory or it spent much time in GC: raise spark.driver.memory, or collect less to the driver (collect/toPandas, big broadcasts, many tasks' results and accumulators).",
		checkApp:   checkDriverMemory,
	},
	{
		Kind:       KindExecutorCountOversized,
		Thresholds: []Threshold{thExecutorCountTolerance, thExecutorCountOversized},
		Advice:     "Replaying the tasks on fewer executors predicts about the same wall time: the extra executors mostly waited (too few tasks, the driver, or a long critical path); lower spark.executor.instances or spark.dynamicAllocation.maxExecutors to the ideal count.",
		checkApp:   checkExecutorCount,
	},
	{
		Kind:       KindStreamingFallingBehind,
		Thresholds: []Threshold{thStreamingBehindBatches},
		Advice:     "Batches of this streaming query processed rows slower than they arrived, or ran longer than the trigger interval, several times in a row: the backlog grows; add executors or partitions, or lighten the batch (state size, output).",
		checkApp:   streamingFindings,
	},
	{
		Kind: KindWorkloadRegression,
		Thresholds: []Threshold{thWorkloadWallTimeRatio, thWorkloadWallTimeMin, thWorkloadEfficiencyDrop, thWorkloadCostRatio,
			thWorkloadSpillRatio, thWorkloadSpillMinBytes, thWorkloadInputTolerance},
		Advice:           "This run of a recurring workload was slower, less efficient or costlier than the median of its previous runs: look at what changed since the previous run (properties, Spark version, executors, input) and at the stages that account for most of the difference (`sparkglance compare`).",
		CheckedElsewhere: "internal/workload",
	},
}

// longEnough keeps gc_pressure and shuffle_wait quiet on stages whose tasks
// ran too little in total for a ratio to mean anything.
func longEnough(s *Stage, th Thresholds) bool {
	run := float64(s.ExecutorRunTime)
	return run > 0 && run >= float64(th.MinStageRunTime.Milliseconds())
}

func (a *App) findings(r *Report) []Finding {
	th := a.cfg.Thresholds
	out := []Finding{}
	add := func(rule *FindingRule, fs []Finding) {
		for _, f := range fs {
			f.Kind, f.Advice = rule.Kind, rule.Advice
			out = append(out, f)
		}
	}
	for i := range r.Stages {
		for j := range findingRules {
			if rule := &findingRules[j]; rule.checkStage != nil {
				add(rule, rule.checkStage(&r.Stages[i], th))
			}
		}
	}
	for j := range findingRules {
		if rule := &findingRules[j]; rule.checkApp != nil {
			add(rule, rule.checkApp(r, th))
		}
	}
	return out
}

// runs finds maximal runs of consecutive intervals that satisfy bad and
// last at least minMs, and reports each with used/available core seconds.
func runs(ivs []Interval, minMs int64, bad func(*Interval) bool, mk func(used, avail float64) Finding, used func(*Interval) float64) []Finding {
	var out []Finding
	for i := 0; i < len(ivs); {
		if !bad(&ivs[i]) {
			i++
			continue
		}
		j := i
		var u, av float64
		for ; j < len(ivs) && bad(&ivs[j]) && (j == i || ivs[j].Start == ivs[j-1].End); j++ {
			u += used(&ivs[j])
			av += ivs[j].AvailableCoreSeconds
		}
		if ivs[j-1].End-ivs[i].Start >= minMs {
			f := mk(u, av)
			f.Start, f.End = ivs[i].Start, ivs[j-1].End
			f.Numbers["durationSeconds"] = float64(f.End-f.Start) / 1e3
			out = append(out, f)
		}
		i = j
	}
	return out
}

// spill summarises a stage's spill per executor: memory bytes spilled, or
// disk bytes when memory is not reported, over the executors that spilled.
type spill struct {
	spilling    int     // executors that spilled
	share       float64 // spilling / all executors of the stage
	median, top float64 // bytes: median and largest per spilling executor
	topID       string  // the largest spiller
}

func stageSpill(s *Stage) (spill, bool) {
	if len(s.ExecutorSummary) == 0 {
		return spill{}, false
	}
	// The median needs the values in order, the top only the largest (ties
	// to the greater id): sorting the values alone keeps a stage with a
	// million executors cheap.
	var values []float64
	var top float64
	var topID string
	for id, e := range s.ExecutorSummary {
		v := float64(e.MemoryBytesSpilled)
		if v == 0 {
			v = float64(e.DiskBytesSpilled)
		}
		if v > 0 {
			values = append(values, v)
			if v > top || v == top && id > topID {
				top, topID = v, id
			}
		}
	}
	if len(values) == 0 {
		return spill{}, false
	}
	slices.Sort(values)
	n := len(values)
	median := values[n/2]
	if n%2 == 0 {
		median = (values[n/2-1] + values[n/2]) / 2
	}
	return spill{
		spilling: n, share: float64(n) / float64(len(s.ExecutorSummary)),
		median: median, top: top, topID: topID,
	}, true
}

// sqlFindings converts the per-SQL-operator findings.
func sqlFindings(execs []sqlops.Execution, th sqlops.Thresholds) []Finding {
	var out []Finding
	for _, f := range sqlops.Findings(execs, th) {
		id := f.ExecutionID
		out = append(out, Finding{Kind: f.Kind, ExecutionID: &id, OperatorID: f.OperatorID, Operator: f.Operator, Numbers: f.Numbers, Advice: f.Advice})
	}
	return out
}
