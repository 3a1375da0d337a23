package sparkevent

import "hash/maphash"

const (
	internWays   = 4
	internSets   = 2048 // a power of two; 8192 slots, 128 KiB of string headers
	internMaxLen = 128  // longer strings are rarely repeated
)

// internTable returns one shared string per distinct short byte string, so
// the executor ids, hosts, accumulable and metric names repeated on every
// line are allocated once. It is a 4-way set-associative cache, not a map:
// its size is fixed, so memory does not grow with the log, and a string
// evicted by a collision is simply allocated again.
type internTable struct {
	seed maphash.Seed
	sets [internSets][internWays]string
	next [internSets]uint8 // the way a miss replaces next: the oldest
}

func newInternTable() *internTable {
	return &internTable{seed: maphash.MakeSeed()}
}

func (t *internTable) get(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > internMaxLen {
		return string(b)
	}
	h := maphash.Bytes(t.seed, b) & (internSets - 1)
	set := &t.sets[h]
	for _, s := range set {
		if s == string(b) {
			return s
		}
	}
	// Miss: the oldest entry is replaced in place (shifting the others
	// down moved three string headers through the collector's write
	// barriers, at each of a million distinct executor ids).
	s := string(b)
	set[t.next[h]] = s
	t.next[h] = (t.next[h] + 1) % internWays
	return s
}
