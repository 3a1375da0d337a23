package analysis

import (
	"cmp"
	"container/heap"
	"context"
	"maps"
	"math"
	"slices"
)

// WhatIf answers "what would more, or fewer, executors change?" from the
// event log alone, the way Sparklens does: each stage attempt's task
// durations are replayed on task slots, tasks in index order onto the
// earliest free slot, a stage starting when the stages it waited for end,
// with the driver's time kept as it was. Times are milliseconds.
//
// The slots follow the executors the run really had: at each moment of
// the replay, those of the executors alive at that moment of the real
// run (added, not yet removed), the ones alive when the last stage ended
// kept beyond it. A prediction for N executors scales that timeline by
// N / today's peak (rounded, at least one slot while any executor was
// alive): for a run whose executors all lived throughout, N fixed
// executors; for dynamic allocation or lost executors, N/peak × the
// executors alive at each moment. Tasks running when executors leave
// finish (their failed attempts are in the durations already). A stage
// attempt that excluded executors (or every executor of a host) runs, from
// each exclusion's time on, at most as many tasks at once as the slots of
// the executors it still may use, on the same scale; the free slots of
// the others are not counted as its tasks' launch waits.
//
// The replay is a model: it keeps every gap the driver left between a
// stage and the ones it waited for (its parents, the previous attempt, and
// the last stage that ended before it was submitted, which orders jobs),
// each stage's time from its last task's end to its completion, and with
// each task the time the slot it took had been free while its stage was
// launching (locality waits, launch overhead) and, for a retry, the time
// no executor was alive since its failed attempt (a lost executor's
// replacement starting). It does not model tasks that would run faster
// or slower on other hardware.
type WhatIf struct {
	WallMs     int64 `json:"wallMs"`     // the application's wall time
	DriverMs   int64 `json:"driverMs"`   // wall time with no stage running: the driver's own time
	ExecutorMs int64 `json:"executorMs"` // wall time with at least one stage running
	// Executors is today's peak: the most executors alive at once (in
	// local mode the driver, counted as one executor).
	Executors        int  `json:"executors"`
	CoresPerExecutor int  `json:"coresPerExecutor"`
	SlotsPerExecutor int  `json:"slotsPerExecutor"` // tasks at once per executor: cores / spark.task.cpus
	Local            bool `json:"local,omitempty"`
	// Bucketed is true when some stage had more tasks than the replay
	// keeps one by one (16384): runs of consecutive tasks were replayed
	// as one, which is exact only while tasks outnumber slots.
	Bucketed     bool         `json:"bucketed,omitempty"`
	CriticalPath CriticalPath `json:"criticalPath"`
	// Predictions are for ¼, ½, 1, 2 and 4 × today's executors and the
	// ideal count, by executor count: each the peak of the real executor
	// timeline scaled to it.
	Predictions []Prediction `json:"predictions"`
	// IdealExecutors is the fewest executors whose predicted wall time is
	// within Tolerance of the prediction at today's count; CoreHoursSaved
	// is the predicted core-hours at today's count minus at that one.
	IdealExecutors int     `json:"idealExecutors"`
	CoreHoursSaved float64 `json:"coreHoursSaved"`
	Tolerance      float64 `json:"tolerance"`
	// AsOf is the log time (epoch ms) the what-if reflects: a running
	// application's is replayed again after 5 s of its log (longer for a
	// big one: whatIfLiveEvery), not at every snapshot.
	AsOf int64 `json:"asOf"`
}

// CriticalPath is the longest chain of stage attempts through the stage
// DAG and the job order: with infinite executors every task starts at
// once, and the application still takes WallMs.
type CriticalPath struct {
	WallMs     int64           `json:"wallMs"`     // the lower bound on wall time with infinite executors
	ExecutorMs int64           `json:"executorMs"` // WallMs minus the driver's time
	StageCount int             `json:"stageCount"` // stage attempts on the path
	Stages     []CriticalStage `json:"stages"`     // the longest of them (at most 100), in path order
}

