package process

import (
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

// shared remembers what the registered "process" collector was built with,
// so that other collectors reuse its discovery instead of scanning /proc
// a second time.
var shared struct {
	mu    sync.Mutex
	agent *Agent
	opts  *Options // the flag-filled options of the registration
}

// Shared returns the Agent of the process collector when it is enabled
// (built by its registered factory), else nil.
func Shared() *Agent {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	return shared.agent
}

// FlagOptions returns the node agent options as set on the command line
// (--path.procfs, --process.discovery-interval, …), for a collector that
// must run discovery itself because the process collector is off.
func FlagOptions() Options {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.opts == nil {
		return Options{}
	}
	return *shared.opts
}

func setShared(a *Agent) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	shared.agent = a
}

func setFlagOptions(o *Options) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	shared.opts = o
}
