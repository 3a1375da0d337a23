package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/sparkglance/sparkglance/internal/appdoc"
	"github.com/sparkglance/sparkglance/internal/simulate"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// A directory run holds at once only the analyses of the logs it reads at
// once: with --parallel N, analyze --json, report and backfill never hold
// more than N whole documents (appdoc.Analyses counts them: a worker's,
// from the start of its log until its page, JSON or backfill samples are
// made), however many small logs finish while a long one ahead of them is
// read, and none once done. Counted, not measured in bytes of RSS, which
// the collector's timing blurs. backfill keeps no report once its samples
// are rendered: they wait in a temporary file until every log is read.
func TestDirectoryRunHoldsOnlyTheLogsInFlight(t *testing.T) {
	dir := t.TempDir()
	// The first log in the directory's order is a long one, so that the
	// logs after it are read before their turn comes.
	long := simulate.DefaultConfig()
	long.AppID = "app-20261130000000-0000"
	long.Executors, long.TasksPerStage = 4, 150
	writeSimulated(t, dir, long)
	const small = 64
	for i := range small {
		cfg := simulate.DefaultConfig()
		cfg.AppID = fmt.Sprintf("app-20261201%06d-%04d", i, i)
		cfg.Executors, cfg.CoresPerExecutor, cfg.TasksPerStage, cfg.Seed = 1, 1, 2, uint64(i)
		writeSimulated(t, dir, cfg)
	}
	real := []string{"application_1578436911597_0052", "local-1422981759269", "app-20180109111548-0000"}
	for _, name := range real {
		data, err := os.ReadFile(testkit.Events(t, name))
		if err != nil {
			t.Fatal(err)
		}
		writeTestFile(t, dir, name, string(data))
	}
	out := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
	}{
		{"analyze", []string{"--json"}},
		{"report", []string{"-o", filepath.Join(out, "report")}},
		{"backfill", []string{"--include-unfinished", "-o", filepath.Join(out, "backfill.om")}},
	} {
		for _, n := range []int{1, 2, 4} {
			if alive := appdoc.Analyses.Alive(); alive != 0 {
				t.Fatalf("%d analyses held before %s ran", alive, c.name)
			}
			appdoc.Analyses.ResetPeak()
			_, stderr, status := runCommand(t, c.name, append(c.args, "--parallel", strconv.Itoa(n), dir)...)
			if status != exitOK {
				t.Fatalf("%s --parallel %d: exit %d\n%s", c.name, n, status, stderr)
			}
			peak := appdoc.Analyses.Peak()
			t.Logf("%s --parallel %d: at most %d analyses held at once", c.name, n, peak)
			if peak < 1 || peak > int64(n) {
				t.Errorf("%s --parallel %d read %d logs holding up to %d analyses at once, want 1 to %d", c.name, n, 1+small+len(real), peak, n)
			}
			if alive := appdoc.Analyses.Alive(); alive != 0 {
				t.Errorf("%s --parallel %d: %d analyses still held once done", c.name, n, alive)
			}
		}
	}
}

func writeSimulated(t *testing.T, dir string, cfg simulate.Config) {
	t.Helper()
	if err := simulate.WriteFile(filepath.Join(dir, cfg.AppID), cfg); err != nil {
		t.Fatal(err)
	}
}
