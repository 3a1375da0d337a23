package analysis

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// The open cores are kept as executors come and go (issue 24.11: summing
// every open executor at every event made analysis quadratic); the kept
// sum must equal the sum over the open lifetimes whatever the order of
// additions, re-registrations and removals.
func TestOpenCoresFollowExecutors(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	a := New(DefaultConfig())
	a.Add(&sparkevent.ApplicationStart{AppID: "app", Timestamp: 1_000})
	for i := range 5000 {
		id := fmt.Sprint(rng.IntN(300))
		ts := int64(2_000 + i)
		switch rng.IntN(3) {
		case 0, 1: // new executor or re-registration with other cores
			a.Add(&sparkevent.ExecutorAdded{Timestamp: ts, ExecutorID: id, Host: "h", TotalCores: rng.IntN(9)})
		case 2: // removal, also of executors never added
			a.Add(&sparkevent.ExecutorRemoved{Timestamp: ts, ExecutorID: id})
		}
		want := 0
		for i := range int32(a.slots.len()) {
			if s := a.slots.at(i); s.openLife >= 0 {
				want += a.lifetimes.at(s.openLife).cores
			}
		}
		open := 0
		for l := range a.lifetimes.values() {
			if l.open {
				open += l.cores
			}
		}
		if got := a.availableCoresNow(); got != want || got != open {
			t.Fatalf("event %d: available cores %d, open lifetimes sum to %d (%d by flag)", i, got, want, open)
		}
	}
}

// Thousands of executors spilling in one interval: each keeps its own
// cell (found through the bucket's index once it has many) and the
// report lists every executor's spill exactly.
func TestSpillOfManyExecutorsInOneInterval(t *testing.T) {
	const n = 3000
	a := New(DefaultConfig())
	t0 := int64(1_700_000_000_000)
	a.Add(&sparkevent.ApplicationStart{AppID: "app", Timestamp: t0})
	for i := range n {
		a.Add(&sparkevent.ExecutorAdded{Timestamp: t0, ExecutorID: fmt.Sprint(i), TotalCores: 1})
	}
	for round := range 2 { // every executor spills twice, in two passes
		for i := range n {
			id := int64(round*n + i)
			ti := sparkevent.TaskInfo{TaskID: id, ExecutorID: fmt.Sprint(i), LaunchTime: t0 + 100, FinishTime: t0 + 200}
			a.Add(&sparkevent.TaskStart{Task: ti})
			a.Add(&sparkevent.TaskEnd{Reason: sparkevent.TaskEndReason{Reason: "Success"}, Task: ti,
				Metrics: &sparkevent.TaskMetrics{MemoryBytesSpilled: int64(i + 1), DiskBytesSpilled: 1}})
		}
	}
	a.Add(&sparkevent.ApplicationEnd{Timestamp: t0 + 1000})
	r := a.Report()
	if len(r.Intervals) != 1 {
		t.Fatalf("%d intervals, want 1", len(r.Intervals))
	}
	sp := r.Intervals[0].Spill
	if len(sp) != n {
		t.Fatalf("%d spill cells, want %d", len(sp), n)
	}
	for i, s := range sp {
		if s.ExecutorID != fmt.Sprint(i) || s.MemoryBytes != float64(2*(i+1)) || s.DiskBytes != 2 {
			t.Fatalf("cell %d: %+v, want executor %d with %d and 2 bytes", i, s, i, 2*(i+1))
		}
	}
}

// sortByExecID orders as compareExecIDs does: the driver, numeric ids by
// number, then the others as strings.
func TestSortByExecIDMatchesCompare(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	pool := []string{"driver", "0", "1", "2", "9", "10", "11", "100", "-3", "a", "b10", "exec-1", "x", "1e3", " 7"}
	for round := range 200 {
		ids := make([]string, rng.IntN(40))
		seen := map[string]bool{}
		for i := range ids {
			for {
				id := pool[rng.IntN(len(pool))]
				if rng.IntN(3) == 0 {
					id = fmt.Sprint(rng.IntN(5000))
				}
				if !seen[id] {
					seen[id], ids[i] = true, id
					break
				}
			}
		}
		got := slices.Clone(ids)
		sortByExecID(got, func(s *string) string { return *s })
		want := slices.Clone(ids)
		slices.SortFunc(want, compareExecIDs)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: %q, compareExecIDs gives %q", round, got, want)
		}
	}
}

