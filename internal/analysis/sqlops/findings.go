package sqlops

import (
	"strconv"
	"time"
)

// Finding kinds.
const (
	KindBottleneckOperator       = "bottleneck_operator"
	KindExpensiveFilterOrProject = "expensive_filter_or_project"
	KindJoinBuildDominated       = "join_build_dominated"
	KindJoinProbeDominated       = "join_probe_dominated"
	KindNativeSpill              = "native_spill"
	KindPushdownNotApplied       = "pushdown_not_applied"
	KindDynamicFilterUnused      = "dynamic_filter_unused"
	KindColdCache                = "cold_cache"
	KindIOBoundScan              = "io_bound_scan"
)

// Thresholds holds every SQL finding's trigger.
type Thresholds struct {
	BottleneckMinQueryTime time.Duration // bottleneck_operator: Σ exclusive time of the query at least this…
	BottleneckShare        float64       // …and the top operator's share at least this
	FilterProjectMinTime   time.Duration // expensive_filter_or_project: own time at least this…
	FilterProjectShare     float64       // …and at least this share of the query's exclusive time
	JoinMinTime            time.Duration // join_*_dominated: build + probe time at least this…
	JoinDominantShare      float64       // …and one phase at least this share of it
	SpillMinBytes          float64       // native_spill: an operator spilled at least this many bytes
	PushdownMinProcessed   float64       // pushdown_not_applied: splits + row groups processed at least this
	ColdCacheMinBytes      float64       // cold_cache: storage reads at least this many bytes…
	ColdCacheShare         float64       // …and at least this share of all tiers
	IOBoundMinTime         time.Duration // io_bound_scan: scan wall time at least this…
	IOBoundShare           float64       // …and I/O wait at least this share of it
}

// DefaultThresholds returns the defaults.
func DefaultThresholds() Thresholds {
	return Thresholds{
		BottleneckMinQueryTime: 10 * time.Second,
		BottleneckShare:        0.5,
		FilterProjectMinTime:   10 * time.Second,
		FilterProjectShare:     0.2,
		JoinMinTime:            10 * time.Second,
		JoinDominantShare:      0.8,
		SpillMinBytes:          64 << 20,
		PushdownMinProcessed:   100,
		ColdCacheMinBytes:      1 << 30,
		ColdCacheShare:         0.8,
		IOBoundMinTime:         10 * time.Second,
		IOBoundShare:           0.5,
	}
}

// Finding is one SQL diagnosis: the query, the operator, the numbers and
// a sentence of advice.
type Finding struct {
	Kind        string
	ExecutionID int64
	OperatorID  *int // nil for query-level findings
	Operator    string
	Numbers     map[string]float64
	Advice      string
}

// Findings diagnoses executions (as Executions returns them).
func Findings(execs []Execution, th Thresholds) []Finding {
	var out []Finding
	for i := range execs {
		out = append(out, executionFindings(&execs[i], th)...)
	}
	return out
}

func opFinding(kind string, e *Execution, o *Operator, numbers map[string]float64, advice string) Finding {
	id := o.ID
	return Finding{Kind: kind, ExecutionID: e.ExecutionID, OperatorID: &id, Operator: o.Name, Numbers: numbers, Advice: advice}
}

func executionFindings(e *Execution, th Thresholds) []Finding {
	var out []Finding
	var total float64
	var top *Operator
	var produced, accepted float64
	var scansWithFilters int
	for i := range e.Operators {
		o := &e.Operators[i]
		total += o.ExclusiveSeconds
		if top == nil || o.ExclusiveSeconds > top.ExclusiveSeconds {
			top = o
		}
		if j := o.Join; j != nil {
			produced += j.DynamicFiltersProduced
		}
		if s := o.Scan; s != nil {
			accepted += s.DynamicFiltersAccepted
			scansWithFilters++
		}
	}
	if top != nil && total > 0 && total >= th.BottleneckMinQueryTime.Seconds() && top.ExclusiveSeconds/total >= th.BottleneckShare {
		out = append(out, opFinding(KindBottleneckOperator, e, top,
			map[string]float64{"exclusiveSeconds": top.ExclusiveSeconds, "share": top.ExclusiveSeconds / total, "queryExclusiveSeconds": total},
			"This operator takes most of the query's time: start tuning here (its input size, join strategy or the engine's fallback for it)."))
	}
	for i := range e.Operators {
		o := &e.Operators[i]
		out = append(out, operatorFindings(e, o, total, th)...)
	}
	if produced > 0 && accepted == 0 && scansWithFilters > 0 {
		out = append(out, Finding{Kind: KindDynamicFilterUnused, ExecutionID: e.ExecutionID,
			Numbers: map[string]float64{"dynamicFiltersProduced": produced, "dynamicFiltersAccepted": accepted},
			Advice:  "Joins produced dynamic filters but no scan accepted one: the probe-side scan cannot take them (format, pushdown settings or a stage boundary in between); check the native scan's filter pushdown."})
	}
	return out
}

