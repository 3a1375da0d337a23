package sqlops

import (
	"cmp"
	"slices"
)

// OtherOperators is the label of the operators beyond the top N.
const OtherOperators = "other"

// OperatorTotals is one operator label's totals over an application's
// executions: what the spark_sql_operator_* metrics expose.
type OperatorTotals struct {
	Operator        string  // Label(node name), or OtherOperators
	Count           int     // operators summed in
	TimeSeconds     float64 // Σ exclusive seconds (spark_sql_operator_time_seconds_total)
	SpillBytes      float64 // Σ spill bytes (spark_sql_operator_spill_bytes_total)
	PeakMemoryBytes float64 // largest per-task peak (spark_sql_operator_peak_memory_bytes)
}

// Summary is everything the spark_sql_* metrics of one application need,
// with bounded cardinality.
type Summary struct {
	ExecutionsByStatus map[string]int // spark_sql_executions_total{status}
	DurationsSeconds   []float64      // finished executions' end − start (spark_sql_execution_duration_seconds)
	Operators          []OperatorTotals
}

// Summarize totals executions per operator label and keeps the maxOperators
// labels with the most exclusive time (ties by name); the rest are summed
// as OtherOperators (time and spill added, peak memory the largest).
// maxOperators ≤ 0 keeps every label.
func Summarize(execs []Execution, maxOperators int) Summary {
	s := Summary{ExecutionsByStatus: map[string]int{}}
	byLabel := map[string]*OperatorTotals{}
	for i := range execs {
		e := &execs[i]
		s.ExecutionsByStatus[e.Status]++
		if e.Status != StatusRunning && e.End >= e.Start && e.Start > 0 {
			s.DurationsSeconds = append(s.DurationsSeconds, float64(e.End-e.Start)/1e3)
		}
		for j := range e.Operators {
			o := &e.Operators[j]
			l := Label(o.Name)
			t := byLabel[l]
			if t == nil {
				t = &OperatorTotals{Operator: l}
				byLabel[l] = t
			}
			t.Count++
			t.TimeSeconds += o.ExclusiveSeconds
			t.SpillBytes += o.SpillBytes
			t.PeakMemoryBytes = max(t.PeakMemoryBytes, o.PeakMemoryBytes)
		}
	}
	all := make([]OperatorTotals, 0, len(byLabel))
	for _, t := range byLabel {
		all = append(all, *t)
	}
	slices.SortFunc(all, func(x, y OperatorTotals) int {
		return cmp.Or(cmp.Compare(y.TimeSeconds, x.TimeSeconds), cmp.Compare(x.Operator, y.Operator))
	})
	if maxOperators <= 0 || len(all) <= maxOperators {
		s.Operators = all
		return s
	}
	other := OperatorTotals{Operator: OtherOperators}
	for _, t := range all[maxOperators:] {
		other.Count += t.Count
		other.TimeSeconds += t.TimeSeconds
		other.SpillBytes += t.SpillBytes
		other.PeakMemoryBytes = max(other.PeakMemoryBytes, t.PeakMemoryBytes)
	}
	s.Operators = append(all[:maxOperators:maxOperators], other)
	return s
}
