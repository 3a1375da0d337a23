package process

import (
	"cmp"
	"maps"
	"slices"
	"time"

	"github.com/sparkglance/sparkglance/internal/jvm/discovery"
)

// Snapshot is a deep copy of the model at the last sample, for a reader
// that must not hold the agent's lock.
type Snapshot struct {
	Time time.Time // the last sample; zero before the first
	// Since is the first sample, when the node's energy counters began.
	Since       time.Time
	Sampled     bool   // at least one Sample has run
	PowerSource string // SourceRAPL or SourceTDP
	TDP         TDPInfo
	Series      []SeriesSnapshot    // sorted by Identity
	Node        []NodeEnergy        // sorted by source, zone
	Discovered  []DiscoveredProcess // live processes per (framework, role)
}

// SeriesSnapshot holds the counters of one (framework, role, app, executor).
type SeriesSnapshot struct {
	discovery.Identity
	discovery.Placement
	CPUSeconds   float64
	Load         float64            // last period; 0 once every process exited
	EnergyJoules map[string]float64 // by power source
	Live         int                // processes still running
	// Since is when the agent began the series' counters.
	Since time.Time
}

// NodeEnergy is the node's cumulative energy in one zone. For RAPL, zone
// "idle" is the part of package+dram energy not attributed to busy CPU.
type NodeEnergy struct {
	Source, Zone string
	Joules       float64
}

// DiscoveredProcess counts live tracked processes of one kind.
type DiscoveredProcess struct {
	Framework, Role string
	Count           int
}

// Snapshot returns a deep copy of the current counters.
func (a *Agent) Snapshot() Snapshot {
	a.mu.Lock()
	defer a.mu.Unlock()
	snap := Snapshot{
		Time: a.prevTime, Since: a.firstSample, Sampled: a.sampled, PowerSource: a.PowerSource(), TDP: a.tdp,
		Series: make([]SeriesSnapshot, 0, len(a.series)),
		Node:   make([]NodeEnergy, 0, len(a.node)),
	}
	for _, s := range a.series {
		snap.Series = append(snap.Series, SeriesSnapshot{
			Identity: s.id, Placement: s.placement,
			CPUSeconds: s.cpuSeconds, Load: s.load,
			EnergyJoules: maps.Clone(s.energy), Live: s.live, Since: s.since,
		})
	}
	slices.SortFunc(snap.Series, func(x, y SeriesSnapshot) int {
		return cmp.Or(cmp.Compare(x.Framework, y.Framework), cmp.Compare(x.Role, y.Role),
			cmp.Compare(x.AppID, y.AppID), cmp.Compare(x.ExecutorID, y.ExecutorID))
	})
	for k, j := range a.node {
		snap.Node = append(snap.Node, NodeEnergy{Source: k.source, Zone: k.zone, Joules: j})
	}
	slices.SortFunc(snap.Node, func(x, y NodeEnergy) int {
		return cmp.Or(cmp.Compare(x.Source, y.Source), cmp.Compare(x.Zone, y.Zone))
	})
	counts := map[[2]string]int{}
	for _, t := range a.tracked {
		counts[[2]string{t.series.id.Framework, t.series.id.Role}]++
	}
	for k, n := range counts {
		snap.Discovered = append(snap.Discovered, DiscoveredProcess{Framework: k[0], Role: k[1], Count: n})
	}
	slices.SortFunc(snap.Discovered, func(x, y DiscoveredProcess) int {
		return cmp.Or(cmp.Compare(x.Framework, y.Framework), cmp.Compare(x.Role, y.Role))
	})
	return snap
}

// Find returns the series of an identity, if present.
func (s Snapshot) Find(id discovery.Identity) (SeriesSnapshot, bool) {
	for _, ss := range s.Series {
		if ss.Identity == id {
			return ss, true
		}
	}
	return SeriesSnapshot{}, false
}
