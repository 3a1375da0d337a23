package analysis

// fixedTimeline holds intervals [k·w, (k+1)·w) in a slice indexed by k − k0.
type fixedTimeline struct {
	w       int64
	k0      int64
	buckets []bucket
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

// at returns the bucket of interval k, growing the slice on either side.
func (t *fixedTimeline) at(k int64) *bucket {
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
// holding to (inclusive), plus any that hold task values outside.
func (t *fixedTimeline) intervals(from, to int64) []span {
	if from <= to {
		t.at(floorDiv(from, t.w))
		t.at(floorDiv(to, t.w))
	}
	out := make([]span, len(t.buckets))
	for i := range t.buckets {
		k := t.k0 + int64(i)
		out[i] = span{start: k * t.w, end: (k + 1) * t.w, b: &t.buckets[i]}
	}
	return out
}
