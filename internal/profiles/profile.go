package profiles

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sparkglance/sparkglance/internal/jvm/threaddump"
)

// Profile statuses.
const (
	StatusRunning  = "running"
	StatusFinished = "finished"
	StatusFailed   = "failed"
)

// Info is a profile as listed by the API.
type Info struct {
	ID         string    `json:"id"`
	Status     string    `json:"status"`
	Message    string    `json:"message,omitempty"`
	AppID      string    `json:"app_id,omitempty"`
	ExecutorID string    `json:"executor_id,omitempty"`
	Framework  string    `json:"framework,omitempty"`
	PID        int       `json:"pid,omitempty"`
	Threads    string    `json:"threads"`
	Duration   float64   `json:"duration"` // requested, seconds
	IntervalMS int       `json:"interval_ms"`
	Created    time.Time `json:"created"`
	Finished   time.Time `json:"finished,omitzero"`
	Dumps      int       `json:"dumps"`   // thread dumps taken
	Samples    int64     `json:"samples"` // thread stacks counted
	Errors     int       `json:"errors"`  // dumps that failed
}

// Stack is one distinct stack with its sample count.
type Stack struct {
	State  string             // java.lang.Thread.State
	Frames []threaddump.Frame // leaf first, locks dropped
	Count  int64
}

// Profile is one profile: its info and, as dumps arrive, its stacks.
type Profile struct {
	mu     sync.Mutex
	info   Info
	stacks map[string]*Stack
	start  time.Time
	end    time.Time
	cancel func()
	done   chan struct{} // closed once the profile ended and its target is free
}

// Done is closed once the profile ended (finished or failed) and its target
// may be profiled again.
func (p *Profile) Done() <-chan struct{} { return p.done }

// Info returns a copy of the profile's info.
func (p *Profile) Info() Info {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.info
}

// Stacks returns the aggregated stacks, sorted by count (largest first),
// then by frames, with the profile's start, end and interval.
func (p *Profile) Stacks() (stacks []Stack, start, end time.Time, interval time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.stacks {
		stacks = append(stacks, *s)
	}
	slices.SortFunc(stacks, func(a, b Stack) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(stackKey(a.State, a.Frames), stackKey(b.State, b.Frames)))
	})
	end = p.end
	if end.IsZero() {
		end = time.Now()
	}
	return stacks, p.start, end, time.Duration(p.info.IntervalMS) * time.Millisecond
}

// add counts every selected thread of a dump.
func (p *Profile) add(d *threaddump.Dump, keep func(*threaddump.Thread) bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.info.Dumps++
	for i := range d.Threads {
		th := &d.Threads[i]
		if !th.IsJava() || len(th.Frames) == 0 || (keep != nil && !keep(th)) {
			continue
		}
		key := stackKey(th.State, th.Frames)
		s := p.stacks[key]
		if s == nil {
			frames := make([]threaddump.Frame, len(th.Frames))
			for j, f := range th.Frames {
				f.Locks = nil
				frames[j] = f
			}
			s = &Stack{State: th.State, Frames: frames}
			p.stacks[key] = s
		}
		s.Count++
		p.info.Samples++
	}
}

func stackKey(state string, frames []threaddump.Frame) string {
	var b strings.Builder
	b.WriteString(state)
	for _, f := range frames {
		b.WriteByte(0)
		b.WriteString(f.Func())
		b.WriteByte(':')
		b.WriteString(f.File)
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(f.Line))
	}
	return b.String()
}
