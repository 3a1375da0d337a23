package analysis

// fixedTimeline holds intervals [k·w, (k+1)·w), k0 ≤ k < k0+n, in a ring
// buffer: interval k0 sits at ring[head]. Sliding the window forward only
// moves head, so a long-running application costs work in proportion to
// the intervals it touches, never intervals × window.
//
// Invariant: every ring slot outside the n in use is a zero bucket, so a
// slot taken into use needs no initialisation.
type fixedTimeline struct {
	w       int64
	k0      int64
	ring    []bucket // len(ring) is the capacity; grows by doubling up to maxBuckets
	head, n int
	dropped bucket // scratch for values beyond maxBuckets; never reported

	// moved counts buckets copied when the ring grows: the window's whole
	// upkeep, kept so that tests can check it stays linear.
	moved int64
}

func newFixedTimeline(w int64) *fixedTimeline {
	return &fixedTimeline{w: max(w, 1)}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// maxIntervals bounds a timeline whatever the interval width, so that memory
// and every report stay bounded (23 days of 10 s intervals).
const maxIntervals = 200_000

// maxBuckets is the window the timeline keeps: a year of intervals at the
// configured width, at most maxIntervals.
func (t *fixedTimeline) maxBuckets() int64 { return min(max(maxAppSpanMs/t.w, 1), maxIntervals) }

// slot returns the bucket of interval k0+i (0 ≤ i < len(ring)).
func (t *fixedTimeline) slot(i int) *bucket {
	j := t.head + i
	if j >= len(t.ring) {
		j -= len(t.ring)
	}
	return &t.ring[j]
}

// release zeroes count slots from ring index i on (wrapping), dropping
// their values and the memory they hold.
func (t *fixedTimeline) release(i, count int) {
	first := min(count, len(t.ring)-i)
	clear(t.ring[i : i+first])
	clear(t.ring[:count-first])
}

// reserve makes room for want buckets, unrolling the ring into a larger
// one (doubling, so growth costs amortised O(1) per bucket).
func (t *fixedTimeline) reserve(want int) {
	if want <= len(t.ring) {
		return
	}
	grown := make([]bucket, min(max(want, 2*len(t.ring), 64), int(t.maxBuckets())))
	for i := range t.n {
		grown[i] = *t.slot(i)
	}
	t.moved += int64(t.n)
	t.ring, t.head = grown, 0
}

// at returns the bucket of interval k, growing the window on either side.
// The window slides forward: a long-running application keeps its latest
// maxBuckets intervals; a value older than the window goes to a scratch
// bucket that is never reported.
func (t *fixedTimeline) at(k int64) *bucket {
	limit := t.maxBuckets()
	switch n := int64(t.n); {
	case n == 0:
		t.reserve(1)
		t.k0, t.n = k, 1
	case k < t.k0:
		before := t.k0 - k
		if n+before > limit {
			t.dropped = bucket{}
			return &t.dropped
		}
		t.reserve(t.n + int(before))
		t.head -= int(before)
		if t.head < 0 {
			t.head += len(t.ring)
		}
		t.k0, t.n = k, t.n+int(before)
	case k >= t.k0+n:
		if drop := k - t.k0 + 1 - limit; drop >= n {
			t.release(t.head, t.n)
			t.k0, t.n, t.head = k, 0, 0
		} else if drop > 0 {
			t.release(t.head, int(drop))
			t.head = (t.head + int(drop)) % len(t.ring)
			t.k0, t.n = t.k0+drop, t.n-int(drop)
		}
		t.reserve(int(k-t.k0) + 1)
		t.n = int(k-t.k0) + 1
	}
	return t.slot(int(k - t.k0))
}

func (t *fixedTimeline) spread(launch, finish int64, c contrib) {
	if finish == launch {
		t.at(floorDiv(launch, t.w)).add(&c, 1)
		return
	}
	d := float64(finish - launch)
	for k := floorDiv(launch, t.w); k*t.w < finish; k++ {
		lo, hi := max(launch, k*t.w), min(finish, (k+1)*t.w)
		t.at(k).add(&c, float64(hi-lo)/d)
	}
}

func (t *fixedTimeline) taskStarted(int, int64)      {}
func (t *fixedTimeline) taskEnded(int, int64, int64) {}

// intervals lists every interval from the one holding from to the one
// holding to (inclusive), plus any that hold task values outside. It does
// not change the timeline: intervals without task values get empty buckets
// of their own, so a report taken before any timestamp is harmless.
func (t *fixedTimeline) intervals(from, to int64) []span {
	lo, hi := t.k0, t.k0+int64(t.n)-1 // hi < lo when empty
	if from <= to {
		kf, kt := floorDiv(from, t.w), floorDiv(to, t.w)
		if t.n == 0 {
			lo, hi = kf, kt
		} else {
			lo, hi = min(lo, kf), max(hi, kt)
		}
	}
	if hi < lo {
		return nil
	}
	lo = max(lo, hi-t.maxBuckets()+1)
	out := make([]span, 0, hi-lo+1)
	for k := lo; k <= hi; k++ {
		b := &bucket{}
		if i := k - t.k0; i >= 0 && i < int64(t.n) {
			b = t.slot(int(i))
		}
		out = append(out, span{start: k * t.w, end: (k + 1) * t.w, b: b})
	}
	return out
}
