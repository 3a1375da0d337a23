package sqlops

// Execution statuses, as Spark's History Server REST API names them.
const (
	StatusRunning   = "RUNNING"
	StatusCompleted = "COMPLETED"
	StatusFailed    = "FAILED"
)

// Execution is one SQL query execution with its final plan's operators.
type Execution struct {
	ExecutionID int64      `json:"executionId"`
	Description string     `json:"description"`
	Start       int64      `json:"start"` // epoch ms
	End         int64      `json:"end"`   // epoch ms, 0 while running
	Status      string     `json:"status"`
	Operators   []Operator `json:"operators"`
	// DroppedPlanNodes counts plan nodes cut away because a plan version
	// had more than Options.MaxPlanNodes.
	DroppedPlanNodes int64 `json:"droppedPlanNodes,omitempty"`
}

// Operator is one plan node. Ids are pre-order positions in the final
// plan (0 is the root); nodes only found in earlier AQE plan versions
// whose accumulators got values follow, marked Superseded.
type Operator struct {
	ID         int    `json:"id"`
	Name       string `json:"name"`
	ParentID   *int   `json:"parentId"`
	Engine     string `json:"engine"`
	Superseded bool   `json:"superseded,omitempty"`
	// Metrics holds each SQL metric's total in base units: seconds for
	// timing and nsTiming, bytes for size, counts for sum; average
	// metrics give the mean per-task value.
	Metrics map[string]float64 `json:"metrics"`
	// ExclusiveSeconds is the operator's own time: a native per-operator
	// time as it is; else, from an inclusive time, the inclusive time for
	// blocking operators and inclusive − children for pipelined ones.
	// Task time summed over tasks, except driver-side broadcast times.
	ExclusiveSeconds float64 `json:"exclusiveSeconds"`
	// PeakMemoryBytes is the largest per-task peak memory the operator
	// reported (0 when it reports none).
	PeakMemoryBytes float64 `json:"peakMemoryBytes,omitempty"`
	SpillBytes      float64 `json:"spillBytes,omitempty"`
	SpillRows       float64 `json:"spillRows,omitempty"`
	Join            *Join   `json:"join,omitempty"`
	Scan            *Scan   `json:"scan,omitempty"`
}

// Join is a join's split into build and probe phases (Gluten reports
// both; Photon only the build time, so the probe time is its exclusive
// time minus the build, marked estimated).
type Join struct {
	BuildSeconds           float64 `json:"buildSeconds"`
	ProbeSeconds           float64 `json:"probeSeconds"`
	ProbeEstimated         bool    `json:"probeEstimated,omitempty"`
	BuildRows              float64 `json:"buildRows"`
	ProbeRows              float64 `json:"probeRows"`
	BuildSpillBytes        float64 `json:"buildSpillBytes"`
	ProbeSpillBytes        float64 `json:"probeSpillBytes"`
	DynamicFiltersProduced float64 `json:"dynamicFiltersProduced"`
	RowsReplacedByFilter   float64 `json:"rowsReplacedByFilter"`
}

// Scan is what a native scan reports about its I/O and pushdown.
type Scan struct {
	StorageReadBytes       float64 `json:"storageReadBytes"`
	LocalReadBytes         float64 `json:"localReadBytes"`
	RAMReadBytes           float64 `json:"ramReadBytes"`
	HasTiers               bool    `json:"hasTiers"`
	IOWaitSeconds          float64 `json:"ioWaitSeconds"`
	ReadSeconds            float64 `json:"readSeconds"`
	SkippedSplits          float64 `json:"skippedSplits"`
	ProcessedSplits        float64 `json:"processedSplits"`
	SkippedStrides         float64 `json:"skippedStrides"`
	ProcessedStrides       float64 `json:"processedStrides"`
	HasSkipping            bool    `json:"hasSkipping"` // the engine reports split/stride skipping
	HasFilter              bool    `json:"hasFilter"`   // the plan pushes a data filter into the scan
	DynamicFiltersAccepted float64 `json:"dynamicFiltersAccepted"`
}
