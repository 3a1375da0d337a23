// Package stacks is the "stacks" collector: it turns thread dumps of Spark
// executors and Flink TaskManagers into per-state sample counts and a
// blocked ratio, and serves the on-demand profiles API (package profiles).
//
// Only task threads count (see TaskThreadOf). Each sampled task thread gets
// one State from an ordered rule table (DefaultRules, extensible with a
// JSON file, see LoadRules); a Sampler keeps the counts per target over a
// sliding window. A Collector lists its targets (ProcessLister: the JVMs
// the node's discovery tracks; RESTSource: executors behind Spark UIs),
// dumps them in the background (Run) through the attach protocol (package
// attach) or Spark's REST thread dumps, and exports its latest snapshot
// (Update). Parsing the dumps is package threaddump's.
package stacks

import (
	"fmt"

	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// State is what a sampled task thread was doing.
type State uint8

// States, in the order metrics list them.
const (
	Running      State = iota // on CPU or runnable in Java code
	ShuffleFetch              // waiting for shuffle blocks (ShuffleBlockFetcherIterator.next)
	MemoryWait                // waiting to acquire execution memory
	Spill                     // writing spill or shuffle files
	IO                        // blocked in a socket or file read/write
	Lock                      // BLOCKED on a monitor or parked on a lock
	Backpressure              // Flink: waiting for an output buffer
	OtherWait                 // any other WAITING / TIMED_WAITING
	numStates
)

// stateNames are the states' label values, declared in the metric schema.
var stateNames = [numStates]sm.ThreadState{sm.ThreadRunning, sm.ThreadShuffleFetch, sm.ThreadMemoryWait, sm.ThreadSpill,
	sm.ThreadIO, sm.ThreadLock, sm.ThreadBackpressure, sm.ThreadOtherWait}

// States lists every State.
func States() []State {
	s := make([]State, numStates)
	for i := range s {
		s[i] = State(i)
	}
	return s
}

// String returns the metric label value, e.g. "shuffle_fetch".
func (s State) String() string {
	if s < numStates {
		return string(stateNames[s])
	}
	return fmt.Sprintf("state(%d)", uint8(s))
}

// ParseState is the inverse of String.
func ParseState(name string) (State, error) {
	for i, n := range stateNames {
		if string(n) == name {
			return State(i), nil
		}
	}
	return 0, fmt.Errorf("unknown state %q (want one of %v)", name, stateNames)
}

// MarshalText and UnmarshalText let States appear by name in JSON.
func (s State) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses a state name.
func (s *State) UnmarshalText(b []byte) error {
	v, err := ParseState(string(b))
	*s = v
	return err
}
