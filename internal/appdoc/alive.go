package appdoc

import "sync/atomic"

// Analyses counts the analyses ReadLogs has begun whose whole document the
// reading pipeline still holds: from the moment a worker starts reading a
// log until Prepare has made its output of the document (the rest waits
// for its turn without it) or, for a document Prepare does not take (no
// Prepare, no event, an error), until use has had it. What the caller keeps
// after use (analyze's text output and compare keep every document) is
// not counted, nor a document Prepare hands on whole (analyze --json's one
// big log).
//
// A directory run's memory is bounded by the logs in flight only if this
// never exceeds the logs read at once: TestDirectoryRunHoldsOnlyTheLogsInFlight
// counts analyses rather than bytes of RSS, which the collector's timing
// blurs.
var Analyses analysesAlive

type analysesAlive struct{ alive, peak atomic.Int64 }

func (a *analysesAlive) begin() {
	n := a.alive.Add(1)
	for p := a.peak.Load(); n > p && !a.peak.CompareAndSwap(p, n); p = a.peak.Load() {
	}
}

func (a *analysesAlive) end() { a.alive.Add(-1) }

// Alive is how many analyses are held now.
func (a *analysesAlive) Alive() int64 { return a.alive.Load() }

// Peak is the most held at once since ResetPeak.
func (a *analysesAlive) Peak() int64 { return a.peak.Load() }

// ResetPeak starts a new peak from what is held now.
func (a *analysesAlive) ResetPeak() { a.peak.Store(a.alive.Load()) }
