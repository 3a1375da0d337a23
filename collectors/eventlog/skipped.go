package eventlog

import (
	"sync"
	"time"

	sm "github.com/sparkglance/sparkglance/internal/metricschema"
	"github.com/sparkglance/sparkglance/internal/sparklog"
)

// Reasons of sparkglance_eventlog_skipped_total: a log is not shown
// because its application ended longer than --eventlog.retention ago,
// because --eventlog.max-apps applications are held already, or because
// another log admitted earlier shows the same application attempt.
const (
	skipMaxApps   = string(sm.SkipMaxApps)
	skipRetention = string(sm.SkipRetention)
	skipDuplicate = string(sm.SkipDuplicateApp)
)

// errorReasons are the reasons of sparkglance_eventlog_errors_total known
// in advance; they are exported at 0 from the start, so that a dashboard
// shows "none yet" rather than no data.
var errorReasons = []string{
	string(sparklog.ProblemMalformedJSON), string(sparklog.ProblemNotEventLog), string(sparklog.ProblemCorruptData),
	string(sparklog.ProblemTruncatedData), string(sparklog.ProblemUnknownCodec), string(sparklog.ProblemCodecMismatch),
	string(sparklog.ProblemEmptyFile), string(sparklog.ProblemLineTooLong), string(sparklog.ProblemTruncatedLine),
	string(sparklog.ProblemMissingFile), string(sparklog.ProblemLayout), string(sparklog.ProblemFileShrank),
	string(sparklog.ProblemIO), string(sm.EventlogErrorOpenFailed), string(sm.EventlogErrorDirUnreadable),
	string(sm.EventlogErrorLogVanished), string(sm.EventlogErrorMaxApps),
}

// skipState counts logs left out, each once, and remembers the logs
// retention dropped so that they are not read again while unchanged.
type skipState struct {
	mu      sync.Mutex
	byKey   map[string]string  // Log.Key → the reason it was counted for
	retired map[string]int64   // Log.Key → its mtime (unix ns) when retention dropped it
	counts  map[string]float64 // by reason
	fresh   int                // logs skipped for the retention since the last scan's message
}

// skip counts a log left out for reason, once per log and reason.
func (w *Watcher) skip(key, reason string) {
	s := &w.skips
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byKey == nil {
		s.byKey, s.counts = map[string]string{}, map[string]float64{}
	}
	if s.byKey[key] == reason {
		return
	}
	s.byKey[key] = reason
	s.counts[reason]++
	if reason == skipRetention {
		s.fresh++
	}
}

// admitted forgets that a log was left out: it is followed now.
func (w *Watcher) admitted(key string) {
	w.skips.mu.Lock()
	delete(w.skips.byKey, key)
	w.skips.mu.Unlock()
}

// retire remembers that retention dropped a log whose files had mtime.
func (w *Watcher) retire(key string, mtime int64) {
	s := &w.skips
	s.mu.Lock()
	if s.retired == nil {
		s.retired = map[string]int64{}
	}
	s.retired[key] = mtime
	s.mu.Unlock()
}

// retiredUnchanged reports whether retention dropped the log and it has
// not been written since.
func (w *Watcher) retiredUnchanged(key string, mtime time.Time) bool {
	w.skips.mu.Lock()
	defer w.skips.mu.Unlock()
	m, ok := w.skips.retired[key]
	return ok && m == mtime.UnixNano()
}

// forgetUnlisted drops what is remembered about logs that are gone from
// directories that could be listed, so the maps stay as small as the
// directories.
func (w *Watcher) forgetUnlisted(listed, okDirs map[string]bool) {
	s := &w.skips
	s.mu.Lock()
	defer s.mu.Unlock()
	for key := range s.retired {
		if !listed[key] && underAny(key, okDirs) {
			delete(s.retired, key)
		}
	}
	for key := range s.byKey {
		if !listed[key] && underAny(key, okDirs) {
			delete(s.byKey, key)
		}
	}
}

// reportSkipped logs, once per scan that left new logs out for the
// retention, how many and which flag shows them.
func (w *Watcher) reportSkipped() {
	s := &w.skips
	s.mu.Lock()
	n, total := s.fresh, s.counts[skipRetention]
	s.fresh = 0
	s.mu.Unlock()
	if n > 0 {
		w.log.Warn("finished event logs skipped: their applications ended longer ago than the retention; raise --eventlog.retention to show them, or load them with sparkglance backfill",
			"skipped", n, "skipped_total", total, "retention", w.cfg.Retention)
	}
}

// skippedCounts are the counters by reason, every known reason included.
func (w *Watcher) skippedCounts() map[string]float64 {
	out := make(map[string]float64, len(sm.SkipReasonLabel.Values))
	for _, r := range sm.SkipReasonLabel.Values {
		out[string(r)] = 0
	}
	w.skips.mu.Lock()
	for r, n := range w.skips.counts {
		out[r] = n
	}
	w.skips.mu.Unlock()
	return out
}

// applicationEnd is when the application of a finished log ended: its
// ApplicationEnd, else its last event, else (nothing decoded) the log's
// modification time. A log is written after the events it holds, so an
// end later than the mtime is a clock in the future; the mtime wins then.
func applicationEnd(v *appView, mtime time.Time) time.Time {
	end := mtime
	switch {
	case v != nil && v.ended && v.end > 0:
		end = time.UnixMilli(int64(v.end * 1e3))
	case v != nil && v.lastEventMs > 0:
		end = time.UnixMilli(v.lastEventMs)
	}
	if end.After(mtime) {
		return mtime
	}
	return end
}
