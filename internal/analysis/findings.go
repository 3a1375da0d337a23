package analysis

import (
	"cmp"
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
}

func stageFinding(kind string, s *Stage, numbers map[string]float64, advice string) Finding {
	id, att := s.StageID, s.AttemptID
	return Finding{Kind: kind, StageID: &id, StageAttemptID: &att, Numbers: numbers, Advice: advice}
}

func (a *App) findings(r *Report) []Finding {
	th := a.cfg.Thresholds
	out := []Finding{}
	for i := range r.Stages {
		s := &r.Stages[i]
		if s.SingleTaskMs >= th.SingleCoreMinDuration.Milliseconds() {
			out = append(out, stageFinding(KindSingleCoreStage, s,
				map[string]float64{"singleTaskSeconds": float64(s.SingleTaskMs) / 1e3, "minCores": float64(th.SingleCoreMinCores)},
				"This stage ran one task at a time while many cores sat idle, the repartition(1)/coalesce(1) signature: keep more partitions until the final write."))
		}
		out = append(out, spillFindings(s, th)...)
		if q := s.TaskDurations; q != nil && q.Max > float64(th.TaskSkewMinMax.Milliseconds()) && q.Max >= th.TaskSkewRatio*q.Median {
			out = append(out, stageFinding(KindTaskSkew, s,
				map[string]float64{"maxTaskMs": q.Max, "medianTaskMs": q.Median},
				"One task ran far longer than the median: the data is skewed across partitions; salt the hot keys or enable adaptive skew-join handling."))
		}
		run := float64(s.ExecutorRunTime)
		if run >= float64(th.MinStageRunTime.Milliseconds()) && run > 0 {
			if float64(s.JVMGCTime) > th.GCShare*run {
				out = append(out, stageFinding(KindGCPressure, s,
					map[string]float64{"gcShare": float64(s.JVMGCTime) / run, "jvmGcTimeMs": float64(s.JVMGCTime), "executorRunTimeMs": run},
					"Tasks spent much of their time in garbage collection: give executors more memory or fewer cores each, or cache less."))
			}
			if float64(s.ShuffleFetchWaitTime) > th.ShuffleWaitShare*run {
				out = append(out, stageFinding(KindShuffleWait, s,
					map[string]float64{"fetchWaitShare": float64(s.ShuffleFetchWaitTime) / run, "shuffleFetchWaitTimeMs": float64(s.ShuffleFetchWaitTime), "executorRunTimeMs": run},
					"Tasks waited long for remote shuffle blocks: check network and shuffle-service load, or reduce the shuffled data."))
			}
		}
	}
	if r.CPUTimeAvailable {
		out = append(out, runs(r.Intervals, th.LowEfficiencyFor.Milliseconds(), func(iv *Interval) bool {
			return iv.TaskSeconds > 0 && iv.AvailableCoreSeconds > 0 && iv.Efficiency < th.LowEfficiency
		}, func(used, avail float64) Finding {
			return Finding{Kind: KindLowEfficiency, Numbers: map[string]float64{"efficiency": used / avail},
				Advice: "Tasks were running but used little of the available CPU: look for waiting on I/O, shuffle or too few tasks for the cores."}
		}, func(iv *Interval) float64 { return iv.CPUSeconds })...)
	}
	out = append(out, runs(r.Intervals, th.IdleFor.Milliseconds(), func(iv *Interval) bool {
		return iv.AvailableCoreSeconds > 0 && iv.TaskSeconds < th.IdleShare*iv.AvailableCoreSeconds
	}, func(used, avail float64) Finding {
		return Finding{Kind: KindIdleExecutors, Numbers: map[string]float64{"usedShare": used / avail, "idleCoreSeconds": avail - used},
			Advice: "Executors sat mostly idle for minutes: enable dynamic allocation or use fewer executors."}
	}, func(iv *Interval) float64 { return iv.TaskSeconds })...)
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

// spillFindings looks at spill per executor in a stage: memory bytes
// spilled, or disk bytes when memory is not reported.
func spillFindings(s *Stage, th Thresholds) []Finding {
	if len(s.ExecutorSummary) == 0 {
		return nil
	}
	type ex struct {
		id    string
		spill float64
	}
	var spilling []ex
	for id, e := range s.ExecutorSummary {
		v := float64(e.MemoryBytesSpilled)
		if v == 0 {
			v = float64(e.DiskBytesSpilled)
		}
		if v > 0 {
			spilling = append(spilling, ex{id, v})
		}
	}
	if len(spilling) == 0 {
		return nil
	}
	slices.SortFunc(spilling, func(x, y ex) int { return cmp.Or(cmp.Compare(x.spill, y.spill), cmp.Compare(x.id, y.id)) })
	n := len(spilling)
	median := spilling[n/2].spill
	if n%2 == 0 {
		median = (spilling[n/2-1].spill + spilling[n/2].spill) / 2
	}
	top := spilling[n-1]
	share := float64(n) / float64(len(s.ExecutorSummary))
	var out []Finding
	if share >= th.UniformSpillShare && top.spill/median <= th.UniformSpillMaxRatio {
		out = append(out, stageFinding(KindUniformSpill, s,
			map[string]float64{"spillingExecutorShare": share, "maxToMedian": top.spill / median, "medianSpillBytes": median},
			"Nearly every executor spilled about the same amount: executor memory is too small for this stage; raise spark.executor.memory or use more partitions."))
	}
	if n >= 2 && top.spill >= th.SkewedSpillRatio*median {
		f := stageFinding(KindSkewedSpill, s,
			map[string]float64{"maxSpillBytes": top.spill, "medianSpillBytes": median, "maxToMedian": top.spill / median},
			"One executor spilled far more than the others: its partitions are skewed; repartition on a better key or salt the hot keys.")
		f.ExecutorID = top.id
		out = append(out, f)
	}
	return out
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
