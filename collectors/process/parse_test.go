package process

import (
	"strings"
	"testing"

	"github.com/prometheus/procfs"
)

func TestParseCPUStat(t *testing.T) {
	// comm with spaces and a ')' inside, negative cutime (signed in the kernel).
	line := "77 (java (x) y) S 1 77 77 0 -1 4194560 100 0 0 0 1500 250 -3 40 20 0 30 0 123456 4000000000 50000\n"
	s, err := parseCPUStat("77/stat", []byte(line))
	if err != nil || s != (cpuStat{starttime: 123456, ticks: 1500 + 250 + 40}) {
		t.Fatalf("parseCPUStat = %+v, %v", s, err)
	}
	for _, bad := range []string{"", "77 java S 1", "77 (java) S 1 2 3", "77 (java) S 1 77 77 0 -1 4194560 100 0 0 0 15x0 250 0 40 20 0 30 0 1"} {
		if _, err := parseCPUStat("77/stat", []byte(bad)); err == nil || !strings.Contains(err.Error(), "77/stat") {
			t.Errorf("parseCPUStat(%q) err = %v, want one naming the file", bad, err)
		}
	}
}

func TestParseCPUStatAgreesWithProcfsOnThisMachine(t *testing.T) {
	p, err := procfs.Self()
	if err != nil {
		t.Skip("no /proc/self:", err)
	}
	want, err := p.Stat()
	if err != nil {
		t.Fatal(err)
	}
	got, err := readCPUStat("/proc/self/stat", make([]byte, 4096))
	if err != nil {
		t.Fatal(err)
	}
	// The ticks may have moved on between the two reads, never backwards.
	if got.starttime != want.Starttime || got.ticks < processTicks(want) {
		t.Fatalf("readCPUStat = %+v, procfs says start %d ticks %d", got, want.Starttime, processTicks(want))
	}
}

func TestCounterDelta(t *testing.T) {
	for _, c := range []struct{ prev, cur, max, want uint64 }{
		{100, 250, 1000, 150},
		{900, 50, 1000, 150}, // wrapped
		{900, 50, 0, 50},     // max unknown: count from the wrap
	} {
		if got := counterDelta(c.prev, c.cur, c.max); got != c.want {
			t.Errorf("counterDelta(%d, %d, %d) = %d, want %d", c.prev, c.cur, c.max, got, c.want)
		}
	}
}

// processTicks is what procfs says a process and its reaped children used,
// in ticks: readCPUStat must agree.
func processTicks(s procfs.ProcStat) uint64 {
	return uint64(s.UTime) + uint64(s.STime) + uint64(max(0, s.CUTime)) + uint64(max(0, s.CSTime))
}
