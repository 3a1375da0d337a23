package sqlops

import "strings"

// Engine names the runtime that executed an operator.
const (
	EngineSpark  = "spark"
	EngineGluten = "gluten" // Apache Gluten (Velox backend names)
	EnginePhoton = "photon" // Databricks Photon
	EngineRapids = "rapids" // NVIDIA RAPIDS Accelerator
)

// role says what a plan metric means to the analysis; one metric may have
// several (Gluten's "time of hash build" is both own time and build time).
type role uint32

const (
	roleOwnTime       role = 1 << iota // the operator's own (exclusive) time, summed when several
	roleInclusiveTime                  // time including the same-stage children below
	roleFetchWait                      // exchange reduce-side wait: own time, spent in the reading stage
	rolePeakMemory                     // per-task peak memory
	roleSpillBytes
	roleSpillRows
	roleBuildTime
	roleProbeTime
	roleBuildRows
	roleProbeRows
	roleBuildSpillBytes
	roleProbeSpillBytes
	roleFiltersProduced // dynamic (runtime) filters a join produced
	roleFiltersAccepted // dynamic filters a scan accepted
	roleFilterReplacedRows
	roleStorageBytes // scan bytes read from remote storage (cache misses)
	roleLocalBytes   // scan bytes read from the local SSD cache
	roleRAMBytes     // scan bytes read from the in-memory cache
	roleIOWait
	roleReadTime // data-source read time of a scan
	roleSkippedSplits
	roleProcessedSplits
	roleSkippedStrides
	roleProcessedStrides
)

// The metric tables: display names exactly as they appear in
// sparkPlanInfo.metrics[].name. An engine's own table is consulted first,
// then Spark's, since native operators also carry some Spark metrics.
//
// Sources, read (not copied):
//   - Spark: sql/core SQLMetrics users (SortExec, HashAggregateExec,
//     ShuffleExchangeExec, BroadcastExchangeExec, ShuffledHashJoinExec,
//     WholeStageCodegenExec, FileSourceScanExec), checked against the real
//     logs under shared/spark-events.
//   - Gluten: backends-velox VeloxMetricsApi (gen*TransformerMetrics). Its
//     "cpu wall time count" (cpuCount) counts batches, not CPU time, so it
//     has no role. Velox wall times ("time of …") are per operator and are
//     used as they are; a parent's wall time may include waiting on its
//     children, so they are never summed up the tree.
//   - Photon: node and metric names of nds_q88_photon_db_13_3 (Databricks
//     13.3): "exclusive time" / "cumulative time" per operator, the disk
//     cache hit/miss sizes as I/O tiers.
//   - RAPIDS: the Gpu* nodes of gpu_oom_eventlog: "op time" per operator.
var (
	sparkRoles = map[string]role{
		"duration":                  roleInclusiveTime, // WholeStageCodegen pipeline time; also DataFlint's TimedExec
		"sort time":                 roleOwnTime,
		"time in aggregation build": roleOwnTime,
		"time to build hash map":    roleOwnTime | roleBuildTime,
		"shuffle write time":        roleOwnTime,
		"fetch wait time":           roleFetchWait,
		"time to collect":           roleOwnTime, // broadcast exchange, on the driver
		"time to build":             roleOwnTime,
		"time to broadcast":         roleOwnTime,
		"scan time":                 roleOwnTime | roleReadTime,
		"peak memory":               rolePeakMemory,
		"spill size":                roleSpillBytes,
	}
	glutenRoles = map[string]role{
		"time of input iterator":       roleOwnTime,
		"time of batch scan":           roleOwnTime,
		"time of scan and filter":      roleOwnTime,
		"scan time":                    roleReadTime, // part of the scan's wall time
		"time of scan":                 roleReadTime,
		"time of filter":               roleOwnTime,
		"time of project":              roleOwnTime,
		"time of aggregation":          roleOwnTime,
		"time of rowConstruction":      roleOwnTime,
		"time of extraction":           roleOwnTime,
		"time of expand":               roleOwnTime,
		"time of window":               roleOwnTime,
		"time of limit":                roleOwnTime,
		"time of sort":                 roleOwnTime,
		"time of merge join":           roleOwnTime,
		"time of NestedLoopJoin":       roleOwnTime,
		"time of write":                roleOwnTime,
		"time of hash build":           roleOwnTime | roleBuildTime,
		"time of hash probe":           roleOwnTime | roleProbeTime,
		"time to build preProjection":  roleOwnTime | roleBuildTime,
		"time of stream preProjection": roleOwnTime | roleProbeTime,
		"time of buffer preProjection": roleOwnTime | roleBuildTime,
		"time of postProjection":       roleOwnTime,
		"shuffle wall time":            roleOwnTime,
		"time to convert":              roleOwnTime,
		"duration":                     0, // WholeStageTransformer: its operators' wall times already hold the time

		"peak memory bytes":            rolePeakMemory,
		"hash build peak memory bytes": rolePeakMemory,
		"hash probe peak memory bytes": rolePeakMemory,
		"peak bytes allocated":         rolePeakMemory,

		"number of spilled bytes":                       roleSpillBytes,
		"number of spilled rows":                        roleSpillRows,
		"bytes written for spilling":                    roleSpillBytes,
		"total rows written for spilling":               roleSpillRows,
		"shuffle bytes spilled":                         roleSpillBytes,
		"bytes written for spilling of hash build":      roleSpillBytes | roleBuildSpillBytes,
		"total rows written for spilling of hash build": roleSpillRows,
		"bytes written for spilling of hash probe":      roleSpillBytes | roleProbeSpillBytes,
		"total rows written for spilling of hash probe": roleSpillRows,

		"number of hash build input rows":                        roleBuildRows,
		"number of hash probe input rows":                        roleProbeRows,
		"number of hash probe dynamic filters produced":          roleFiltersProduced,
		"number of hash probe replaced with dynamic filter rows": roleFilterReplacedRows,
		"number of dynamic filters accepted":                     roleFiltersAccepted,

		"storage read bytes":   roleStorageBytes,
		"local ssd read bytes": roleLocalBytes,
		"ram read bytes":       roleRAMBytes,
		"io wait time":         roleIOWait,

		"number of skipped splits":       roleSkippedSplits,
		"number of processed splits":     roleProcessedSplits,
		"number of skipped row groups":   roleSkippedStrides,
		"number of processed row groups": roleProcessedStrides,
	}
	photonRoles = map[string]role{
		"exclusive time":     roleOwnTime,
		"cumulative time":    roleInclusiveTime,
		"fetch wait time":    0,             // part of the exchange source's exclusive time
		"num hash lookups":   roleProbeRows, // one lookup per probe row
		"time in hash build": roleBuildTime,
		"peak memory usage":  rolePeakMemory,

		"num bytes spilled to disk due to memory pressure": roleSpillBytes,
		"num rows spilled to disk due to memory pressure":  roleSpillRows,
		"num bytes spilled from left side":                 roleSpillBytes,
		"num bytes spilled from right side":                roleSpillBytes,
		"num rows spilled from left side":                  roleSpillRows,
		"num rows spilled from right side":                 roleSpillRows,

		"cache misses size":                      roleStorageBytes,
		"cache hits size":                        roleLocalBytes,
		"executor time IO wait":                  roleIOWait,
		"row groups skipped via stats filtering": roleSkippedStrides,
		"row groups read actual":                 roleProcessedStrides,
	}
	rapidsRoles = map[string]role{
		"op time":         roleOwnTime,
		"GPU decode time": roleReadTime,
		"buffer time":     roleIOWait,
	}
)