// CriticalStage is one stage attempt on the critical path: its longest
// task (or run of tasks, with the waits for their launch) plus its time
// from its last task to completion.
type CriticalStage struct {
	StageID    int   `json:"stageId"`
	AttemptID  int   `json:"attemptId"`
	DurationMs int64 `json:"durationMs"`
}

// Prediction is the replay's wall time with the real executor timeline
// scaled to a peak of Executors executors.
type Prediction struct {
	Executors  int     `json:"executors"`
	Factor     float64 `json:"factor"` // Executors / today's peak: the timeline's scale
	WallMs     int64   `json:"wallMs"`
	ExecutorMs int64   `json:"executorMs"` // WallMs minus the driver's time
	// CoreHours is the scaled timeline's cores over the predicted wall
	// time, in hours: Executors × cores × WallMs when all lived throughout.
	CoreHours float64 `json:"coreHours"`
}

// whatIfFactors are the executor counts every what-if predicts, as
// multiples of today's peak.
var whatIfFactors = []float64{0.25, 0.5, 1, 2, 4}

// maxCriticalStages bounds the stages the critical path lists.
const maxCriticalStages = 100

// wiCache keeps the replay's results while its input is unchanged: a live
// application's snapshot is taken again and again.
type wiCache struct {
	version int64
	start   int64
	g       *wiGraph
	// alive is the executor timeline the ends were replayed on, allowed
	// the executors each stage attempt with exclusions could use.
	alive   []wiStep
	allowed map[int32][]wiStep
	ends    map[int]int64 // executors at the peak → simulated end (epoch ms)
	// critical is the infinite-executor replay, its WallMs the epoch ms
	// at which it ends.
	critical *CriticalPath
	// last is the latest result, kept for a running application's
	// snapshots within whatIfLiveEvery of it.
	last *WhatIf
}

// whatIfLiveMinMs is how much log time passes, at least, before a
// running application's what-if is replayed again (snapshots come every
// 200 ms).
const whatIfLiveMinMs = 5_000

// whatIfLiveEvery is how much log time passes before a running
// application's what-if, whose replay holds tasks task durations, is
// replayed again: whatIfLiveMinMs, or longer for a big application, whose
// what-if costs about a second per million task durations, so that the
// replays take at most about 2 % of the time the application runs.
func whatIfLiveEvery(tasks int) int64 { return max(whatIfLiveMinMs, int64(tasks)/20) }

// whatIfMinLiveStageMs is the stage time (wall time with some stage
// running) a running application needs before its what-if may raise a
// finding.
const whatIfMinLiveStageMs = 60_000

// supportsFindings tells whether the what-if of r rests on enough of the
// run to raise a finding: a finished application's always does; a running
// one's once some stage attempt has completed and its stages have run for
// whatIfMinLiveStageMs. Before, the replay holds the first tasks of a stage
// whose others are still running, which any executor count runs as fast.
func (w *WhatIf) supportsFindings(r *Report) bool {
	if !r.Live {
		return true
	}
	if w.ExecutorMs < whatIfMinLiveStageMs {
		return false
	}
	for i := range r.Stages {
		if s := r.Stages[i].Status; s == StatusComplete || s == StatusFailed {
			return true
		}
	}
	return false
}

func (w *WhatIf) clone() *WhatIf {
	c := *w
	c.Predictions = slices.Clone(w.Predictions)
	c.CriticalPath.Stages = slices.Clone(w.CriticalPath.Stages)
	return &c
}

func (a *App) whatIf(ctx context.Context, r *Report) *WhatIf {
	c := &a.deep.cache
	if last := c.last; last != nil && !a.ended && r.LastEventTime >= last.AsOf && c.g != nil && r.LastEventTime-last.AsOf < whatIfLiveEvery(c.g.tasks) {
		return last.clone()
	}
	w := a.replayWhatIf(ctx, r)
	a.deep.cache.last = nil
	if w != nil && ctx.Err() == nil {
		w.AsOf = r.LastEventTime
		a.deep.cache.last = w.clone()
	}
	return w
}

