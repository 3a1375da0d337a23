package sqlops

import "math"

// accum is one SQL accumulator's state: task and driver updates folded
// as they arrive, plus the last cumulative value Spark recorded (the
// "Value" of a task accumulable), for the self-check.
type accum struct {
	taskSum, driverSum int64
	max, min           int64 // over task and driver updates
	n                  int64 // updates with a value (for "average")
	last               int64 // last recorded cumulative value
	hasLast            bool
}

func newAccum() *accum { return &accum{max: math.MinInt64, min: math.MaxInt64} }

// unset is Spark's "no value" for size and timing metrics (their initial
// value); such updates are skipped.
func unset(v int64) bool { return v < 0 }

func (a *accum) add(v int64, driver bool) {
	if unset(v) {
		return
	}
	if driver {
		a.driverSum += v
	} else {
		a.taskSum += v
	}
	a.n++
	a.max = max(a.max, v)
	a.min = min(a.min, v)
}

func (a *accum) hasValue() bool { return a.n > 0 }

// Metric types as Spark writes them, plus Photon's extra ones.
const (
	typeSum      = "sum"
	typeSize     = "size"     // bytes
	typeTiming   = "timing"   // ms
	typeNsTiming = "nsTiming" // ns
	typeAverage  = "average"  // per-task value × 10
	typeMaximum  = "maximum"  // Photon
	typeMinimum  = "minimum"  // Photon
)

// avgBase is Spark's scale for average metrics (SQLMetrics.baseForAvgMetric).
const avgBase = 10

// total is the accumulator's value in base units: seconds, bytes or
// counts. Average metrics give the mean of the per-task averages;
// Photon's maximum/minimum metrics the extreme update.
func (a *accum) total(metricType string) float64 {
	if !a.hasValue() {
		return 0
	}
	sum := float64(a.taskSum + a.driverSum)
	switch metricType {
	case typeTiming:
		return sum / 1e3
	case typeNsTiming:
		return sum / 1e9
	case typeAverage:
		return sum / float64(a.n) / avgBase
	case typeMaximum:
		return float64(a.max)
	case typeMinimum:
		return float64(a.min)
	}
	return sum
}

// largest is the largest single update in base units (a per-task peak).
func (a *accum) largest(metricType string) float64 {
	if !a.hasValue() {
		return 0
	}
	switch metricType {
	case typeTiming:
		return float64(a.max) / 1e3
	case typeNsTiming:
		return float64(a.max) / 1e9
	}
	return float64(a.max)
}

// combined is what Spark's driver-side accumulator holds after all
// updates, in raw units, to compare with the recorded cumulative value.
func (a *accum) combined(metricType string) int64 {
	switch metricType {
	case typeMaximum:
		return a.max
	case typeMinimum:
		return a.min
	}
	return a.taskSum + a.driverSum
}
