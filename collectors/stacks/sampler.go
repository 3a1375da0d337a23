package stacks

import (
	"slices"
	"sync"
	"time"

	"github.com/sparkglance/sparkglance/internal/jvm/threaddump"
)

// DefaultWindow is the default of --stacks.window.
const DefaultWindow = time.Minute

// Counts holds a sample count per State, indexed by State.
type Counts [numStates]uint64

// Total is the number of samples over all states.
func (c Counts) Total() uint64 {
	var n uint64
	for _, v := range c {
		n += v
	}
	return n
}

// Sampler accumulates classified task-thread samples per target (one JVM,
// keyed by the caller, e.g. "app/executor") and answers over a sliding
// window. It is safe for concurrent use.
type Sampler struct {
	classifier *Classifier
	window     time.Duration

	mu      sync.Mutex
	targets map[string]*series
}

type series struct {
	buckets []bucket // one per dump, oldest first, pruned to the window
	totals  Counts   // since the target was first seen, for counters
}

type bucket struct {
	at     time.Time
	counts Counts
}

// NewSampler returns a Sampler; window <= 0 means DefaultWindow, a nil
// classifier the default rules.
func NewSampler(c *Classifier, window time.Duration) *Sampler {
	if c == nil {
		c = DefaultClassifier()
	}
	if window <= 0 {
		window = DefaultWindow
	}
	return &Sampler{classifier: c, window: window, targets: map[string]*series{}}
}

// Observe classifies the task threads of a dump taken at time at and
// records them for target. It returns the classified samples.
func (s *Sampler) Observe(target string, at time.Time, d *threaddump.Dump) []TaskSample {
	samples := s.classifier.ClassifyDump(d)
	var b bucket
	b.at = at
	for _, smp := range samples {
		b.counts[smp.State]++
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ser := s.targets[target]
	if ser == nil {
		ser = &series{}
		s.targets[target] = ser
	}
	ser.buckets = append(ser.buckets, b)
	for st, n := range b.counts {
		ser.totals[st] += n
	}
	ser.prune(at.Add(-s.window))
	return samples
}

// prune drops buckets at or before cutoff.
func (ser *series) prune(cutoff time.Time) {
	i := 0
	for i < len(ser.buckets) && !ser.buckets[i].at.After(cutoff) {
		i++
	}
	if i > 0 {
		ser.buckets = slices.Delete(ser.buckets, 0, i)
	}
}

// Window is a target's samples within the sliding window.
type Window struct {
	Counts Counts
	Dumps  int // dumps observed in the window
}

// BlockedRatio is the share of task-thread samples not Running; ok is false
// when the window holds no task-thread sample.
func (w Window) BlockedRatio() (ratio float64, ok bool) {
	total := w.Counts.Total()
	if total == 0 {
		return 0, false
	}
	return float64(total-w.Counts[Running]) / float64(total), true
}

// Ratio is the share of samples in state st (0 with no samples).
func (w Window) Ratio(st State) float64 {
	total := w.Counts.Total()
	if total == 0 {
		return 0
	}
	return float64(w.Counts[st]) / float64(total)
}

// Window returns target's counts over (now - window, now].
func (s *Sampler) Window(target string, now time.Time) Window {
	s.mu.Lock()
	defer s.mu.Unlock()
	var w Window
	ser := s.targets[target]
	if ser == nil {
		return w
	}
	ser.prune(now.Add(-s.window))
	for _, b := range ser.buckets {
		if b.at.After(now) {
			continue
		}
		w.Dumps++
		for st, n := range b.counts {
			w.Counts[st] += n
		}
	}
	return w
}

// Totals returns target's counts since it was first observed (for
// spark_thread_samples_total).
func (s *Sampler) Totals(target string) Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ser := s.targets[target]; ser != nil {
		return ser.totals
	}
	return Counts{}
}

// Targets lists the observed targets, sorted.
func (s *Sampler) Targets() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.targets))
	for n := range s.targets {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Forget drops a target (its JVM exited).
func (s *Sampler) Forget(target string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.targets, target)
}

// Level is Flink's back-pressure level.
type Level string

// Flink's levels.
const (
	LevelOK   Level = "ok"
	LevelLow  Level = "low"
	LevelHigh Level = "high"
)

// BackpressureLevel applies Flink's thresholds to a ratio: ≤ 0.10 ok,
// ≤ 0.5 low, above high.
func BackpressureLevel(ratio float64) Level {
	switch {
	case ratio <= 0.10:
		return LevelOK
	case ratio <= 0.5:
		return LevelLow
	}
	return LevelHigh
}
