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
	set := &t.sets[maphash.Bytes(t.seed, b)&(internSets-1)]
	for _, s := range set {
		if s == string(b) {
			return s
		}
	}
	// Miss: the newest entry goes first, the oldest is dropped.
	s := string(b)
	copy(set[1:], set[:internWays-1])
	set[0] = s
	return s
}
