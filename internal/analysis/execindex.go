package analysis

import "iter"

// execIndex finds an executor id's dense index. Spark numbers executors
// 1, 2, 3…: such ids are found in a slice by their number, without
// hashing a string; others ("driver", names, numbers far beyond the count
// so far) in a map. (A map of a million id strings cost more than a
// microsecond a lookup, and was the biggest object the collector
// scanned.)
type execIndex struct {
	byNum []int32          // the index + 1 of id n at n; 0 when n is not there
	byID  map[string]int32 // the ids not in byNum
}

// byNumSlack is how far beyond the ids so far a number may go and still
// be kept in byNum: a few stray big numbers must not make it huge.
const byNumSlack = 4096

func (x *execIndex) lookup(id string) (int32, bool) {
	if n, ok := execNumber(id); ok && n < len(x.byNum) && x.byNum[n] != 0 {
		return x.byNum[n] - 1, true
	}
	i, ok := x.byID[id]
	return i, ok
}

// add files id, not yet in the index, at i; count is how many ids there
// are with it.
func (x *execIndex) add(id string, i int32, count int) {
	if n, ok := execNumber(id); ok && n < 2*count+byNumSlack {
		if n >= len(x.byNum) {
			grown := make([]int32, max(n+1, 2*len(x.byNum)))
			copy(grown, x.byNum)
			x.byNum = grown
		}
		x.byNum[n] = i + 1
		return
	}
	if x.byID == nil {
		x.byID = map[string]int32{}
	}
	x.byID[id] = i
}

// execNumber is the number a canonical decimal id ("0", "17", not "017"
// nor "+1") stands for.
func execNumber(id string) (int, bool) {
	if len(id) == 0 || len(id) > 9 || (id[0] == '0' && len(id) > 1) {
		return 0, false
	}
	n := 0
	for i := 0; i < len(id); i++ {
		d := id[i] - '0'
		if d > 9 {
			return 0, false
		}
		n = n*10 + int(d)
	}
	return n, true
}

// chunked is a growing list kept in chunks of chunkLen: adding to it never
// copies what it holds (a million executors' rows were copied at every
// doubling of a slice), and the first chunk grows as a slice does, so a
// small application allocates little.
type chunked[T any] struct {
	chunks [][]T
	n      int
}

const chunkBits = 12
const chunkLen = 1 << chunkBits

func (c *chunked[T]) len() int { return c.n }

// at is element i; the pointer is valid until the next add.
func (c *chunked[T]) at(i int32) *T {
	return &c.chunks[i>>chunkBits][i&(chunkLen-1)]
}

// values yields the elements in order, by value.
func (c *chunked[T]) values() iter.Seq[T] {
	return func(yield func(T) bool) {
		for _, ch := range c.chunks {
			for _, v := range ch {
				if !yield(v) {
					return
				}
			}
		}
	}
}

// add appends v and returns its index.
func (c *chunked[T]) add(v T) int32 {
	if len(c.chunks) == 0 || len(c.chunks[len(c.chunks)-1]) == chunkLen {
		capacity := chunkLen
		if len(c.chunks) == 0 {
			capacity = 4
		}
		c.chunks = append(c.chunks, make([]T, 0, capacity))
	}
	last := &c.chunks[len(c.chunks)-1]
	*last = append(*last, v)
	c.n++
	return int32(c.n - 1)
}