// engineOf tells the engine from a plan node name.
func engineOf(nodeName string) string {
	first, _, _ := strings.Cut(nodeName, " ")
	switch {
	case strings.HasPrefix(first, "Photon"):
		return EnginePhoton
	case strings.HasPrefix(first, "Gpu"):
		return EngineRapids
	case strings.Contains(first, "Transformer"), strings.HasPrefix(first, "Velox"), strings.HasPrefix(first, "CH"),
		first == "ColumnarExchange", first == "ColumnarBroadcastExchange", first == "ColumnarSubqueryBroadcast",
		first == "RowToVeloxColumnar", first == "ColumnarUnion", first == "ColumnarRange":
		return EngineGluten
	}
	return EngineSpark
}

// roleOf looks a metric up in the engine's table, then in Spark's.
func roleOf(engine, metric string) role {
	var t map[string]role
	switch engine {
	case EngineGluten:
		t = glutenRoles
	case EnginePhoton:
		t = photonRoles
	case EngineRapids:
		t = rapidsRoles
	}
	if r, ok := t[metric]; ok {
		return r
	}
	return sparkRoles[metric]
}

// baseKind reduces a node name to its operator kind across engines:
// "PhotonProject", "ProjectExecTransformer", "GpuProject" and "Project"
// all give "Project"; "ScanTransformer parquet t" gives "Scan".
func baseKind(nodeName string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(nodeName), " ")
	for _, p := range []string{"Photon", "Gpu", "Velox", "CH"} {
		if len(first) > len(p) && strings.HasPrefix(first, p) && first[len(p)] >= 'A' && first[len(p)] <= 'Z' {
			first = first[len(p):]
			break
		}
	}
	for _, s := range []string{"ExecTransformer", "Transformer", "Exec"} {
		if len(first) > len(s) && strings.HasSuffix(first, s) {
			first = first[:len(first)-len(s)]
			break
		}
	}
	switch first {
	case "FileScan", "BatchScan", "FileSourceScan", "HiveTableScan", "HiveScan":
		return "Scan"
	case "ShuffleExchange", "ColumnarExchange", "ShuffleExchangeSink":
		return "Exchange"
	case "ColumnarBroadcastExchange":
		return "BroadcastExchange"
	}
	return first
}

// Label is the bounded operator name used as a metric label: the node
// name without table names or codegen stage numbers ("Scan parquet",
// "WholeStageCodegen", "PhotonShuffleExchangeSink").
func Label(nodeName string) string {
	name := strings.TrimSpace(nodeName)
	if baseKind(name) == "Scan" {
		f := strings.Fields(name)
		if len(f) > 2 {
			f = f[:2]
		}
		return strings.Join(f, " ")
	}
	if i := strings.Index(name, " ("); i > 0 && strings.HasSuffix(name, ")") {
		name = name[:i]
	}
	return name
}

func isFilterOrProject(kind string) bool { return kind == "Filter" || kind == "Project" }

func isScan(kind string) bool { return kind == "Scan" }

func isJoin(kind string) bool { return strings.HasSuffix(kind, "Join") }

// isBoundary: exchanges and AQE query stages split the plan into stages;
// a parent's time never includes the work below them.
func isBoundary(nodeName, kind string) bool {
	switch kind {
	case "Exchange", "BroadcastExchange", "ReusedExchange":
		return true
	}
	return strings.HasSuffix(strings.TrimSpace(nodeName), "QueryStage")
}

// isBlocking: operators that consume all input before producing output;
// their inclusive time is their own (DataFlint's rule).
func isBlocking(kind string) bool {
	switch kind {
	case "Sort", "HashAggregate", "ObjectHashAggregate", "SortAggregate", "Window", "RegularHashAggregate":
		return true
	}
	return false
}
