package process

import (
	"sync"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/internal/jvm/discovery"
)

// MeasuredEnergy hands the node agent's per-executor energy to another
// collector of the same process (the event-log collector divides it among
// the executor's stages). It is empty until the process collector runs.
type MeasuredEnergy struct {
	mu    sync.Mutex
	agent *Agent
}

// NewMeasuredEnergy returns an empty MeasuredEnergy, to be given to
// RegisterSharingEnergy and to its reader.
func NewMeasuredEnergy() *MeasuredEnergy { return &MeasuredEnergy{} }

// Attach hands a to m: what RegisterSharingEnergy does once the collector is
// built, and what a program running an Agent itself calls.
func (m *MeasuredEnergy) Attach(a *Agent) {
	m.mu.Lock()
	m.agent = a
	m.mu.Unlock()
}

// ExecutorJoules returns the energy the agent attributed so far to each
// Spark executor of appID on this node (all power sources summed), by
// executor id; nil when the agent does not run or saw none.
func (m *MeasuredEnergy) ExecutorJoules(appID string) map[string]float64 {
	m.mu.Lock()
	a := m.agent
	m.mu.Unlock()
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	var out map[string]float64
	for _, s := range a.series {
		if s.id.Framework != discovery.FrameworkSpark || s.id.Role != discovery.RoleExecutor || s.id.AppID != appID {
			continue
		}
		if out == nil {
			out = map[string]float64{}
		}
		for _, j := range s.energy {
			out[s.id.ExecutorID] += j
		}
	}
	return out
}

// RegisterSharingEnergy is Register, also handing the agent's energy to m
// once the collector is built.
func RegisterSharingEnergy(cat *exporter.Catalog, d *discovery.Service, m *MeasuredEnergy, tdpWatts *float64) {
	register(cat, d, tdpWatts, func(a *Agent) {
		if m != nil {
			m.Attach(a)
		}
	})
}
