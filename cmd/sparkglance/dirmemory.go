package main

import (
	"os"
	"runtime/debug"
	"sync"

	"github.com/sparkglance/sparkglance/internal/sparklog"
)

// A run that reads several logs (a directory) sizes its soft memory limit
// by what it reads at once: readBudget per log in flight, plus the big zstd
// windows those logs declare, following the live heap as one log's limit
// does (memoryLimitFor). And the collector runs when the heap reaches that
// limit, not each time it doubles (GOGC=100): a directory of small logs
// keeps only a few MiB live, so doubling meant a collection every few MiB
// allocated, about 40 for 40 logs of 2 MB, each stopping both cores and
// costing the two-core run a fifth more CPU than the one-core one
// (docs/performance.md, "Many logs"). A limit set by GOMEMLIMIT is left
// alone, and so is a GOGC set by the user (the limit then only caps).

// dirMemory is the limit of a directory run: the logs being read and their
// windows, and the heap the last collection left live.
type dirMemory struct {
	mu      sync.Mutex
	logs    int
	windows int64
	live    int64
	stopped bool
}

// limitDirMemory starts sizing the limit by the logs in flight: reading is
// appdoc.ReadOptions.Reading (nil when GOMEMLIMIT is set), stop restores
// the limit and GOGC found.
func limitDirMemory() (reading func(sparklog.Log) (done func()), stop func()) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return nil, func() {}
	}
	oldLimit := debug.SetMemoryLimit(-1)
	oldGC := -2 // not changed
	m := &dirMemory{}
	m.set()
	if _, set := os.LookupEnv("GOGC"); !set {
		oldGC = debug.SetGCPercent(-1)
	}
	stopFollowing := afterEachGC(func(live int64) {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.live = live
		m.set()
	})
	return m.reading, func() {
		stopFollowing()
		m.mu.Lock()
		defer m.mu.Unlock()
		m.stopped = true
		if oldGC != -2 {
			debug.SetGCPercent(oldGC)
		}
		debug.SetMemoryLimit(oldLimit)
	}
}

// reading counts l in flight until done is called.
func (m *dirMemory) reading(l sparklog.Log) (done func()) {
	window := bigWindowOf(l)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.logs++
	m.windows += window
	m.set()
	return func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.logs--
		m.windows -= window
		m.set()
	}
}

// set sets the limit for what is in flight now; m.mu is held.
func (m *dirMemory) set() {
	if !m.stopped {
		debug.SetMemoryLimit(dirMemoryLimit(m.logs, m.windows, m.live))
	}
}

// dirMemoryLimit is the limit with logs in flight (at least one's budget:
// between two logs the next is about to start), their big windows (with
// their headroom, as for one log), and live bytes kept live.
func dirMemoryLimit(logs int, windows, live int64) int64 {
	return memoryLimitFor(int64(max(logs, 1))*readBudget+windowHeadroom(windows), windows, live)
}
