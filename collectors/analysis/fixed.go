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

// maxBuckets bounds the timeline: a year of intervals at the configured
// width. A value far outside it (a broken timestamp) goes to a scratch bucket
// instead of allocating millions of intervals.
func (t *fixedTimeline) maxBuckets() int64 { return max(maxAppSpanMs/t.w, 1) }

// at returns the bucket of interval k, growing the slice on either side.
func (t *fixedTimeline) at(k int64) *bucket {
	if n := len(t.buckets); n > 0 && (k < t.k0+int64(n)-t.maxBuckets() || k >= t.k0+t.maxBuckets()) {
		t.dropped = bucket{}
		return &t.dropped
	}
	switch {
	case len(t.buckets) == 0:
		t.k0 = k
		t.buckets = append(t.buckets, bucket{})
	case k < t.k0:
		grown := make([]bucket, int(t.k0-k)+len(t.buckets))
		copy(grown[t.k0-k:], t.buckets)
		t.buckets, t.k0 = grown, k
	case k >= t.k0+int64(len(t.buckets)):
		n := int(k - t.k0 - int64(len(t.buckets)) + 1)
		t.buckets = append(t.buckets, make([]bucket, n)...)
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
