package analysis

import (
	"cmp"
	"math"
	"slices"
)

// localBusy estimates the cores of a local-mode run whose log states none
// (local[*], or no master with tasks on the driver).
//
// Counting the tasks running at once in event order over-counts them:
// Spark's local backend frees a core and launches the next task as soon as
// the task reports its status, while its TaskEnd (and its Finish Time, set
// when the driver has handled the result) comes later, so a launch is often
// logged before the end it followed. A task holds its core from its Launch
// Time for about Executor Deserialize Time + Executor Run Time + Result
// Serialization Time; the estimate is the most such busy spans covering one
// instant, a span ending when another starts not overlapping it. A task
// without metrics counts until its Finish Time; a log where no task has
// metrics (the oldest) keeps the event-order count.
//
// The sweep runs as tasks end, holding back only the spans that may still
// overlap one not yet known: a span is swept once it starts no later than
// every task still running and than the latest launch (later launches start
// no earlier). A task running for long (a streaming receiver) would hold
// back every span after its launch; past maxHeldSpans, the older half is
// swept with the tasks still running counted busy since their launch, as
// they are after that many later tasks have ended.
//
// The estimate grows as tasks end. A report counts every span ended so far;
// what is counted at each event (the cores available now, the what-if's
// free slots) takes the spans swept, cheaply, and the event-order count
// until the first is.
type localBusy struct {
	measured int64 // tasks with metrics seen end: with none, no estimate
	peak     int   // most spans covering one instant among those swept
	// at is the sweep's position: every span starting before it has been
	// swept (a span arriving later with an earlier start is counted from at).
	at      int64
	open    minHeap[int64] // ends of the swept spans still open at the position
	held    int            // running tasks a forced sweep counted busy since their launch
	pending minHeap[int64] // ended tasks' spans not swept yet: start, end

	running    map[int64]int64 // task id → launch, started and not ended
	forced     map[int64]bool  // running tasks counted in held
	launches   minHeap[int64]  // running tasks' launches: launch, task id (entries of ended tasks are skipped)
	lastLaunch int64
}

// maxHeldSpans bounds the spans held back for a task still running.
const maxHeldSpans = 4096

// openEnd marks a pending entry that is a running task counted busy until
// it ends.
const openEnd = math.MaxInt64

func (b *localBusy) started(id, launch int64) {
	if b.running == nil {
		b.running, b.forced = map[int64]int64{}, map[int64]bool{}
	}
	b.running[id] = launch
	b.launches.push(pair{launch, id})
	b.lastLaunch = max(b.lastLaunch, launch)
	if len(b.launches) > 2*len(b.running)+64 { // drop the entries of ended tasks
		b.launches = b.launches[:0]
		for id, l := range b.running {
			if !b.forced[id] {
				b.launches.push(pair{l, id})
			}
		}
	}
	b.sweep(false)
}

// ended folds in a task's busy span [launch, end); measured tells whether
// end comes from the task's metrics.
func (b *localBusy) ended(id, launch, end int64, measured bool) {
	if measured {
		b.measured++
	}
	delete(b.running, id)
	if b.forced[id] { // counted busy since its launch: open from the position on
		delete(b.forced, id)
		b.held--
		if end > b.at {
			b.open.push(pair{end, 0})
		}
		b.sweep(false)
		return
	}
	if start := max(launch, b.at); end > start {
		b.pending.push(pair{start, end})
	}
	b.sweep(len(b.pending) > maxHeldSpans)
}

// sweep sweeps the pending spans that no span still unknown can start
// before; force sweeps at least the older half of them.
func (b *localBusy) sweep(force bool) {
	to := b.lastLaunch
	for len(b.launches) > 0 {
		top := b.launches[0]
		if l, ok := b.running[top.val]; ok && l == top.key && !b.forced[top.val] {
			to = min(to, top.key)
			break
		}
		b.launches.pop()
	}
	if force {
		starts := make([]int64, len(b.pending))
		for i, p := range b.pending {
			starts[i] = p.key
		}
		slices.Sort(starts)
		to = min(b.lastLaunch, max(to, starts[len(starts)/2]))
		for id, l := range b.running {
			if l < to && !b.forced[id] {
				b.forced[id] = true
				b.pending.push(pair{max(l, b.at), openEnd})
			}
		}
	}
	for len(b.pending) > 0 && b.pending[0].key <= to {
		p := b.pending.pop()
		b.peak = max(b.peak, addSpan(&b.open, p, &b.held))
	}
	b.at = max(b.at, to)
}

// cores is the estimate: from the spans swept, or with all also from those
// still held back; ok is false before any task with metrics has ended, and
// without all before any busy span has been swept.
func (b *localBusy) cores(all bool) (n int, ok bool) {
	if b.measured == 0 {
		return 0, false
	}
	if !all {
		return b.peak, b.peak > 0
	}
	peak := b.peak
	if len(b.pending) > 0 {
		open, held := slices.Clone(b.open), b.held
		pending := slices.Clone(b.pending)
		slices.SortFunc(pending, func(x, y pair) int { return cmp.Compare(x.key, y.key) })
		for _, p := range pending {
			peak = max(peak, addSpan(&open, p, &held))
		}
	}
	return max(peak, 1), true
}

// addSpan sweeps the span p (start key, end val) into h, the ends of the
// spans open before its start, and returns the spans covering its start:
// ends at its start leave first. held counts the running tasks taken for
// busy.
func addSpan(h *minHeap[int64], p pair, held *int) int {
	for len(*h) > 0 && (*h)[0].key <= p.key {
		h.pop()
	}
	if p.val == openEnd {
		*held++
	} else {
		h.push(pair{p.val, 0})
	}
	return len(*h) + *held
}

// pair is a time with a value (an end, a task id).
type pair = keyed[int64]
