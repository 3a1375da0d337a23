package analysis

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// busyTask is one task of a simulated local backend: busy on its core from
// launch to free, its TaskEnd logged at logged (the driver handling the
// result after the core was freed).
type busyTask struct {
	id, launch, free, logged int64
}

// localRun simulates the local backend on cores cores: each core launches
// its next task as soon as it frees (or a little later), while the TaskEnd
// of the task before comes up to maxLag ms after. A few tasks are long.
func localRun(rng *rand.Rand, cores, tasksPerCore int, maxLag int64) []busyTask {
	var out []busyTask
	id := int64(0)
	for c := 0; c < cores; c++ {
		t := int64(1000 + rng.IntN(5))
		for range tasksPerCore {
			busy := int64(rng.IntN(40))
			if rng.IntN(20) == 0 {
				busy = int64(200 + rng.IntN(400))
			}
			out = append(out, busyTask{id: id, launch: t, free: t + busy, logged: t + busy + rng.Int64N(maxLag+1)})
			id++
			t += busy + int64(rng.IntN(2))
		}
	}
	return out
}

// logOrder feeds the tasks' starts and ends to b in log order (a start at
// its launch, an end when logged); it returns the most tasks running at
// once in that order. watch, if not nil, runs after each event.
func logOrder(b *localBusy, tasks []busyTask, watch func()) (mostRunning int) {
	type ev struct {
		t   int64
		end bool
		i   int
	}
	var evs []ev
	for i, k := range tasks {
		evs = append(evs, ev{k.launch, false, i}, ev{k.logged, true, i})
	}
	slices.SortStableFunc(evs, func(x, y ev) int { return cmp.Compare(x.t, y.t) })
	running := 0
	for _, e := range evs {
		k := tasks[e.i]
		if e.end {
			running--
			b.ended(k.id, k.launch, k.free, true)
		} else {
			running++
			mostRunning = max(mostRunning, running)
			b.started(k.id, k.launch)
		}
		if watch != nil {
			watch()
		}
	}
	return mostRunning
}

// mostBusy is the plain sweep over all spans at once: ends before starts
// at the same instant.
func mostBusy(tasks []busyTask) int {
	type edge struct{ t, d int64 }
	var edges []edge
	for _, k := range tasks {
		if k.free > k.launch {
			edges = append(edges, edge{k.launch, 1}, edge{k.free, -1})
		}
	}
	slices.SortFunc(edges, func(x, y edge) int { return cmp.Or(cmp.Compare(x.t, y.t), cmp.Compare(x.d, y.d)) })
	n, most := int64(0), int64(0)
	for _, e := range edges {
		n += e.d
		most = max(most, n)
	}
	return int(most)
}

// The incremental sweep finds what the sweep over all spans finds, while
// the event-order count, with TaskEnds logged after the next launch, finds
// more.
func TestLocalBusyIncrementalSweep(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for run := range 200 {
		cores := 1 + rng.IntN(12)
		tasks := localRun(rng, cores, 1+rng.IntN(40), int64(rng.IntN(8)))
		var b localBusy
		mostRunning := logOrder(&b, tasks, nil)
		got, ok := b.cores(false)
		want := mostBusy(tasks)
		if !ok || got != max(want, 1) {
			t.Fatalf("run %d (%d cores): incremental %d (ok %v), sweep over all spans %d", run, cores, got, ok, want)
		}
		if want > cores || mostRunning < want {
			t.Fatalf("run %d: %d cores, busy at once %d, running at once in log order %d", run, cores, want, mostRunning)
		}
		if len(b.pending) != 0 || len(b.running) != 0 || len(b.open) > cores {
			t.Fatalf("run %d: left %d spans pending, %d running, %d open", run, len(b.pending), len(b.running), len(b.open))
		}
	}
	// The lag shows in the event-order count (three tasks per core at most).
	tasks := localRun(rand.New(rand.NewPCG(3, 4)), 8, 30, 5)
	var b localBusy
	if most := logOrder(&b, tasks, nil); most <= 8 {
		t.Errorf("log order counts %d running at once on 8 cores: the lag did not show", most)
	}
	if got, _ := b.cores(false); got != 8 {
		t.Errorf("8 cores estimated as %d", got)
	}
}

