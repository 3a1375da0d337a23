package main

import (
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// A directory run's limit is sized by its workers' budgets, whether or not
// each is reading a log at the moment, plus the big zstd windows of the
// logs in flight (nds_q88 declares 128 MiB, nds_q72 8 MiB, which needs
// nothing more); the collector runs at that limit (GOGC off)
// unless the user set GOGC; stop puts back the limit and GOGC found; with
// GOMEMLIMIT set nothing is touched.
func TestLimitDirMemory(t *testing.T) {
	oldLimit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(oldLimit) })
	dir := testkit.Events(t, "extra", "spark-rapids-tools", "spark-events-qualification")
	discover := func(file string) sparklog.Log {
		logs, err := sparklog.DiscoverGiven(filepath.Join(dir, file))
		if err != nil || len(logs) != 1 {
			t.Fatalf("%s: %v (%d logs)", file, err, len(logs))
		}
		return logs[0]
	}
	q88, q72 := discover("nds_q88_photon_db_13_3.zstd"), discover("nds_q72_dataproc_2_2.zstd")
	limit := func() int64 { return debug.SetMemoryLimit(-1) }

	unsetenv(t, "GOMEMLIMIT")
	unsetenv(t, "GOGC")
	const before = 1 << 40
	debug.SetMemoryLimit(before)
	reading, stop := limitDirMemory(2)
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Errorf("GOGC %d while reading a directory, want off", got)
	}
	if got := limit(); got != 2*readBudget {
		t.Errorf("limit %d MiB before any log is read, want two workers' budgets", got>>20)
	}
	doneQ88 := reading(q88)
	if got, want := limit(), int64(2*readBudget+128<<20)+windowHeadroom(128<<20); got != want {
		t.Errorf("limit %d MiB reading nds_q88, want %d MiB", got>>20, want>>20)
	}
	doneQ72 := reading(q72)
	if got, want := limit(), int64(2*readBudget+128<<20)+windowHeadroom(128<<20); got != want {
		t.Errorf("limit %d MiB reading nds_q88 and nds_q72, want %d MiB", got>>20, want>>20)
	}
	doneQ88()
	// A worker between two logs keeps its budget: the limit does not fall
	// and rise again with each log.
	if got := limit(); got != 2*readBudget {
		t.Errorf("limit %d MiB reading nds_q72 alone, want two workers' budgets", got>>20)
	}
	doneQ72()
	if got := limit(); got != 2*readBudget {
		t.Errorf("limit %d MiB between logs, want two workers' budgets", got>>20)
	}
	doneQ72 = reading(q72)
	doneQ88 = reading(q88)
	done3 := reading(q72) // a third log in flight (more logs than workers) adds its budget
	if got, want := limit(), int64(3*readBudget+128<<20)+windowHeadroom(128<<20); got != want {
		t.Errorf("limit %d MiB with three logs in flight, want %d MiB", got>>20, want>>20)
	}
	done3()
	doneQ88()
	doneQ72()
	stop()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC %d after the run, want the 100 found", got)
	}
	if got := limit(); got != before {
		t.Errorf("limit %d after the run, want the %d found", got, int64(before))
	}

	t.Setenv("GOGC", "100")
	_, stop = limitDirMemory(1)
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC %d with GOGC set by the user, want it left alone", got)
	}
	if got := limit(); got != readBudget {
		t.Errorf("limit %d MiB with GOGC set, want one budget still", got>>20)
	}
	stop()

	t.Setenv("GOMEMLIMIT", "")
	reading, stop = limitDirMemory(0)
	if reading != nil || limit() != before {
		t.Errorf("with GOMEMLIMIT set: the limit changed to %d, or logs are counted", limit())
	}
	stop()
}

// With a heap bigger than the logs' budgets kept live (a big analysis, the
// backfill's reports), the limit follows it as one log's does.
func TestDirMemoryLimitFollowsLiveHeap(t *testing.T) {
	if got := dirMemoryLimit(0, 0, 1<<20); got != readBudget {
		t.Errorf("limit %d MiB with no reader, want one budget", got>>20)
	}
	if got := dirMemoryLimit(2, 0, 40<<20); got != 2*readBudget {
		t.Errorf("limit %d MiB for two logs keeping 40 MiB live, want two budgets", got>>20)
	}
	if got := dirMemoryLimit(2, 0, 100<<20); got != 150<<20 {
		t.Errorf("limit %d MiB for two logs keeping 100 MiB live, want 150 MiB", got>>20)
	}
	if got, want := dirMemoryLimit(2, 256<<20, 276<<20), 256<<20+2*readBudget+windowHeadroom(256<<20); got != want {
		t.Errorf("limit %d MiB with two 128 MiB windows, want %d MiB", got>>20, want>>20)
	}
}
