package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/sparkglance/sparkglance/internal/sparklog"
)

// A run that reads several logs (a directory) sizes its soft memory limit
// by what it reads at once: readBudget per worker of the pool (each reads
// one log at a time), plus the big zstd windows the logs in flight declare, following the live heap as one log's limit
// does (memoryLimitFor). And the collector runs when the heap reaches that
// limit, not each time it doubles (GOGC=100): a directory of small logs
// keeps only a few MiB live, so doubling meant a collection every few MiB
// allocated, about 40 for 40 logs of 2 MB, each stopping both cores and
// costing the two-core run a fifth more CPU than the one-core one
// (docs/performance.md, "Many logs"). A limit set by GOMEMLIMIT is left
// alone, and so is a GOGC set by the user (the limit then only caps).
//
// The budgets are those of the pool's workers, not of the logs in flight at
// the moment: between two logs a worker holds none, and a limit that fell
// by a budget there had the runtime return that much memory to the system
// on its next allocation, and fault it in again for the next log (40 logs
// of 2 MB on two cores: 145–650 madvise calls a run, against 23–32 with
// the budgets kept; docs/performance.md, "Directories of real logs").

// dirMemory is the limit of a directory run: the logs being read and their
// windows, and the heap the last collection left live.
type dirMemory struct {
	mu      sync.Mutex
	workers int // logs read at once at most
	logs    int
	windows int64
	live    int64
	stopped bool
}

// limitDirMemory starts sizing the limit for workers logs read at once (0:
// GOMAXPROCS, as the readers count them) and the windows of those in
// flight: reading is appdoc.ReadOptions.Reading (nil when GOMEMLIMIT is
// set), stop restores the limit and GOGC found.
func limitDirMemory(workers int) (reading func(sparklog.Log) (done func()), stop func()) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return nil, func() {}
	}
	oldLimit := debug.SetMemoryLimit(-1)
	oldGC := -2 // not changed
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	m := &dirMemory{workers: workers}
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
		debug.SetMemoryLimit(dirMemoryLimit(max(m.logs, m.workers), m.windows, m.live))
	}
}

// dirMemoryLimit is the limit with readers' budgets (at least one), the big
// windows of the logs in flight (with their headroom, as for one log), and
// live bytes kept live.
func dirMemoryLimit(readers int, windows, live int64) int64 {
	return memoryLimitFor(int64(max(readers, 1))*readBudget+windowHeadroom(windows), windows, live)
}
