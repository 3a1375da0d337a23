package analysis

import (
	"math"
	"slices"
)

// durationQuantiles collects task durations (ms) in bounded memory: exact up
// to limit values, then a log-bucket sketch whose quantiles are within 1%
// of the true value (min and max stay exact).
//
// Quantiles follow Spark's AppStatusStore.taskSummary rule: the value at
// sorted index min(floor(q·n), n−1). So the median of an even count is the
// upper of the two middle values, as in the History Server.
//
// A single value is only min and max: most executors of a stage run one
// task or a few, and a slice for one value was an allocation per executor
// and stage.
type durationQuantiles struct {
	limit    int
	exact    []uint32
	n        int64
	min, max uint32
	sk       *logSketch
}

// Quantiles is min, p25, median, p75 and max of task durations in ms.
type Quantiles struct {
	Min    float64 `json:"min"`
	P25    float64 `json:"p25"`
	Median float64 `json:"median"`
	P75    float64 `json:"p75"`
	Max    float64 `json:"max"`
	Count  int64   `json:"count"`
	Exact  bool    `json:"exact"` // false once the sketch took over
}

func clampMs(d int64) uint32 {
	if d < 0 {
		return 0
	}
	if d > math.MaxUint32 {
		return math.MaxUint32
	}
	return uint32(d)
}

func (q *durationQuantiles) add(durMs int64) {
	v := clampMs(durMs)
	if q.n == 0 || v < q.min {
		q.min = v
	}
	if v > q.max {
		q.max = v
	}
	q.n++
	if q.sk != nil {
		q.sk.add(v)
		return
	}
	switch q.n {
	case 1:
		return // in min and max
	case 2:
		first := q.min
		if v == first {
			first = q.max
		}
		q.exact = append(q.exact, first, v)
	default:
		q.exact = append(q.exact, v)
	}
	if len(q.exact) > q.limit {
		q.sk = &logSketch{}
		for _, x := range q.exact {
			q.sk.add(x)
		}
		q.exact = nil
	}
}

// summary returns the five quantiles; ok is false when nothing was added.
func (q *durationQuantiles) summary() (Quantiles, bool) {
	if q.n == 0 {
		return Quantiles{}, false
	}
	qs := [5]float64{0, 0.25, 0.5, 0.75, 1}
	var out [5]float64
	if q.n == 1 {
		v := float64(q.min)
		return Quantiles{Min: v, P25: v, Median: v, P75: v, Max: v, Count: 1, Exact: true}, true
	}
	if q.sk == nil {
		sorted := slices.Clone(q.exact)
		slices.Sort(sorted)
		for i, f := range qs {
			out[i] = float64(sorted[sparkIndex(f, q.n)])
		}
	} else {
		for i, f := range qs {
			out[i] = q.sk.valueAt(sparkIndex(f, q.n), float64(q.min), float64(q.max))
		}
		out[0], out[4] = float64(q.min), float64(q.max)
	}
	return Quantiles{Min: out[0], P25: out[1], Median: out[2], P75: out[3], Max: out[4], Count: q.n, Exact: q.sk == nil}, true
}

func sparkIndex(q float64, n int64) int64 {
	return min(int64(q*float64(n)), n-1)
}

// logSketch counts values in buckets [γ^(i−1), γ^i) with γ = 1.02, so a
// bucket's midpoint is within 1% of any value in it.
type logSketch struct {
	zeros  int64
	offset int      // bucket index of counts[0]
	counts []uint32 // dense over the used index range
}

const sketchGamma = 1.02

var logGamma = math.Log(sketchGamma)

func (s *logSketch) add(v uint32) {
	if v == 0 {
		s.zeros++
		return
	}
	i := int(math.Ceil(math.Log(float64(v)) / logGamma))
	switch {
	case len(s.counts) == 0:
		s.offset = i
		s.counts = []uint32{0}
	case i < s.offset:
		grown := make([]uint32, len(s.counts)+s.offset-i)
		copy(grown[s.offset-i:], s.counts)
		s.counts, s.offset = grown, i
	case i >= s.offset+len(s.counts):
		s.counts = append(s.counts, make([]uint32, i-s.offset-len(s.counts)+1)...)
	}
	s.counts[i-s.offset]++
}

// valueAt returns an estimate of the value at 0-based sorted rank r.
func (s *logSketch) valueAt(r int64, lo, hi float64) float64 {
	if r < s.zeros {
		return 0
	}
	cum := s.zeros
	for j, c := range s.counts {
		cum += int64(c)
		if cum > r {
			i := float64(s.offset + j)
			mid := 2 * math.Pow(sketchGamma, i) / (sketchGamma + 1)
			return math.Min(math.Max(mid, lo), hi)
		}
	}
	return hi
}
