package stacks

import (
	"cmp"
	"maps"
	"slices"
	"time"
)

// Snapshot is the model as of the last finished dump or tick: what Update
// exports. It is immutable once published.
type Snapshot struct {
	Time    time.Time
	Targets []TargetSnapshot // sorted by key
}

// TargetSnapshot is one target's figures.
type TargetSnapshot struct {
	Target
	Totals    Counts            // task-thread samples per state since first seen
	Window    Window            // over the last --stacks.window
	Errors    map[string]uint64 // failed dumps by reason
	Durations histogram         // successful dumps
	FirstSeen time.Time         // when sampling began: the counters' start
}

// Snapshot returns the latest published snapshot (nil before the first tick).
func (c *Collector) Snapshot() *Snapshot { return c.snap.Load() }

// publishLocked builds and publishes a snapshot; called with c.mu held.
func (c *Collector) publishLocked(now time.Time) {
	s := &Snapshot{Time: now, Targets: make([]TargetSnapshot, 0, len(c.targets))}
	for key, st := range c.targets {
		s.Targets = append(s.Targets, TargetSnapshot{
			Target: st.target, Totals: c.sampler.Totals(key), Window: c.sampler.Window(key, now),
			Errors: maps.Clone(st.errors), Durations: st.durations.clone(), FirstSeen: st.firstSeen,
		})
	}
	slices.SortFunc(s.Targets, func(a, b TargetSnapshot) int { return cmp.Compare(a.Key(), b.Key()) })
	c.snap.Store(s)
}

// durationBuckets suit a dump: a few ms for a small JVM, up to seconds for
// thousands of threads or a slow REST round trip.
var durationBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// histogram counts observations per bucket of durationBuckets.
type histogram struct {
	count   uint64
	sum     float64
	buckets []uint64 // cumulative is computed at export
}

func (h *histogram) observe(v float64) {
	if h.buckets == nil {
		h.buckets = make([]uint64, len(durationBuckets))
	}
	h.count++
	h.sum += v
	if i, _ := slices.BinarySearch(durationBuckets, v); i < len(durationBuckets) {
		h.buckets[i]++
	}
}

func (h histogram) clone() histogram {
	h.buckets = slices.Clone(h.buckets)
	return h
}

// cumulative returns Prometheus' upper bound → cumulative count map.
func (h histogram) cumulative() map[float64]uint64 {
	out := make(map[float64]uint64, len(durationBuckets))
	var acc uint64
	for i, ub := range durationBuckets {
		if h.buckets != nil {
			acc += h.buckets[i]
		}
		out[ub] = acc
	}
	return out
}
