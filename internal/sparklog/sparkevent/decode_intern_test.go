package sparkevent

import (
	"fmt"
	"hash/maphash"
	"testing"
	"unsafe"
)

// The table gives back equal strings, the same one for bytes seen among
// the last four misses of their set, and drops the oldest of a set first
// (as a queue: a hit does not make an entry younger).
func TestInternTableKeepsTheNewestFour(t *testing.T) {
	tab := newInternTable()
	set := func(s string) uint64 { return maphash.Bytes(tab.seed, []byte(s)) & (internSets - 1) }
	// Five strings of one set, found among the executor ids.
	var same []string
	for i := 0; len(same) < 5; i++ {
		if s := fmt.Sprint(1000 + i); len(same) == 0 || set(s) == set(same[0]) {
			same = append(same, s)
		}
	}
	first := tab.get([]byte(same[0]))
	for _, s := range same[1:4] {
		if got := tab.get([]byte(s)); got != s {
			t.Fatalf("get(%q) = %q", s, got)
		}
	}
	if again := tab.get([]byte(same[0])); unsafe.StringData(again) != unsafe.StringData(first) {
		t.Fatalf("%q was allocated again while among the four newest of its set", same[0])
	}
	tab.get([]byte(same[4])) // a fifth: the oldest, same[0], goes
	if again := tab.get([]byte(same[0])); again != same[0] || unsafe.StringData(again) == unsafe.StringData(first) {
		t.Fatalf("%q still kept after four newer strings of its set", same[0])
	}
	// same[0] is back, in place of same[1]; same[2..4] are kept.
	for _, s := range same[2:] {
		a, b := tab.get([]byte(s)), tab.get([]byte(s))
		if unsafe.StringData(a) != unsafe.StringData(b) {
			t.Fatalf("%q not kept", s)
		}
	}
	if tab.get(nil) != "" || tab.get(make([]byte, internMaxLen+1)) != string(make([]byte, internMaxLen+1)) {
		t.Fatal("empty or long strings")
	}
}
