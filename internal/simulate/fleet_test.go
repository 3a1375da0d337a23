package simulate

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/sparklog"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// A small fleet: every application is a readable zstd log of its own id,
// live ones unfinished, the big one with its executors and tasks.
func TestGenerateFleet(t *testing.T) {
	dir := t.TempDir()
	c := FleetConfig{Finished: 30, Live: 4, Big: 1, Medium: 2, BigExecutors: 40, BigTasks: 700,
		Now: time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC), Seed: 7}
	apps, err := GenerateFleet(context.Background(), dir, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(apps) != 34 {
		t.Fatalf("%d applications", len(apps))
	}
	logs, err := sparklog.Discover(dir)
	if err != nil || len(logs) != 34 {
		t.Fatalf("discovered %d logs: %v", len(logs), err)
	}
	byPath := map[string]FleetApp{}
	ids := map[string]bool{}
	for _, a := range apps {
		if ids[a.ID] {
			t.Errorf("id %s twice", a.ID)
		}
		ids[a.ID] = true
		byPath[a.Path] = a
	}
	for _, l := range logs {
		a, ok := byPath[l.Path]
		if !ok {
			t.Fatalf("unexpected log %s", l.Path)
		}
		if l.InProgress != a.Live {
			t.Errorf("%s: in progress %v, live %v", l.Path, l.InProgress, a.Live)
		}
		var appID string
		ended := false
		execs := map[string]bool{}
		tasks := 0
		h := sparklog.HandlerFuncs{OnProblem: func(p sparklog.Problem) {
			t.Errorf("%s: %v", l.Path, p)
		}, OnEvent: func(_ sparklog.Position, ev sparkevent.Event) error {
			switch e := ev.(type) {
			case *sparkevent.ApplicationStart:
				appID = e.AppID
			case *sparkevent.ApplicationEnd:
				ended = true
			case *sparkevent.ExecutorAdded:
				execs[e.ExecutorID] = true
			case *sparkevent.TaskEnd:
				tasks++
			}
			return nil
		}}
		st, err := sparklog.Read(l, h, sparklog.Options{})
		if err != nil {
			t.Fatalf("%s: %v", l.Path, err)
		}
		if st.Problems > 0 {
			t.Errorf("%s: %d problems", l.Path, st.Problems)
		}
		if appID != a.ID || ended == a.Live {
			t.Errorf("%s: app %q ended %v; want %q, live %v", l.Path, appID, ended, a.ID, a.Live)
		}
		if a.Big && (len(execs) < c.BigExecutors || tasks < c.BigTasks) {
			t.Errorf("big application %s: %d executors, %d tasks", a.ID, len(execs), tasks)
		}
	}
}

// errAfter fails every line after the first n.
type errAfter struct{ n int }

func (s *errAfter) Line(int64, string, bool) error {
	if s.n == 0 {
		return errStop
	}
	s.n--
	return nil
}

var errStop = errors.New("stop")

// A sink that fails stops the generation: a cancelled live writer of a
// long application returns at once instead of computing every pass.
func TestGenerateStopsWhenTheSinkFails(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Repeat = MaxRepeat
	sink := &errAfter{n: 100}
	n, err := Generate(cfg, sink)
	if !errors.Is(err, errStop) {
		t.Fatalf("error %v, want the sink's", err)
	}
	one := DefaultConfig()
	lines, err := Generate(one, &errAfter{n: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	// Lines offered after the failure are counted too, but never more than
	// one pass of the scenario's.
	if n > lines {
		t.Errorf("%d lines offered after the sink failed at 100; one pass has %d", n, lines)
	}
}