// The executor index gives each id one index whatever its form: numbers
// kept by number, far-off numbers, non-canonical numbers and names in
// the map; the same id is found where it was filed.
func TestExecIndexFindsEveryID(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	a := New(DefaultConfig())
	want := map[string]int32{}
	for range 20_000 {
		var id string
		switch rng.IntN(6) {
		case 0, 1, 2:
			id = fmt.Sprint(rng.IntN(8000))
		case 3:
			id = fmt.Sprint(rng.IntN(1 << 30)) // beyond what byNum keeps
		case 4:
			id = fmt.Sprintf("0%d", rng.IntN(100)) // "017" is not 17
		default:
			id = []string{"driver", "", "exec-1", "+1", "-1", "1e3", "4294967297", "99999999999"}[rng.IntN(8)]
		}
		i := a.execIdx(id)
		if w, ok := want[id]; ok && w != i {
			t.Fatalf("id %q: index %d, first given %d", id, i, w)
		}
		want[id] = i
		if a.execIDs[i] != id {
			t.Fatalf("index %d names %q, want %q", i, a.execIDs[i], id)
		}
	}
	if len(a.execIDs) != len(want) || a.slots.len() != len(want) {
		t.Fatalf("%d ids, %d slots for %d distinct ids", len(a.execIDs), a.slots.len(), len(want))
	}
	for id, i := range want {
		if got, ok := a.execIndex.lookup(id); !ok || got != i {
			t.Fatalf("lookup(%q) = %d, %v; want %d", id, got, ok, i)
		}
	}
	if _, ok := a.execIndex.lookup("never"); ok {
		t.Error("an id never added was found")
	}
	if len(a.execIndex.byNum) > 4*len(want)+2*byNumSlack {
		t.Errorf("byNum holds %d entries for %d ids", len(a.execIndex.byNum), len(want))
	}
}

// The work per executor, counted rather than timed (issue 24.11): the
// events of an application with many single-task executors, fed to the
// analysis and reported, allocate less than once per executor however
// many there are (0.03 and 0.02 times at 20,000). Maps keyed by the
// executor id string, a row allocated per executor and per stage, a slice
// per one-task duration list, each task's spread values on the heap and a
// quantiles row per executor summary made it 5.05 and 2.02 times.
func TestAllocationsPerExecutor(t *testing.T) {
	for _, n := range []int{2_000, 20_000} {
		var evs []sparkevent.Event
		generateManyExecutors(n, func(e sparkevent.Event) { evs = append(evs, e) })
		add := testing.AllocsPerRun(1, func() {
			a := New(DefaultConfig())
			for _, e := range evs {
				a.Add(e)
			}
		})
		a := New(DefaultConfig())
		for _, e := range evs {
			a.Add(e)
		}
		report := testing.AllocsPerRun(1, func() { _ = a.Report() })
		t.Logf("%d executors: %.2f allocations per executor to add, %.2f to report", n, add/float64(n), report/float64(n))
		if add/float64(n) > 0.5 || report/float64(n) > 0.5 {
			t.Errorf("%d executors: %.2f allocations per executor to add, %.2f to report; want at most 0.5 each", n, add/float64(n), report/float64(n))
		}
	}
}

// The work per event, counted (issue 24.11): no event walks every
// executor. Feeding the events of n single-task executors, half of them
// removed and re-added, looks at no executor table as a whole; the report
// walks each table a few times. Summing the open executors' cores at every
// event, as availableCoresNow did, looks at n²/2 executors here.
func TestNoEventWalksTheExecutors(t *testing.T) {
	for _, n := range []int{2_000, 20_000} {
		a := New(DefaultConfig())
		var last int64
		generateManyExecutors(n, func(e sparkevent.Event) {
			a.Add(e)
			if ea, ok := e.(*sparkevent.ExecutorAdded); ok {
				last = ea.Timestamp
			}
			if te, ok := e.(*sparkevent.TaskEnd); ok && te.Task.TaskID%2 == 0 { // churn: removed, then back with two cores
				id := te.Task.ExecutorID
				a.Add(&sparkevent.ExecutorRemoved{Timestamp: te.Task.FinishTime, ExecutorID: id})
				a.Add(&sparkevent.ExecutorAdded{Timestamp: te.Task.FinishTime, ExecutorID: id, Host: "h", TotalCores: 2})
			}
		})
		if last == 0 {
			t.Fatal("no executor was added")
		}
		if a.executorsVisited != 0 {
			t.Errorf("%d executors: the events looked at %d executors in walks over all of them, want none", n, a.executorsVisited)
		}
		before := a.executorsVisited
		_ = a.Report()
		if got := a.executorsVisited - before; got > 32*int64(n) { // a few walks of each table (lifetimes: 1.5 n here)
			t.Errorf("%d executors: the report looked at %d executors in walks, want at most %d", n, got, 32*n)
		}
	}
}
