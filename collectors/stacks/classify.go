package stacks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sparkglance/sparkglance/internal/jvm/threaddump"
)

// Classifier applies an ordered rule table. It is immutable and safe for
// concurrent use.
type Classifier struct {
	rules []compiledRule
}

type compiledRule struct {
	Rule
	anyFrame   []pattern
	sequence   []pattern
	waitingFor []pattern
}

// NewClassifier checks and compiles rules, in order.
func NewClassifier(rules []Rule) (*Classifier, error) {
	c := &Classifier{}
	for i, r := range rules {
		if err := checkRule(r); err != nil {
			return nil, fmt.Errorf("rule %d (%q): %w", i+1, r.Name, err)
		}
		c.rules = append(c.rules, compiledRule{Rule: r,
			anyFrame: compile(r.AnyFrame), sequence: compile(r.Sequence), waitingFor: compile(r.WaitingFor)})
	}
	return c, nil
}

// DefaultClassifier uses DefaultRules.
func DefaultClassifier() *Classifier {
	c, err := NewClassifier(DefaultRules())
	if err != nil {
		panic("stacks: built-in rules: " + err.Error()) // a bug in DefaultRules, caught by tests
	}
	return c
}

var javaStates = []string{"NEW", "RUNNABLE", "BLOCKED", "WAITING", "TIMED_WAITING", "TERMINATED"}

func checkRule(r Rule) error {
	if r.State >= numStates {
		return fmt.Errorf("invalid state %d", r.State)
	}
	if r.Framework != "" && r.Framework != Spark && r.Framework != Flink {
		return fmt.Errorf("framework %q: want %q or %q", r.Framework, Spark, Flink)
	}
	for _, s := range r.ThreadStates {
		if !slices.Contains(javaStates, s) {
			return fmt.Errorf("thread state %q: want one of %v", s, javaStates)
		}
	}
	if r.Depth < 0 {
		return fmt.Errorf("negative depth %d", r.Depth)
	}
	if len(r.ThreadStates)+len(r.AnyFrame)+len(r.Sequence)+len(r.WaitingFor) == 0 {
		return fmt.Errorf("no condition: it would match every thread")
	}
	for _, p := range slices.Concat(r.AnyFrame, r.Sequence, r.WaitingFor) {
		if strings.Trim(p, "*") == "" {
			return fmt.Errorf("pattern %q matches everything", p)
		}
	}
	return nil
}

// Classify returns the State of one sampled thread of the given framework
// and the name of the rule that decided it ("" for the Running default).
func (c *Classifier) Classify(th *threaddump.Thread, framework string) (State, string) {
	funcs := make([]string, len(th.Frames))
	for i, f := range th.Frames {
		funcs[i] = f.Func()
	}
	var waitClass string
	if l, ok := th.WaitingFor(); ok {
		waitClass = l.Class
	}
	for i := range c.rules {
		r := &c.rules[i]
		if r.matches(th.State, framework, funcs, waitClass) {
			return r.State, r.Name
		}
	}
	return Running, ""
}

func (r *compiledRule) matches(state, framework string, funcs []string, waitClass string) bool {
	if r.Framework != "" && r.Framework != framework {
		return false
	}
	if len(r.ThreadStates) > 0 && !slices.Contains(r.ThreadStates, state) {
		return false
	}
	if len(r.waitingFor) > 0 && (waitClass == "" || !matchAny(r.waitingFor, waitClass)) {
		return false
	}
	top := funcs
	if r.Depth > 0 && r.Depth < len(top) {
		top = top[:r.Depth]
	}
	if len(r.anyFrame) > 0 && !slices.ContainsFunc(top, func(f string) bool { return matchAny(r.anyFrame, f) }) {
		return false
	}
	if len(r.sequence) > 0 && !hasSequence(funcs, len(top), r.sequence) {
		return false
	}
	return true
}

// hasSequence reports whether seq matches consecutive frames starting at
// some index below starts.
func hasSequence(funcs []string, starts int, seq []pattern) bool {
	for i := 0; i < starts && i+len(seq) <= len(funcs); i++ {
		ok := true
		for k, p := range seq {
			if !p.match(funcs[i+k]) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// pattern is a glob where '*' matches any run of characters.
type pattern struct{ parts []string }

func compile(globs []string) []pattern {
	ps := make([]pattern, len(globs))
	for i, g := range globs {
		ps[i] = pattern{parts: strings.Split(g, "*")}
	}
	return ps
}

func matchAny(ps []pattern, s string) bool {
	return slices.ContainsFunc(ps, func(p pattern) bool { return p.match(s) })
}

func (p pattern) match(s string) bool {
	if len(p.parts) == 1 {
		return s == p.parts[0]
	}
	first, last := p.parts[0], p.parts[len(p.parts)-1]
	if !strings.HasPrefix(s, first) || len(s) < len(first)+len(last) || !strings.HasSuffix(s, last) {
		return false
	}
	s = s[len(first) : len(s)-len(last)]
	for _, mid := range p.parts[1 : len(p.parts)-1] {
		i := strings.Index(s, mid)
		if i < 0 {
			return false
		}
		s = s[i+len(mid):]
	}
	return true
}

// TaskSample is one task thread of one dump, classified.
type TaskSample struct {
	Thread string // thread name
	TaskThread
	State State
	Rule  string // deciding rule; "" for Running by default
}

// ClassifyDump classifies every task thread of a dump, in dump order.
func (c *Classifier) ClassifyDump(d *threaddump.Dump) []TaskSample {
	var out []TaskSample
	for i := range d.Threads {
		th := &d.Threads[i]
		tt, ok := TaskThreadOf(th.Name)
		if !ok || !th.IsJava() {
			continue
		}
		st, rule := c.Classify(th, tt.Framework)
		out = append(out, TaskSample{Thread: th.Name, TaskThread: tt, State: st, Rule: rule})
	}
	return out
}
