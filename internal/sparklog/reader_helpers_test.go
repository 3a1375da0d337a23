package sparklog

import (
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// recorder is a Handler that keeps what it is given.
type recorder struct {
	events    []sparkevent.Event
	positions []Position
	problems  []Problem
}

func (r *recorder) Event(pos Position, ev sparkevent.Event) error {
	r.events = append(r.events, ev)
	r.positions = append(r.positions, pos)
	return nil
}

func (r *recorder) Problem(p Problem) { r.problems = append(r.problems, p) }

// problemsOf returns the recorded problems of one kind.
func (r *recorder) problemsOf(kind ProblemKind) []Problem {
	var out []Problem
	for _, p := range r.problems {
		if p.Kind == kind {
			out = append(out, p)
		}
	}
	return out
}

// discoverOne discovers path and requires exactly one log there.
func discoverOne(t testing.TB, path string) Log {
	t.Helper()
	logs, err := Discover(path)
	if err != nil {
		t.Fatalf("Discover(%s): %v", path, err)
	}
	if len(logs) != 1 {
		t.Fatalf("Discover(%s): %d logs, want 1: %+v", path, len(logs), logs)
	}
	return logs[0]
}

// readLog reads a log once with a recorder.
func readLog(t testing.TB, log Log, opts Options) (Stats, *recorder) {
	t.Helper()
	rec := &recorder{}
	st, err := Read(log, rec, opts)
	if err != nil {
		t.Fatalf("Read(%s): %v", log.Path, err)
	}
	return st, rec
}
