package analysis

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Cost defaults: Google Cloud Compute Engine's on-demand price of an N2
// predefined vCPU and GiB of memory in us-central1 (docs/metrics.md gives
// the source and date). A cloud list price splits a VM's hourly price
// into these two parts, which is what Spark allocates.
const (
	DefaultCostCoreHour      = 0.031611
	DefaultCostMemoryGiBHour = 0.004237
	DefaultCostCurrency      = "USD"
)

// CostModel prices allocated executor time: a core-hour and a GiB-hour of
// executor memory (spark.executor.memory plus its overhead). CoreHour 0
// turns cost off.
type CostModel struct {
	CoreHour      float64 `json:"coreHour"`
	MemoryGiBHour float64 `json:"memoryGibHour"`
	Currency      string  `json:"currency"`
}

// DefaultCostModel returns the documented on-demand prices.
func DefaultCostModel() CostModel {
	return CostModel{CoreHour: DefaultCostCoreHour, MemoryGiBHour: DefaultCostMemoryGiBHour, Currency: DefaultCostCurrency}
}

// Cost is what an application's allocation cost: its available core-hours
// and executor memory GiB-hours at the model's prices. Wasted is the share
// of Total that the idle allocated core time stands for; stages get Total
// by their share of task run time.
type Cost struct {
	Model           CostModel   `json:"model"`
	CoreHours       float64     `json:"coreHours"`
	MemoryGiBHours  float64     `json:"memoryGibHours"`
	Total           float64     `json:"total"`
	WastedCoreHours float64     `json:"wastedCoreHours"`
	Wasted          float64     `json:"wasted"`
	Stages          []StageCost `json:"stages"`
}

// StageCost is one stage attempt's share of the application's cost.
type StageCost struct {
	StageID   int     `json:"stageId"`
	AttemptID int     `json:"attemptId"`
	Cost      float64 `json:"cost"`
}

// Spark's defaults for executor memory and its overhead
// (spark.executor.memoryOverhead = max(384 MiB, factor × memory)).
const (
	defaultExecutorMemory   = 1 << 30
	minMemoryOverhead       = 384 << 20
	defaultOverheadFactor   = 0.10
	defaultDriverMemoryCost = 1 << 30
)

// ExecutorMemoryBytes is one executor's container memory as Spark sizes it:
// spark.executor.memory plus spark.executor.memoryOverhead (or the
// overhead factor of it, at least 384 MiB).
func ExecutorMemoryBytes(props map[string]string) float64 {
	mem := int64(defaultExecutorMemory)
	if b, ok := parseJVMSize(props["spark.executor.memory"]); ok {
		mem = b
	}
	if b, ok := parseJVMSize(props["spark.executor.memoryOverhead"]); ok {
		return float64(mem + b)
	}
	factor := defaultOverheadFactor
	if f, err := strconv.ParseFloat(strings.TrimSpace(props["spark.executor.memoryOverheadFactor"]), 64); err == nil && f >= 0 {
		factor = f
	}
	return float64(mem) + max(minMemoryOverhead, factor*float64(mem))
}

// cost prices r's allocation; nil when cost is off.
func (a *App) cost(r *Report) *Cost {
	m := a.cfg.Cost
	if m.CoreHour <= 0 {
		return nil
	}
	if m.Currency == "" {
		m.Currency = DefaultCostCurrency
	}
	c := &Cost{Model: m, CoreHours: r.Totals.AvailableCoreSecs / 3600, Stages: []StageCost{}}
	if len(r.Intervals) > 0 && a.cfg.CPUs <= 0 {
		from, to := r.Intervals[0].Start, r.Intervals[len(r.Intervals)-1].End
		execMem := ExecutorMemoryBytes(a.props)
		driverMem := float64(defaultDriverMemoryCost)
		if b, ok := parseJVMSize(a.props["spark.driver.memory"]); ok {
			driverMem = float64(b)
		}
		for _, l := range a.coreLives(r.Start, r.End) {
			lo, hi := max(l.from, from), min(l.to, to)
			if hi <= lo || l.cores <= 0 {
				continue
			}
			mem := execMem
			if l.exec == "driver" { // local mode: the driver JVM is the executor
				mem = driverMem
			}
			c.MemoryGiBHours += mem / (1 << 30) * float64(hi-lo) / 3.6e6
		}
	}
	c.Total = c.CoreHours*m.CoreHour + c.MemoryGiBHours*m.MemoryGiBHour
	if r.CPUTimeAvailable && r.Totals.AvailableCoreSecs > 0 {
		c.WastedCoreHours = max(0, r.Totals.AvailableCoreSecs-r.Totals.CPUSeconds) / 3600
		c.Wasted = c.Total * c.WastedCoreHours / c.CoreHours
	}
	var run int64
	for i := range r.Stages {
		run += r.Stages[i].ExecutorRunTime
	}
	if run > 0 {
		for i := range r.Stages {
			s := &r.Stages[i]
			c.Stages = append(c.Stages, StageCost{StageID: s.StageID, AttemptID: s.AttemptID, Cost: c.Total * float64(s.ExecutorRunTime) / float64(run)})
		}
	}
	return c
}

// writeCost prints the cost line and the stages that cost most.
func writeCost(w io.Writer, r Report) {
	c := r.Cost
	if c == nil {
		return
	}
	cur := c.Model.Currency
	fmt.Fprintf(w, "cost %s (%.3g core-hours × %g + %.3g memory GiB-hours × %g per hour)", FormatMoney(c.Total, cur),
		c.CoreHours, c.Model.CoreHour, c.MemoryGiBHours, c.Model.MemoryGiBHour)
	if r.CPUTimeAvailable {
		fmt.Fprintf(w, ", wasted %s (%.3g idle core-hours)", FormatMoney(c.Wasted, cur), c.WastedCoreHours)
	}
	fmt.Fprintln(w)
	if len(c.Stages) == 0 || c.Total <= 0 {
		return
	}
	idx := make([]int, len(c.Stages))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(c.Stages[b].Cost, c.Stages[a].Cost) })
	fmt.Fprint(w, "  most cost: ")
	for n, i := range idx[:min(3, len(idx))] {
		s := c.Stages[i]
		if n > 0 {
			fmt.Fprint(w, ", ")
		}
		fmt.Fprintf(w, "stage %d.%d %s (%.0f%%)", s.StageID, s.AttemptID, FormatMoney(s.Cost, cur), 100*s.Cost/c.Total)
	}
	fmt.Fprintln(w)
}

// FormatMoney renders an amount with its currency: 12.34 USD, 0.0561 USD.
func FormatMoney(x float64, currency string) string {
	if math.Abs(x) >= 1 || x == 0 {
		return fmt.Sprintf("%.2f %s", x, currency)
	}
	return fmt.Sprintf("%.3g %s", x, currency)
}