func operatorFindings(e *Execution, o *Operator, total float64, th Thresholds) []Finding {
	var out []Finding
	kind := baseKind(o.Name)
	if isFilterOrProject(kind) && o.ExclusiveSeconds >= th.FilterProjectMinTime.Seconds() && total > 0 && o.ExclusiveSeconds/total >= th.FilterProjectShare {
		out = append(out, opFinding(KindExpensiveFilterOrProject, e, o,
			map[string]float64{"exclusiveSeconds": o.ExclusiveSeconds, "share": o.ExclusiveSeconds / total},
			"A filter or projection costs a large share of the query: look for expensive expressions (regex, UDFs, JSON parsing) or ones the native engine runs in fallback; push the filter into the scan."))
	}
	if j := o.Join; j != nil {
		sum := j.BuildSeconds + j.ProbeSeconds
		if sum > 0 && sum >= th.JoinMinTime.Seconds() {
			nums := map[string]float64{"buildSeconds": j.BuildSeconds, "probeSeconds": j.ProbeSeconds, "buildRows": j.BuildRows, "probeRows": j.ProbeRows}
			switch {
			case j.BuildSeconds/sum >= th.JoinDominantShare:
				nums["buildShare"] = j.BuildSeconds / sum
				out = append(out, opFinding(KindJoinBuildDominated, e, o, nums,
					"Building the hash table dominates this join: the build side is too large; make the smaller relation the build side, filter it earlier or raise the broadcast threshold only if it is small."))
			case j.ProbeSeconds/sum >= th.JoinDominantShare:
				nums["probeShare"] = j.ProbeSeconds / sum
				out = append(out, opFinding(KindJoinProbeDominated, e, o, nums,
					"Probing dominates this join: many probe rows stream through it; filter the probe side earlier or enable dynamic (runtime) filters so fewer rows reach the join."))
			}
		}
	}
	if o.SpillBytes > 0 && o.SpillBytes >= th.SpillMinBytes {
		nums := map[string]float64{"spillBytes": o.SpillBytes, "spillRows": o.SpillRows, "peakMemoryBytes": o.PeakMemoryBytes}
		if j := o.Join; j != nil {
			nums["buildSpillBytes"], nums["probeSpillBytes"] = j.BuildSpillBytes, j.ProbeSpillBytes
		}
		out = append(out, opFinding(KindNativeSpill, e, o, nums,
			"This operator spilled to disk: give the engine more (off-heap) memory, raise the partition count so each task holds less, or for a join make the smaller side the build side."))
	}
	if s := o.Scan; s != nil {
		out = append(out, scanFindings(e, o, s, th)...)
	}
	return out
}

func scanFindings(e *Execution, o *Operator, s *Scan, th Thresholds) []Finding {
	var out []Finding
	if s.HasFilter && s.HasSkipping && s.SkippedSplits == 0 && s.SkippedStrides == 0 && s.ProcessedSplits+s.ProcessedStrides >= th.PushdownMinProcessed {
		out = append(out, opFinding(KindPushdownNotApplied, e, o,
			map[string]float64{"processedSplits": s.ProcessedSplits, "processedStrides": s.ProcessedStrides, "skippedSplits": 0, "skippedStrides": 0},
			"The scan has a filter but skipped no file split or row group: the filtered columns are not sorted or partitioned on, or lack statistics; sort or cluster the data on them, or partition by them."))
	}
	if s.HasTiers {
		all := s.StorageReadBytes + s.LocalReadBytes + s.RAMReadBytes
		if all > 0 && s.StorageReadBytes >= th.ColdCacheMinBytes && s.StorageReadBytes/all >= th.ColdCacheShare {
			out = append(out, opFinding(KindColdCache, e, o,
				map[string]float64{"storageReadBytes": s.StorageReadBytes, "localReadBytes": s.LocalReadBytes, "ramReadBytes": s.RAMReadBytes, "storageShare": s.StorageReadBytes / all},
				"Most scan bytes came from remote storage, not the local or memory cache: the cache is cold, disabled or too small; enable or enlarge the SSD cache, or rerun to warm it."))
		}
	}
	wall := o.ExclusiveSeconds
	if wall > 0 && wall >= th.IOBoundMinTime.Seconds() && s.IOWaitSeconds/wall >= th.IOBoundShare {
		out = append(out, opFinding(KindIOBoundScan, e, o,
			map[string]float64{"ioWaitSeconds": s.IOWaitSeconds, "scanSeconds": wall, "ioWaitShare": s.IOWaitSeconds / wall},
			"The scan mostly waited for I/O: raise read parallelism or prefetch (more splits, coalesced reads), move compute closer to the data, or warm the cache."))
	}
	return out
}

// String is a one-line form for logs and test failures.
func (f Finding) String() string {
	s := f.Kind + " execution " + strconv.FormatInt(f.ExecutionID, 10)
	if f.OperatorID != nil {
		s += " operator " + strconv.Itoa(*f.OperatorID) + " " + f.Operator
	}
	return s
}
