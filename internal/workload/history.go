package workload

import (
	"maps"
	"slices"
	"sync"
)

// History defaults.
const (
	DefaultMaxWorkloads = 500
	DefaultMaxRuns      = 100
)

// HistoryOptions bound a History and choose its baselines.
type HistoryOptions struct {
	Options
	// MaxWorkloads bounds the workloads kept (--workload.max-workloads);
	// runs of further workloads are dropped and counted. 0 means
	// DefaultMaxWorkloads.
	MaxWorkloads int
	// MaxRuns bounds the runs kept per workload, the oldest dropped first;
	// 0 means DefaultMaxRuns. At least the baseline's runs plus one are
	// kept.
	MaxRuns int
}

func (o HistoryOptions) maxWorkloads() int {
	if o.MaxWorkloads <= 0 {
		return DefaultMaxWorkloads
	}
	return o.MaxWorkloads
}

func (o HistoryOptions) maxRuns() int {
	if o.MaxRuns <= 0 {
		return max(DefaultMaxRuns, o.runs()+1)
	}
	return max(o.MaxRuns, o.runs()+1)
}

// detailRuns is how many of a workload's newest runs keep their
// properties and stages: the newest run's previous run and any of its
// baseline's runs, plus the newest one itself.
func (o HistoryOptions) detailRuns() int { return o.runs() + 2 }

// History keeps the runs of many workloads and judges them against their
// own past. It is safe for concurrent use.
type History struct {
	opts    HistoryOptions
	mu      sync.Mutex
	runs    map[string][]Summary // by workload, ordered by start
	dropped int64
}

// NewHistory returns an empty history.
func NewHistory(o HistoryOptions) *History {
	return &History{opts: o, runs: map[string][]Summary{}}
}

// Add adds a run, or replaces the run of the same application attempt (a
// live run seen again). Runs may come in any order. It returns false when
// the run was dropped: its workload would exceed MaxWorkloads, or it is
// older than the MaxRuns kept.
func (h *History) Add(s Summary) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	runs, ok := h.runs[s.Workload]
	if !ok && len(h.runs) >= h.opts.maxWorkloads() {
		h.dropped++
		return false
	}
	if i := slices.IndexFunc(runs, func(r Summary) bool { return r.AppID == s.AppID && r.AttemptID == s.AttemptID }); i >= 0 {
		runs = slices.Delete(runs, i, i+1)
	}
	runs = append(runs, s)
	sortRuns(runs)
	kept := true
	if n := len(runs) - h.opts.maxRuns(); n > 0 {
		kept = !slices.ContainsFunc(runs[:n], func(r Summary) bool { return r.AppID == s.AppID && r.AttemptID == s.AttemptID })
		runs = slices.Delete(runs, 0, n)
	}
	for i := range max(len(runs)-h.opts.detailRuns(), 0) {
		runs[i].Properties, runs[i].Stages = nil, nil
	}
	h.runs[s.Workload] = runs
	return kept
}

// Dropped counts the runs not kept because their workload would have
// exceeded MaxWorkloads (old runs leaving for MaxRuns are retention, not
// counted).
func (h *History) Dropped() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.dropped
}

// Workloads lists the workload keys, sorted.
func (h *History) Workloads() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Sorted(maps.Keys(h.runs))
}

// Runs returns a copy of the workload's runs, oldest first (older runs
// without their details).
func (h *History) Runs(workload string) []Summary {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.runs[workload])
}

// Evaluate judges the run of the application attempt against the runs of
// its workload that started before it; false when the run is not kept.
func (h *History) Evaluate(workload, appID, attemptID string) (Result, bool) {
	h.mu.Lock()
	runs := h.runs[workload]
	i := slices.IndexFunc(runs, func(r Summary) bool { return r.AppID == appID && r.AttemptID == attemptID })
	if i < 0 {
		h.mu.Unlock()
		return Result{}, false
	}
	run, prev := runs[i], slices.Clone(runs[:i])
	h.mu.Unlock()
	return Evaluate(&run, prev, h.opts.Options), true
}

// Latest judges the workload's newest run (live or finished) and its
// newest finished run, which the regression series and alert follow.
// ok is false for an unknown workload; finished is the zero Result when
// no run finished yet.
func (h *History) Latest(workload string) (latest, finished Result, ok bool) {
	h.mu.Lock()
	runs := slices.Clone(h.runs[workload])
	h.mu.Unlock()
	if len(runs) == 0 {
		return Result{}, Result{}, false
	}
	n := len(runs) - 1
	latest = Evaluate(&runs[n], runs[:n], h.opts.Options)
	for i := n; i >= 0; i-- {
		if runs[i].Finished {
			if i == n {
				finished = latest
			} else {
				finished = Evaluate(&runs[i], runs[:i], h.opts.Options)
			}
			break
		}
	}
	return latest, finished, true
}
