package eventlog

import (
	"maps"
	"slices"
	"strconv"

	"github.com/sparkglance/sparkglance/internal/analysis"
)

// MeasuredEnergy is a node agent's energy per executor of an application
// (process.MeasuredEnergy, wired by the command when both collectors run
// in one serve process): cumulative joules by executor id, nil if none.
type MeasuredEnergy interface {
	ExecutorJoules(appID string) map[string]float64
}

// measuredSplit divides each executor's measured energy among its stages
// by the task CPU time each stage gained on it since the previous view.
// Energy measured while no task of the executor ended (tasks report CPU
// time when they end) waits for the next view with some, so that a long
// task gets the energy it burned; what never finds one stays the
// application's alone (idle executors).
type measuredSplit struct {
	prevJoules map[string]float64         // executor → joules at the previous view
	prevCPU    map[string]map[int]float64 // executor → stage id → CPU seconds at the previous view
	pending    map[string]float64         // executor → joules not yet given to a stage
	stage      map[int]float64            // stage id → measured joules
	app        float64                    // all measured joules of the application
	seen       bool                       // some executor was measured
}

// update takes in the energy measured since the last view and returns
// whether the application has measured energy at all.
func (m *measuredSplit) update(r *analysis.Report, src MeasuredEnergy) bool {
	if src == nil {
		return m.seen
	}
	joules := src.ExecutorJoules(r.AppID)
	if len(joules) == 0 {
		return m.seen
	}
	if m.prevJoules == nil {
		m.prevJoules, m.prevCPU, m.pending, m.stage = map[string]float64{}, map[string]map[int]float64{}, map[string]float64{}, map[int]float64{}
	}
	m.seen = true
	cpu := map[string]map[int]float64{} // executor → stage id → CPU seconds now
	for i := range r.Stages {
		s := &r.Stages[i]
		for exec, es := range s.ExecutorSummary {
			if joules[exec] == 0 && m.prevJoules[exec] == 0 {
				continue
			}
			if cpu[exec] == nil {
				cpu[exec] = map[int]float64{}
			}
			cpu[exec][s.StageID] += float64(es.ExecutorCPUTime) / 1e9
		}
	}
	// Sorted, so that the float sums come out the same at every publish: a
	// counter that lost an ulp between two scrapes would read as a reset.
	for _, exec := range slices.Sorted(maps.Keys(joules)) {
		j := joules[exec]
		d := j - m.prevJoules[exec]
		if d < 0 { // the agent restarted: its counter began again
			d = j
		}
		m.prevJoules[exec] = j
		m.app += d
		m.pending[exec] += d
		gained, total := map[int]float64{}, 0.0
		for _, id := range slices.Sorted(maps.Keys(cpu[exec])) {
			if g := cpu[exec][id] - m.prevCPU[exec][id]; g > 0 {
				gained[id] = g
				total += g
			}
		}
		m.prevCPU[exec] = maps.Clone(cpu[exec])
		if total <= 0 {
			continue
		}
		for _, id := range slices.Sorted(maps.Keys(gained)) {
			m.stage[id] += m.pending[exec] * gained[id] / total
		}
		m.pending[exec] = 0
	}
	return true
}

// applyMeasured adds the measured energy to v's stage rows (older stages
// into "other") and the application's total.
func (v *stagesView) applyMeasured(m *measuredSplit) {
	v.measured = true
	v.measuredWh = m.app / analysis.JoulesPerWattHour
	kept := map[string]int{}
	for i := range v.rows {
		kept[v.rows[i].id] = i
	}
	for _, id := range slices.Sorted(maps.Keys(m.stage)) {
		j := m.stage[id]
		i, ok := kept[strconv.Itoa(id)]
		if !ok {
			i, ok = kept[otherStage]
		}
		if ok {
			v.rows[i].measuredJoules += j
		}
	}
}