// A task running all along holds back every span launched after it; past
// maxHeldSpans the older half is swept counting it busy, which it is.
func TestLocalBusyHeldSpansBounded(t *testing.T) {
	tasks := localRun(rand.New(rand.NewPCG(5, 6)), 3, 5000, 3)
	var b localBusy
	b.started(-1, 900)
	held := 0
	logOrder(&b, tasks, func() { held = max(held, len(b.pending)) })
	if held > maxHeldSpans+1 {
		t.Errorf("%d spans held back, want at most %d", held, maxHeldSpans+1)
	}
	if b.held != 1 {
		t.Errorf("%d running tasks counted busy, want the long one", b.held)
	}
	last := tasks[len(tasks)-1]
	b.ended(-1, 900, last.logged+1, true)
	got, _ := b.cores(false)
	if want := mostBusy(append(tasks, busyTask{id: -1, launch: 900, free: last.logged + 1})); got != want || want != 4 {
		t.Errorf("estimate %d, sweep over all spans %d, want 4", got, want)
	}
	if len(b.pending) != 0 || b.held != 0 || len(b.forced) != 0 {
		t.Errorf("left %d pending, %d held, %d forced", len(b.pending), b.held, len(b.forced))
	}
}

// Spans still held back for a running task count in a report (all), not
// in the per-event estimate, which has none until a span is swept.
func TestLocalBusyHeldBackCountsInReport(t *testing.T) {
	var b localBusy
	b.started(0, 1000) // runs on
	b.started(1, 1001)
	b.started(2, 1001)
	b.ended(1, 1001, 1500, true)
	b.ended(2, 1001, 1400, true)
	if n, ok := b.cores(false); ok {
		t.Errorf("swept so far: %d, want none", n)
	}
	if n, _ := b.cores(true); n != 2 {
		t.Errorf("with the held-back spans: %d, want 2", n)
	}
	b.ended(0, 1000, 2000, true)
	if n, _ := b.cores(false); n != 3 {
		t.Errorf("all ended: %d, want 3", n)
	}
}

// The real local[*] logs' cores, checked by hand against their busy spans.
// The Spark 1.2 runs' stages of 8 tasks had all 8 busy at once, no more.
// local-1430917381534's first stage of 100 tasks launched 8 at once (the
// local backend offers every free core at once), then tasks 8 to 11 after
// the first 8 busy spans had ended but before their TaskEnds: 12 in event
// order. The second part of a rolling log, read alone, has no master and
// no ExecutorAdded; its first part states the driver's 12 cores (13 in
// event order: task 2697 launched 2 ms after task 2685's busy span ended,
// in the millisecond of its Finish Time, and its TaskStart came first).
func TestLocalCoresRealLogs(t *testing.T) {
	rolling := "extra/spark-rapids-tools/spark-events-qualification/eventlog_v2_local-1623876083964/"
	for _, c := range []struct {
		log                   string
		cores, eventOrderPeak int
	}{
		{"local-1422981759269", 8, 8},
		{"local-1422981780767", 8, 8},
		{"local-1425081759269", 8, 8},
		{"local-1426533911241", 8, 8},
		{"local-1426633911242", 8, 8},
		{"local-1430917381534", 8, 12},
		{"local-1430917381535_1", 0, 0}, // no task
		{rolling + "events_2_local-1623876083964.zstd", 12, 13},
		{"extra/spark-rapids-tools/spark-events-qualification/db_sim_eventlog/eventlog", 12, 13}, // the same events
	} {
		t.Run(c.log, func(t *testing.T) {
			rc := openLog(t, testkit.Events(t, c.log))
			defer rc.Close()
			a := New(DefaultConfig())
			eachEvent(t, rc, a.Add)
			r := a.Report()
			if r.LocalCores != c.cores || !r.CoresEstimated || a.maxRunning != c.eventOrderPeak {
				t.Errorf("cores %d (estimated %v), %d running at once in event order; want %d estimated, %d",
					r.LocalCores, r.CoresEstimated, a.maxRunning, c.cores, c.eventOrderPeak)
			}
		})
	}
	r := analyzePath(t, testkit.Events(t, rolling+"events_1_local-1623876083964.zstd"), DefaultConfig())
	if i := slices.IndexFunc(r.Executors, func(e Executor) bool { return e.ID == "driver" }); i < 0 || r.Executors[i].TotalCores != 12 || r.LocalCores != 0 {
		t.Errorf("first part: the driver's stated cores %+v, local cores %d; want 12 stated", r.Executors, r.LocalCores)
	}
}
