package analysis

import (
	"math"
	"slices"
)

// borderTimeline implements spark-sight's intervals without keeping tasks:
// the borders are every stage's first task launch and last task finish
// (per stage id, all attempts), and segment i holds the values of
// [borders[i−1], borders[i]) (segment 0 and the last are open-ended).
//
// Borders appear in log order: a first launch at the stage's first
// TaskStart, a last finish at each later TaskEnd (the previous last-finish
// border is then dropped and its two segments merged, which is exact).
// Because log order follows time, a new border almost always lies after
// every value already binned in its segment, and the split is exact. When
// a new border cuts through binned values (events out of time order, or a
// log without TaskStart events, where a stage's first launch is known only
// at its first TaskEnd, after earlier stages' longer tasks were binned),
// that segment is binned again from the tasks themselves, each over its
// own span: values are not spread evenly over a segment, so splitting by
// time share would give one side more than its tasks' share (intervals
// over 100 %, issue 24.2). For that the timeline keeps every placed task,
// as spark-sight does (about 80 bytes a task, only with stage borders).
type borderTimeline struct {
	borders []int64
	refs    []int32 // how many stage borders sit at each time
	segs    []seg   // len(borders)+1
	byStage map[int]*stageSpan
	tasks   []placedTask
}

// placedTask is one spread task, kept to bin a split segment again.
type placedTask struct {
	launch, finish int64
	c              contrib
}

type seg struct {
	bucket
	lo, hi int64 // extent of the values binned here (lo > hi when empty)
}

type stageSpan struct{ first, last int64 }

func newBorderTimeline() *borderTimeline {
	return &borderTimeline{segs: []seg{emptySeg()}, byStage: map[int]*stageSpan{}}
}

func emptySeg() seg { return seg{lo: math.MaxInt64, hi: math.MinInt64} }

func (t *borderTimeline) taskStarted(stage int, launch int64) {
	t.noteLaunch(stage, launch)
}

func (t *borderTimeline) taskEnded(stage int, launch, finish int64) {
	t.noteLaunch(stage, launch)
	s := t.byStage[stage]
	if finish > s.last {
		if s.last != math.MinInt64 {
			t.remove(s.last)
		}
		s.last = finish
		t.insert(finish)
	}
}

func (t *borderTimeline) noteLaunch(stage int, launch int64) {
	s := t.byStage[stage]
	if s == nil {
		s = &stageSpan{first: launch, last: math.MinInt64}
		t.byStage[stage] = s
		t.insert(launch)
		return
	}
	if launch < s.first {
		t.remove(s.first)
		s.first = launch
		t.insert(launch)
	}
}

func (t *borderTimeline) insert(b int64) {
	i, found := slices.BinarySearch(t.borders, b)
	if found {
		t.refs[i]++
		return
	}
	// Segment i holds [borders[i-1], borders[i]) and contains b: split it.
	old := &t.segs[i]
	right := emptySeg()
	switch {
	case old.lo > old.hi: // empty
	case old.lo >= b: // everything lies right of b
		right, *old = *old, emptySeg()
	case old.hi <= b: // everything lies left of b: nothing to move
	default: // b cuts through binned values: bin both sides again
		*old = t.binned(t.segStart(i), b)
		right = t.binned(b, t.segEnd(i))
	}
	t.borders = slices.Insert(t.borders, i, b)
	t.refs = slices.Insert(t.refs, i, 1)
	t.segs = slices.Insert(t.segs, i+1, right)
}

func (t *borderTimeline) remove(b int64) {
	i, found := slices.BinarySearch(t.borders, b)
	if !found {
		return
	}
	if t.refs[i]--; t.refs[i] > 0 {
		return
	}
	left, right := &t.segs[i], &t.segs[i+1]
	left.merge(&right.bucket)
	left.lo, left.hi = min(left.lo, right.lo), max(left.hi, right.hi)
	t.borders = slices.Delete(t.borders, i, i+1)
	t.refs = slices.Delete(t.refs, i, i+1)
	t.segs = slices.Delete(t.segs, i+1, i+2)
}

func (t *borderTimeline) segStart(i int) int64 {
	if i == 0 {
		return math.MinInt64
	}
	return t.borders[i-1]
}

func (t *borderTimeline) segEnd(i int) int64 {
	if i == len(t.borders) {
		return math.MaxInt64
	}
	return t.borders[i]
}

func (t *borderTimeline) spread(launch, finish int64, c contrib) {
	t.tasks = append(t.tasks, placedTask{launch, finish, c})
	i, found := slices.BinarySearch(t.borders, launch)
	if found {
		i++ // launch == borders[i] opens segment i+1
	}
	if finish == launch {
		t.put(i, launch, launch, &c, 1)
		return
	}
	d := float64(finish - launch)
	for ; i < len(t.segs) && t.segStart(i) < finish; i++ {
		lo, hi := max(launch, t.segStart(i)), min(finish, t.segEnd(i))
		if hi > lo {
			t.put(i, lo, hi, &c, float64(hi-lo)/d)
		}
	}
}

// binned is the segment [from, to) binned from the placed tasks, each
// piece as spread bins it.
func (t *borderTimeline) binned(from, to int64) seg {
	s := emptySeg()
	for k := range t.tasks {
		p := &t.tasks[k]
		if p.finish == p.launch {
			if p.launch >= from && p.launch < to {
				s.add(&p.c, 1)
				s.lo, s.hi = min(s.lo, p.launch), max(s.hi, p.launch)
			}
			continue
		}
		lo, hi := max(p.launch, from), min(p.finish, to)
		if hi > lo {
			s.add(&p.c, float64(hi-lo)/float64(p.finish-p.launch))
			s.lo, s.hi = min(s.lo, lo), max(s.hi, hi)
		}
	}
	return s
}

func (t *borderTimeline) put(i int, lo, hi int64, c *contrib, f float64) {
	s := &t.segs[i]
	s.add(c, f)
	s.lo, s.hi = min(s.lo, lo), max(s.hi, hi)
}

// intervals reports [from, b0), [b0, b1), …, [bn, to): the application's
// life cut at every border.
func (t *borderTimeline) intervals(from, to int64) []span {
	out := make([]span, 0, len(t.segs))
	for i := range t.segs {
		s := &t.segs[i]
		start, end := t.segStart(i), t.segEnd(i)
		if i == 0 {
			start = min(from, s.lo, end)
		}
		if i == len(t.borders) {
			end = max(to, s.hi, start)
		}
		if end <= start && s.empty() {
			continue
		}
		out = append(out, span{start: start, end: end, b: &s.bucket})
	}
	return out
}