// replayWhatIf returns nil, keeping only finished replays in the cache,
// once ctx is done.
func (a *App) replayWhatIf(ctx context.Context, r *Report) *WhatIf {
	peak, cores, local := a.whatIfShape(r.End)
	if peak <= 0 || cores <= 0 {
		return nil
	}
	c := &a.deep.cache
	if c.g == nil || c.version != a.deep.version || c.start != r.Start {
		*c = wiCache{version: a.deep.version, start: r.Start, g: a.buildWIGraph(r), ends: map[int]int64{}, last: c.last}
	}
	g := c.g
	if len(g.nodes) == 0 {
		return nil
	}
	slots := max(cores/max(a.cpusPerTask, 1), 1)
	w := &WhatIf{
		WallMs: max(r.End-r.Start, 0), Executors: peak, CoresPerExecutor: cores, SlotsPerExecutor: slots,
		Local: local, Bucketed: g.bucketed, Tolerance: a.cfg.Thresholds.ExecutorCountTolerance,
	}
	w.ExecutorMs = min(g.busyMs(r.Start, r.End), w.WallMs)
	w.DriverMs = w.WallMs - w.ExecutorMs
	alive := a.whatIfTimeline(peak, cores, local, g.lastEnd)
	var allowed map[int32][]wiStep
	if !local && a.cfg.CPUs <= 0 {
		for i := range g.nodes {
			if x := g.nodes[i].excluded; len(x) > 0 {
				if allowed == nil {
					allowed = map[int32][]wiStep{}
				}
				allowed[int32(i)] = a.executorTimeline(g.lastEnd, x)
			}
		}
	}
	if !slices.Equal(alive, c.alive) || !maps.EqualFunc(allowed, c.allowed, slices.Equal) {
		c.alive, c.allowed, c.ends = alive, allowed, map[int]int64{}
	}
	// The driver's time after the last stage is kept as it was.
	tail := max(r.End-g.lastEnd, 0)
	// Each goroutine scales the timeline into its own buffer: a million
	// executors make it 24 MB, and twenty-odd replays.
	replay := func(execs int, scaled *[]wiStep) int64 {
		var caps map[int32][]wiStep
		if allowed != nil {
			caps = make(map[int32][]wiStep, len(allowed))
			for i, steps := range allowed {
				caps[i] = scaleTimeline(nil, steps, execs, peak)
			}
		}
		*scaled = scaleTimeline((*scaled)[:0], alive, execs, peak)
		end, _ := g.simulate(*scaled, caps, r.Start)
		return end
	}
	var scaled, scaledAhead []wiStep
	wall := func(execs int) int64 {
		end, ok := c.ends[execs]
		if !ok {
			end = replay(execs, &scaled)
			c.ends[execs] = end
		}
		return max(end-r.Start, 0) + tail
	}
	counts := []int{}
	for _, f := range whatIfFactors {
		counts = append(counts, max(int(math.Round(f*float64(peak))), 1))
	}
	slices.Sort(counts)
	counts = slices.Compact(counts)
	// The replays are independent (each reads the graph and keeps its own
	// state), so the infinite-executor one and those of the fixed factors
	// run on another goroutine while this one searches for the fewest
	// executors: on two cores the end of a big application's analysis
	// waits for about half of them. The results do not depend on which
	// goroutine computes what.
	var ahead []int
	for _, n := range counts {
		if _, ok := c.ends[n]; !ok && n != peak {
			ahead = append(ahead, n)
		}
	}
	type critical struct {
		end  int64
		path []int32
	}
	aheadEnds := make([]int64, len(ahead))
	var crit *critical
	done := make(chan struct{})
	go func() {
		defer close(done)
		if c.critical == nil {
			end, path := g.simulate(nil, nil, r.Start)
			crit = &critical{end, path}
		}
		for i, n := range ahead {
			if ctx.Err() != nil {
				return
			}
			aheadEnds[i] = replay(n, &scaledAhead)
		}
	}()
	predict := func(n int) Prediction {
		ms := wall(n)
		return Prediction{Executors: n, Factor: float64(n) / float64(peak), WallMs: ms,
			ExecutorMs: max(ms-w.DriverMs, 0), CoreHours: coreMs(alive, r.Start, r.Start+ms) * float64(n) / float64(peak) / 3.6e6}
	}

	today := wall(peak)
	limit := float64(today) * (1 + max(w.Tolerance, 0))
	lo, hi := 1, peak // the fewest executors within the tolerance; hi always is
	for lo < hi && ctx.Err() == nil {
		mid := lo + (hi-lo)/2
		if float64(wall(mid)) <= limit {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	<-done
	if ctx.Err() != nil {
		return nil
	}
	for i, n := range ahead {
		c.ends[n] = aheadEnds[i]
	}
	if crit != nil {
		cp := g.criticalPath(crit.path)
		cp.WallMs = crit.end // made relative below
		c.critical = &cp
	}
	w.CriticalPath = *c.critical
	w.CriticalPath.Stages = slices.Clone(c.critical.Stages)
	w.CriticalPath.WallMs = max(c.critical.WallMs-r.Start, 0) + tail
	w.CriticalPath.ExecutorMs = max(w.CriticalPath.WallMs-w.DriverMs, 0)

	w.IdealExecutors = hi
	counts = append(counts, hi)
	slices.Sort(counts)
	for _, n := range slices.Compact(counts) {
		w.Predictions = append(w.Predictions, predict(n))
	}
	w.CoreHoursSaved = predict(peak).CoreHours - predict(hi).CoreHours
	return w
}

// whatIfShape is today's executors: the most alive at once and the most
// common core count among them; in local mode the driver, as one
// executor with the local cores; with --cpus, that many cores in all.
func (a *App) whatIfShape(end int64) (peak, cores int, local bool) {
	type change struct {
		t     int64
		delta int
	}
	changes := make([]change, 0, 2*a.lifetimes.len())
	coreCount := map[int]int{}
	for l := range a.lifetimes.values() {
		if l.exec == "driver" || l.cores <= 0 {
			continue
		}
		if l.open {
			l.to = end
		}
		coreCount[l.cores]++
		changes = append(changes, change{l.from, +1}, change{max(l.to, l.from), -1})
	}
	// Ends before starts at the same instant: an executor replaced at once
	// is not two.
	slices.SortFunc(changes, func(x, y change) int { return cmp.Or(cmp.Compare(x.t, y.t), cmp.Compare(x.delta, y.delta)) })
	n := 0
	for _, c := range changes {
		n += c.delta
		peak = max(peak, n)
	}
	for c, k := range coreCount {
		if k > coreCount[cores] || (k == coreCount[cores] && c > cores) {
			cores = c
		}
	}
	if peak == 0 {
		if c, _, ok := a.localDriver(); ok && c > 0 {
			peak, cores, local = 1, c, true
		} else if i, ok := a.execIndex.lookup("driver"); ok && a.slots.at(i).openLife >= 0 && a.lifetimes.at(a.slots.at(i).openLife).cores > 0 {
			peak, cores, local = 1, a.lifetimes.at(a.slots.at(i).openLife).cores, true
		}
	}
	if a.cfg.CPUs > 0 {
		peak = max(peak, 1)
		cores = max(a.cfg.CPUs/peak, 1)
	}
	return peak, cores, local
}

// wiStep is the executors alive from t until the next step: their task
// slots and cores.
type wiStep struct {
	t            int64
	slots, cores int
}

// whatIfTimeline is the executors the run really had, as steps in time
// order: each executor from its addition to its removal. Executors still
// alive when the last stage ended (lastEnd) are kept alive beyond it, so
// a slower replay never runs out of them; in local mode or with --cpus,
// today's peak throughout.
func (a *App) whatIfTimeline(peak, cores int, local bool, lastEnd int64) []wiStep {
	if local || a.cfg.CPUs > 0 {
		return []wiStep{{math.MinInt64, peak * max(cores/max(a.cpusPerTask, 1), 1), peak * cores}}
	}
	return a.executorTimeline(lastEnd, nil)
}

// executorTimeline is whatIfTimeline's steps for executors, less those a
// stage attempt excluded (directly or by their host), each from the
// exclusion's time on.
func (a *App) executorTimeline(lastEnd int64, excluded []wiExclusion) []wiStep {
	cpus := max(a.cpusPerTask, 1)
	type change struct {
		t            int64
		slots, cores int
	}
	changes := make([]change, 0, 2*a.lifetimes.len())
	for l := range a.lifetimes.values() {
		if l.exec == "driver" || l.cores <= 0 {
			continue
		}
		out := int64(math.MaxInt64) // when the stage attempt excluded it
		for _, x := range excluded {
			if x.exec == l.exec || (x.host != "" && x.host == l.host) {
				out = min(out, x.t)
			}
		}
		if out <= l.from {
			continue
		}
		s := max(l.cores/cpus, 1)
		changes = append(changes, change{l.from, s, l.cores})
		switch {
		case !l.open && l.to < lastEnd && l.to <= out:
			changes = append(changes, change{max(l.to, l.from), -s, -l.cores})
		case out < math.MaxInt64:
			changes = append(changes, change{out, -s, -l.cores})
		}
	}
	slices.SortFunc(changes, func(x, y change) int { return cmp.Compare(x.t, y.t) })
	steps := make([]wiStep, 1, len(changes)+1)
	steps[0] = wiStep{t: math.MinInt64}
	for _, c := range changes {
		last := steps[len(steps)-1]
		if c.t != last.t {
			steps = append(steps, wiStep{c.t, last.slots, last.cores})
		}
		steps[len(steps)-1].slots += c.slots
		steps[len(steps)-1].cores += c.cores
	}
	// Executors all gone before the last stage ended (its tasks ran on
	// executors whose end was logged early): the last ones seen stay.
	if n := len(steps); steps[n-1].slots <= 0 {
		for i := n - 2; i > 0; i-- {
			if steps[i].slots > 0 {
				steps[n-1].slots, steps[n-1].cores = steps[i].slots, steps[i].cores
				break
			}
		}
	}
	return steps
}

// scaleTimeline is the timeline with execs executors at today's peak:
// every step's slots × execs / peak, rounded, at least one slot where
// any executor was alive; appended to dst.
func scaleTimeline(dst, alive []wiStep, execs, peak int) []wiStep {
	if dst == nil {
		dst = make([]wiStep, 0, len(alive)) // never nil: nil is the unlimited replay
	}
	for _, s := range alive {
		n := (s.slots*execs + peak/2) / peak
		if s.slots > 0 {
			n = max(n, 1)
		}
		dst = append(dst, wiStep{t: s.t, slots: n})
	}
	return dst
}

// coreMs is the timeline's core-milliseconds from start to end.
func coreMs(alive []wiStep, start, end int64) float64 {
	var sum float64
	for i, s := range alive {
		from, to := max(s.t, start), end
		if i+1 < len(alive) {
			to = min(to, alive[i+1].t)
		}
		if to > from {
			sum += float64(s.cores) * float64(to-from)
		}
	}
	return sum
}

// wiGraph is the replay's input: stage attempts that ran, in submission
// order, with the stage attempts each waited for.
type wiGraph struct {
	nodes    []wiNode
	lastEnd  int64 // the latest real end of a stage attempt
	bucketed bool
	tasks    int // task durations (or runs of them) held, what a replay's cost grows with
}

type wiNode struct {
	key      stageKey
	job      int
	sub, end int64 // real submission and completion
	// lag is the real time from the end of the last stage attempt it
	// waited for to its submission (from the application's start when it
	// waited for none): the driver's time, kept in every prediction.
	lag int64
	// tail is the real time from its last task's end to its completion
	// (its whole run when no task was seen), also kept.
	tail int64
	// head is the real time from its submission to its first task's
	// launch while some slot was free: the scheduler's share of starting
	// it (waiting for other stages' tasks is the replay's to predict).
	head int64
	// excluded is the executors and nodes excluded for it (see
	// executorTimeline).
	excluded []wiExclusion
	preds    []int32
	succs    []int32
	buckets  []uint32
}

func (a *App) buildWIGraph(r *Report) *wiGraph {
	g := &wiGraph{lastEnd: r.Start}
	for k, s := range a.deep.stages {
		sub := s.submission
		if s.tasks > 0 && (sub <= 0 || sub > s.firstLaunch) {
			sub = s.firstLaunch
		}
		if sub <= 0 {
			continue // never submitted, and no task ran
		}
		end := s.completion
		switch {
		case end <= 0 && s.tasks == 0:
			continue // submitted, still waiting for its first task
		case end <= 0:
			end = s.lastFinish // still running: counted to its last task's end
		}
		end = max(end, sub, s.lastFinish)
		if !a.plausible(sub) || !a.plausible(end) || end-sub > maxTaskSpanMs {
			continue // a broken clock: no time to replay
		}
		tail := end - sub
		if s.tasks > 0 {
			tail = end - s.lastFinish
		}
		if len(s.buckets) > 0 && s.width > 1 {
			g.bucketed = true
		}
		head := int64(0)
		if s.tasks > 0 && s.launched {
			head = min(max(s.freeAtLaunch-s.freeAtSubmission, 0), s.firstLaunch-sub)
		}
		g.nodes = append(g.nodes, wiNode{key: k, job: s.job, sub: sub, end: end, head: head, tail: tail, buckets: s.buckets, excluded: s.excluded})
		g.tasks += len(s.buckets)
		g.lastEnd = max(g.lastEnd, end)
	}
	nodes := g.nodes
	slices.SortFunc(nodes, func(x, y wiNode) int {
		return cmp.Or(cmp.Compare(x.sub, y.sub), cmp.Compare(x.end, y.end), cmp.Compare(x.key.id, y.key.id), cmp.Compare(x.key.attempt, y.key.attempt))
	})
	attempts := map[int][]int32{} // stage id → its nodes, in order
	for i := range nodes {
		attempts[nodes[i].key.id] = append(attempts[nodes[i].key.id], int32(i))
	}
	byEnd := make([]int32, len(nodes))
	for i := range byEnd {
		byEnd[i] = int32(i)
	}
	slices.SortFunc(byEnd, func(x, y int32) int { return cmp.Or(cmp.Compare(nodes[x].end, nodes[y].end), cmp.Compare(x, y)) })

	// An edge p → i needs p earlier in the order and ended by i's
	// submission, so the graph has no cycle whatever the timestamps.
	for i := range nodes {
		n := &nodes[i]
		add := func(p int32) {
			if int(p) < i && nodes[p].end <= n.sub && !slices.Contains(n.preds, p) {
				n.preds = append(n.preds, p)
			}
		}
		// Each parent stage's latest attempt that ended by then.
		for _, pid := range a.deep.parents[n.key.id] {
			as := attempts[pid]
			for j := len(as) - 1; j >= 0; j-- {
				if p := as[j]; int(p) < i && nodes[p].end <= n.sub {
					add(p)
					break
				}
			}
		}
		// The previous attempt of the same stage.
		for _, p := range attempts[n.key.id] {
			if int(p) < i && nodes[p].key.attempt < n.key.attempt {
				add(p)
			}
		}
		// The last stage attempt that ended before it was submitted: what
		// the driver waited for before going on (the previous job, or
		// the previous step of this one).
		j, _ := slices.BinarySearchFunc(byEnd, n.sub, func(x int32, t int64) int {
			if nodes[x].end <= t {
				return -1
			}
			return 1
		})
		for k, steps := j-1, 0; k >= 0 && steps < 64; k, steps = k-1, steps+1 {
			if int(byEnd[k]) < i {
				add(byEnd[k])
				break
			}
		}
		latest := r.Start
		for _, p := range n.preds {
			latest = max(latest, nodes[p].end)
			nodes[p].succs = append(nodes[p].succs, int32(i))
		}
		n.lag = max(n.sub-latest, 0)
	}
	return g
}

// busyMs is the wall time within [start, end] covered by some stage
// attempt's run.
func (g *wiGraph) busyMs(start, end int64) int64 {
	var busy int64
	cur, curEnd := int64(0), int64(math.MinInt64)
	for _, n := range g.nodes { // sorted by submission
		from, to := max(n.sub, start), min(n.end, end)
		if to <= from {
			continue
		}
		if from > curEnd {
			busy += max(curEnd-cur, 0)
			cur, curEnd = from, to
		} else {
			curEnd = max(curEnd, to)
		}
	}
	return busy + max(curEnd-cur, 0)
}

// simulation events, processed in time order.
const (
	evReady    = iota // a stage attempt may start its tasks
	evTaskDone        // one of its tasks (or runs of tasks) ended
	evDone            // the stage attempt completed
)

// wiEvent is a simulation event at its time (the key): what happens, to
// which stage attempt, and for evTaskDone how many of its tasks ended (the
// tasks launched together with the same duration are one event: with a
// million executors a replay would otherwise hold a million in the heap).
type wiEvent = keyed[wiTarget]

type wiTarget struct {
	kind  uint8
	node  int32
	tasks int32
}

// wiReady is the stage attempts with tasks left to launch, by Spark's FIFO
// priority: the lower job id first, then the lower stage id.
type wiReady struct {
	g     *wiGraph
	nodes []int32
}

func (h wiReady) Len() int { return len(h.nodes) }
func (h wiReady) Less(i, j int) bool {
	x, y := &h.g.nodes[h.nodes[i]], &h.g.nodes[h.nodes[j]]
	return cmp.Or(cmp.Compare(x.job, y.job), cmp.Compare(x.key.id, y.key.id), cmp.Compare(x.key.attempt, y.key.attempt), cmp.Compare(h.nodes[i], h.nodes[j])) < 0
}
func (h wiReady) Swap(i, j int) { h.nodes[i], h.nodes[j] = h.nodes[j], h.nodes[i] }
func (h *wiReady) Push(x any)   { h.nodes = append(h.nodes, x.(int32)) }
func (h *wiReady) Pop() any {
	x := h.nodes[len(h.nodes)-1]
	h.nodes = h.nodes[:len(h.nodes)-1]
	return x
}

// simulate replays the graph from start on the task slots of the
// timeline (nil: as many as there are tasks), and returns when the last
// stage attempt ends and, per node, the node it waited for last (-1:
// none), which traces the critical path back from the node that ended
// last. When the slots shrink below the tasks running, those finish and
// no new one starts until one is free. A stage attempt in caps also runs
// at most as many tasks at once as its step there (at least one): the
// slots of the executors it had not excluded.
func (g *wiGraph) simulate(slots []wiStep, caps map[int32][]wiStep, start int64) (end int64, waitedFor []int32) {
	n := len(g.nodes)
	capacity, running := math.MaxInt, 0
	if slots != nil {
		capacity = 0
	}
	pending := make([]int32, n)
	left := make([]int32, n)
	next := make([]int32, n)
	simEnd := make([]int64, n)
	waitedFor = make([]int32, n)
	var runs []int32    // tasks running per stage attempt, when some are capped
	var blocked []int32 // capped stage attempts set aside while launching
	if len(caps) > 0 {
		runs = make([]int32, n)
	}
	events := make(minHeap[wiTarget], 0, 64)
	ready := &wiReady{g: g}
	readyAt := func(i int32) {
		nd := &g.nodes[i]
		t, last := start, int32(-1)
		for _, p := range nd.preds {
			if simEnd[p] >= t {
				t, last = simEnd[p], p
			}
		}
		waitedFor[i] = last
		events.push(wiEvent{t + nd.lag + nd.head, wiTarget{kind: evReady, node: i}})
	}
	// The timeline's steps (sorted, each at its own time) are read in
	// order beside the events rather than pushed among them.
	step := 0
	for step < len(slots) && slots[step].t <= start {
		capacity = slots[step].slots
		step++
	}
	for i := range g.nodes {
		pending[i] = int32(len(g.nodes[i].preds))
		if pending[i] == 0 {
			readyAt(int32(i))
		}
	}
	end = start
	last := int32(-1)
	for len(events) > 0 || step < len(slots) {
		var t int64
		switch {
		case len(events) == 0:
			t = slots[step].t
		case step < len(slots):
			t = min(events[0].key, slots[step].t)
		default:
			t = events[0].key
		}
		for step < len(slots) && slots[step].t <= t {
			capacity = slots[step].slots
			step++
		}
		for len(events) > 0 && events[0].key == t {
			ev := events.pop()
			nd := &g.nodes[ev.val.node]
			switch ev.val.kind {
			case evReady:
				if len(nd.buckets) == 0 {
					events.push(wiEvent{t + nd.tail, wiTarget{kind: evDone, node: ev.val.node}})
					continue
				}
				left[ev.val.node] = int32(len(nd.buckets))
				heap.Push(ready, ev.val.node)
			case evTaskDone:
				running -= int(ev.val.tasks)
				if runs != nil {
					runs[ev.val.node] -= ev.val.tasks
				}
				if left[ev.val.node] -= ev.val.tasks; left[ev.val.node] == 0 {
					events.push(wiEvent{t + nd.tail, wiTarget{kind: evDone, node: ev.val.node}})
				}
			case evDone:
				simEnd[ev.val.node] = t
				if t >= end {
					end, last = t, ev.val.node
				}
				for _, s := range nd.succs {
					if pending[s]--; pending[s] == 0 {
						readyAt(s)
					}
				}
			}
		}
		// Tasks in index order onto the free slots, the highest-priority
		// stage attempt first. Consecutive ones of a stage attempt with the
		// same end are one event (only when the slots are limited: the
		// unlimited replay traces the critical path, whose ties follow the
		// order of the events in the heap).
		var run wiEvent
		flush := func() {
			if run.val.tasks > 0 {
				events.push(run)
				run.val.tasks = 0
			}
		}
		for running < capacity && ready.Len() > 0 {
			i := ready.nodes[0]
			nd := &g.nodes[i]
			if runs != nil {
				if c, ok := caps[i]; ok && int(runs[i]) >= max(stepAt(c, t), 1) {
					blocked = append(blocked, heap.Pop(ready).(int32))
					continue
				}
				runs[i]++
			}
			done := t + int64(nd.buckets[next[i]])
			if slots == nil {
				events.push(wiEvent{done, wiTarget{evTaskDone, i, 1}})
			} else {
				if run.val.tasks > 0 && (run.val.node != i || run.key != done) {
					flush()
				}
				run.key, run.val.kind, run.val.node = done, evTaskDone, i
				run.val.tasks++
			}
			running++
			if next[i]++; int(next[i]) == len(nd.buckets) {
				heap.Pop(ready)
			}
		}
		flush()
		for _, i := range blocked {
			heap.Push(ready, i)
		}
		blocked = blocked[:0]
	}
	path := []int32{}
	for i := last; i >= 0; i = waitedFor[i] {
		path = append(path, i)
	}
	slices.Reverse(path)
	return end, path
}

// stepAt is the timeline's slots at t.
func stepAt(steps []wiStep, t int64) int {
	i, _ := slices.BinarySearchFunc(steps, t, func(s wiStep, t int64) int {
		if s.t <= t {
			return -1
		}
		return 1
	})
	if i == 0 {
		return 0
	}
	return steps[i-1].slots
}

// criticalPath describes the chain of nodes the infinite-executor replay
// waited on: each one's longest task plus its tail.
func (g *wiGraph) criticalPath(path []int32) CriticalPath {
	cp := CriticalPath{StageCount: len(path), Stages: make([]CriticalStage, 0, min(len(path), maxCriticalStages))}
	all := make([]CriticalStage, len(path))
	for k, i := range path {
		nd := &g.nodes[i]
		longest := int64(0)
		for _, b := range nd.buckets {
			longest = max(longest, int64(b))
		}
		all[k] = CriticalStage{StageID: nd.key.id, AttemptID: nd.key.attempt, DurationMs: longest + nd.tail}
	}
	if len(all) <= maxCriticalStages {
		cp.Stages = append(cp.Stages, all...)
		return cp
	}
	// The longest ones, kept in path order.
	order := make([]int, len(all))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(all[y].DurationMs, all[x].DurationMs) })
	keep := order[:maxCriticalStages]
	slices.Sort(keep)
	for _, i := range keep {
		cp.Stages = append(cp.Stages, all[i])
	}
	return cp
}
