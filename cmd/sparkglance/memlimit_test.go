package main

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// One log read alone gets a soft memory limit: the read budget, plus the
// zstd window when the frame declares a big one (nds_q88 declares 128 MiB,
// nds_q72 8 MiB, which needs no more).
func TestLimitReadMemory(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "") // set, so the test's own limit is left alone …
	old := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(old) })
	dir := testkit.Events(t, "extra", "spark-rapids-tools", "spark-events-qualification")
	for _, c := range []struct {
		file string
		want int64
	}{
		{"nds_q88_photon_db_13_3.zstd", readBudget + 128<<20 + 4<<20},
		{"nds_q72_dataproc_2_2.zstd", readBudget},
	} {
		logs, err := sparklog.DiscoverGiven(filepath.Join(dir, c.file))
		if err != nil || len(logs) != 1 {
			t.Fatalf("%s: %v (%d logs)", c.file, err, len(logs))
		}
		debug.SetMemoryLimit(old)
		limitReadMemory(logs[0])()
		if got := debug.SetMemoryLimit(-1); got != old {
			t.Errorf("%s with GOMEMLIMIT set: limit changed to %d", c.file, got)
		}
		unsetenv(t, "GOMEMLIMIT") // … and then it is not set at all
		stop := limitReadMemory(logs[0])
		if got := debug.SetMemoryLimit(-1); got != c.want {
			t.Errorf("%s: limit %d MiB, want %d MiB", c.file, got>>20, c.want>>20)
		}
		stop()
		t.Setenv("GOMEMLIMIT", "")
	}
}

// unsetenv removes key for the rest of the test; t.Setenv restores it after.
func unsetenv(t *testing.T, key string) {
	t.Setenv(key, "")
	if err := os.Unsetenv(key); err != nil {
		t.Fatal(err)
	}
}

// The limit follows a live heap bigger than the read budget (an
// application with a million executors): a limit under the live heap
// would have the collector run back to back. Once stopped, it stays.
func TestMemoryLimitFollowsLiveHeap(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(old) })
	debug.SetMemoryLimit(readBudget)
	stop := followLiveHeap(readBudget, 0)
	live := make([]int64, 6*readBudget/8) // 6 × the budget, kept live below
	want := int64(9 * readBudget)         // 1.5 × that
	got := debug.SetMemoryLimit(-1)
	for i := 0; i < 1000 && got < want; i++ {
		runtime.GC()
		runtime.Gosched() // the finalizer goroutine sets the limit
		got = debug.SetMemoryLimit(-1)
	}
	runtime.KeepAlive(live)
	if got < want {
		t.Fatalf("limit %d MiB with %d MiB live, want at least %d MiB", got>>20, 6*readBudget>>20, want>>20)
	}
	stop()
	debug.SetMemoryLimit(readBudget)
	for range 10 {
		runtime.GC()
		runtime.Gosched()
	}
	if got := debug.SetMemoryLimit(-1); got != readBudget {
		t.Errorf("limit %d MiB after stop, want it left at %d MiB", got>>20, readBudget>>20)
	}
	if got := memoryLimitFor(readBudget, 0, 10<<20); got != readBudget {
		t.Errorf("limit %d MiB for a small heap, want the budget", got>>20)
	}
	// nds_q88's 128 MiB window is live but does not grow: not counted
	// half again.
	if got := memoryLimitFor(readBudget, 128<<20, 148<<20); got != readBudget+128<<20 {
		t.Errorf("limit %d MiB with a 128 MiB window and 20 MiB more live, want %d MiB", got>>20, (readBudget+128<<20)>>20)
	}
	if got := memoryLimitFor(readBudget, 128<<20, 228<<20); got != 128<<20+150<<20 {
		t.Errorf("limit %d MiB with a 128 MiB window and 100 MiB more live, want %d MiB", got>>20, (128<<20+150<<20)>>20)
	}
	// A big live heap gets more headroom: half as much again up to
	// 256 MiB live, then towards twice the live heap.
	for _, c := range []struct{ live, want int64 }{
		{256 << 20, 384 << 20},
		{512 << 20, 896 << 20},
		{1536 << 20, 2944 << 20},
	} {
		if got := memoryLimitFor(readBudget, 0, c.live); got != c.want {
			t.Errorf("limit %d MiB with %d MiB live, want %d MiB", got>>20, c.live>>20, c.want>>20)
		}
	}
}
