package process

import (
	"log/slog"
	"slices"
	"sync"
)

// JVM is one live tracked process, for collectors that act on processes
// themselves (the stack sampler attaches to them).
type JVM struct {
	PID       int
	StartTime uint64 // clock ticks after boot; with PID it names the process
	Identity
}

// JVMs lists the live tracked processes, sorted by pid.
func (a *Agent) JVMs() []JVM {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]JVM, 0, len(a.tracked))
	for pid, t := range a.tracked {
		out = append(out, JVM{PID: pid, StartTime: t.starttime, Identity: t.series.id})
	}
	slices.SortFunc(out, func(x, y JVM) int { return x.PID - y.PID })
	return out
}

// Discovery is the node's one JVM discovery: an Agent built on first use,
// shared by every collector that needs it (the process collector samples
// it; the stack sampler lists its JVMs). The command builds one Discovery
// and hands it to both collectors, so /proc is never scanned twice.
type Discovery struct {
	// Options are the node agent's (--path.procfs, --process.*, --energy.*),
	// filled by the command line before any collector is built.
	Options Options

	mu      sync.Mutex
	agent   *Agent
	sampled bool // the process collector runs the agent's loop
}

// NewDiscovery returns a discovery with default options; its agent is not
// built until a collector asks for it.
func NewDiscovery() *Discovery { return &Discovery{} }

// Agent returns the shared agent, building it with logger on first use.
func (d *Discovery) Agent(logger *slog.Logger) (*Agent, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.agent != nil {
		return d.agent, nil
	}
	a, err := New(d.Options, logger)
	if err != nil {
		return nil, err
	}
	d.agent = a
	return a, nil
}

// sample returns the agent for the process collector, which runs its loop.
func (d *Discovery) sample(logger *slog.Logger) (*Agent, error) {
	a, err := d.Agent(logger)
	if err == nil {
		d.mu.Lock()
		d.sampled = true
		d.mu.Unlock()
	}
	return a, err
}

// Sampled reports whether the process collector runs the shared agent's
// loop; if not, a collector using the agent must run it itself.
func (d *Discovery) Sampled() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.sampled
}
