package sqlops

import (
	"cmp"
	"slices"
)

// Mismatch is an accumulator whose updates do not add up to the
// cumulative value Spark recorded for it.
type Mismatch struct {
	AccumulatorID int64  `json:"accumulatorId"`
	MetricType    string `json:"metricType"`
	Recorded      int64  `json:"recorded"` // last "Value" of a task accumulable
	Summed        int64  `json:"summed"`   // Σ task updates + Σ driver updates (max/min for Photon's extremes)
}

// CheckResult is the log's self-check: for every SQL accumulator whose
// cumulative value Spark recorded, task plus driver updates must equal it.
type CheckResult struct {
	Checked    int        `json:"checked"` // accumulators with a recorded value
	Mismatches []Mismatch `json:"mismatches"`
	// Unmapped counts accumulators updated that no plan names (their
	// values reach no operator) and updates dropped with pending full.
	Unmapped int64 `json:"unmapped"`
}

// Check runs the self-check over the accumulators kept so far.
func (m *Model) Check() CheckResult {
	r := CheckResult{Unmapped: m.unmapped + int64(len(m.pending))}
	for id, a := range m.accs {
		r.check(id, a, m.accType[id])
	}
	for id, a := range m.pending {
		r.check(id, a, typeSum)
	}
	slices.SortFunc(r.Mismatches, func(x, y Mismatch) int { return cmp.Compare(x.AccumulatorID, y.AccumulatorID) })
	return r
}

func (r *CheckResult) check(id int64, a *accum, typ string) {
	if !a.hasLast {
		return
	}
	r.Checked++
	recorded := a.last
	if unset(recorded) {
		recorded = 0
	}
	got := a.combined(typ)
	if !a.hasValue() {
		got = 0
	}
	if got != recorded {
		r.Mismatches = append(r.Mismatches, Mismatch{AccumulatorID: id, MetricType: typ, Recorded: a.last, Summed: got})
	}
}
