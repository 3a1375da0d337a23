package analysis

// fixedTimeline holds intervals [k·w, (k+1)·w) in a slice indexed by k − k0.
type fixedTimeline struct {
	w       int64
	k0      int64
	buckets []bucket
	dropped bucket // scratch for values beyond maxBuckets; never reported
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

// at returns the bucket of interval k, growing the slice on either side.
// The window slides forward: a long-running application keeps its latest
// maxBuckets intervals; a value older than the window goes to a scratch
// bucket that is never reported.
func (t *fixedTimeline) at(k int64) *bucket {
	limit := t.maxBuckets()
	switch n := int64(len(t.buckets)); {
	case n == 0:
		t.k0 = k
		t.buckets = append(t.buckets, bucket{})
	case k < t.k0:
		if t.k0+n-k > limit {
			t.dropped = bucket{}
			return &t.dropped
		}
		grown := make([]bucket, int(t.k0-k)+len(t.buckets))
		copy(grown[t.k0-k:], t.buckets)
		t.buckets, t.k0 = grown, k
	case k >= t.k0+n:
		if drop := k - t.k0 + 1 - limit; drop >= n {
			t.buckets, t.k0 = t.buckets[:0], k
		} else if drop > 0 {
			t.buckets = append(t.buckets[:0:0], t.buckets[drop:]...)
			t.k0 += drop
		}
		t.buckets = append(t.buckets, make([]bucket, int(k-t.k0)+1-len(t.buckets))...)
	}
	return &t.buckets[k-t.k0]
}

func (t *fixedTimeline) spread(launch, finish int64, c *contrib) {
	if finish == launch {
		t.at(floorDiv(launch, t.w)).add(c, 1)
		return
	}
	d := float64(finish - launch)
	for k := floorDiv(launch, t.w); k*t.w < finish; k++ {
		lo, hi := max(launch, k*t.w), min(finish, (k+1)*t.w)
		t.at(k).add(c, float64(hi-lo)/d)
	}
}

func (t *fixedTimeline) taskStarted(int, int64)      {}
func (t *fixedTimeline) taskEnded(int, int64, int64) {}

// intervals lists every interval from the one holding from to the one
// holding to (inclusive), plus any that hold task values outside. It does
// not change the timeline: intervals without task values get empty buckets
// of their own, so a report taken before any timestamp is harmless.
func (t *fixedTimeline) intervals(from, to int64) []span {
	lo, hi := t.k0, t.k0+int64(len(t.buckets))-1 // hi < lo when empty
	if from <= to {
		kf, kt := floorDiv(from, t.w), floorDiv(to, t.w)
		if len(t.buckets) == 0 {
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
		if i := k - t.k0; i >= 0 && i < int64(len(t.buckets)) {
			b = &t.buckets[i]
		}
		out = append(out, span{start: k * t.w, end: (k + 1) * t.w, b: b})
	}
	return out
}
