package eventlog

import (
	"maps"

	"github.com/sparkglance/sparkglance/internal/analysis"
)

// settledTotals are the spark_*_settled_*_total counters of one
// application attempt: the sums of its intervals that have settled, each
// added exactly once, when it settles. A scrape then sees every interval's
// values even when several settle between two scrapes, and the ratio of
// two counters' increases is the true share over any range.
type settledTotals struct {
	throughMs int64      // end of the last interval added
	task      [4]float64 // seconds, by intervalCategories: cpu, shuffle, serde, gc
	core      float64    // available core-seconds
	spill     map[string][2]float64
}

// add takes in the intervals of r that settled since the last call.
// Intervals are disjoint and sorted, and a settled one never changes again
// (for a live log, settled means no running task started before its end),
// so adding each one once keeps the counters exact.
func (s *settledTotals) add(r *analysis.Report) {
	for i := range r.Intervals {
		iv := &r.Intervals[i]
		if !iv.Settled || iv.Start < s.throughMs {
			continue
		}
		s.task[0] += iv.CPUSeconds
		s.task[1] += iv.ShuffleSeconds
		s.task[2] += iv.SerdeSeconds
		s.task[3] += iv.GCSeconds
		s.core += iv.AvailableCoreSeconds
		for _, sp := range iv.Spill {
			if s.spill == nil {
				s.spill = map[string][2]float64{}
			}
			v := s.spill[sp.ExecutorID]
			s.spill[sp.ExecutorID] = [2]float64{v[0] + sp.MemoryBytes, v[1] + sp.DiskBytes}
		}
		s.throughMs = iv.End
	}
}

// clone is a copy a view can keep while the totals go on growing.
func (s *settledTotals) clone() settledTotals {
	c := *s
	c.spill = maps.Clone(s.spill)
	return c
}

// exported is the copy a view exports. Prometheus' increase() counts a
// counter from its first scraped value, so a series that appears above 0
// loses that value: holdApp exports the application's counters at 0, and
// an executor newExec names exports its spill at 0. The caller publishes
// another view soon, which shows what was held back; held says whether
// anything was.
func (s *settledTotals) exported(holdApp bool, newExec func(id string) bool) (c settledTotals, held bool) {
	c = s.clone()
	if holdApp && (c.core != 0 || c.task != [4]float64{}) {
		c.task, c.core, held = [4]float64{}, 0, true
	}
	for id, v := range c.spill {
		if v != [2]float64{} && (holdApp || newExec(id)) {
			delete(c.spill, id)
			held = true
		}
	}
	return c, held
}
