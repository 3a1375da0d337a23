package simulate

import (
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// One executor used to be released by dynamic allocation before the
// repartition(1) stage, which then had nowhere to run (index -1).
func TestOneExecutorRunsEveryStage(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Executors, cfg.TasksPerStage, cfg.Repeat = 1, 1, 2
	var b strings.Builder
	n, err := Write(&b, cfg)
	if err != nil {
		t.Fatal(err)
	}
	log := b.String()
	submitted := strings.Count(log, `"Event":"SparkListenerStageSubmitted"`)
	completed := strings.Count(log, `"Event":"SparkListenerStageCompleted"`)
	ends := strings.Count(log, `"Event":"SparkListenerTaskEnd"`)
	// Every stage attempt, the repartition(1) one included, ends, and each
	// ran at least one task on the only executor.
	if n == 0 || submitted == 0 || completed != submitted || ends < completed {
		t.Errorf("%d lines: %d stage attempts submitted, %d completed, %d task ends", n, submitted, completed, ends)
	}
	if !strings.Contains(log, "repartition") {
		t.Error("the repartition(1) stage is missing")
	}
}

func TestValidateNamesEveryBadFlag(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Executors, cfg.CoresPerExecutor, cfg.TasksPerStage, cfg.Repeat = 0, -1, MaxTasksPerStage+1, -3
	cfg.AppID = "../escape"
	err := cfg.Validate()
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"--executors=0", "--cores=-1", "--tasks-per-stage=1000001", "--repeat=-3", `--app-id="../escape"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if _, err := Generate(cfg, nil); err == nil {
		t.Error("Generate accepted an invalid config")
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Errorf("the default config: %v", err)
	}
}

// lineSink checks every line as it is produced. (Lines are not in time
// order: Spark stamps some events, e.g. BlockManagerAdded, later than it
// writes them.)
type lineSink struct {
	t     *testing.T
	lines int
}

func (s *lineSink) Line(at int64, line string, _ bool) error {
	s.lines++
	if _, err := sparkevent.DecodeLine([]byte(line)); err != nil {
		s.t.Fatalf("line %d does not decode: %v\n%.300s", s.lines, err, line)
	}
	if at <= 0 {
		s.t.Fatalf("line %d stamped %d", s.lines, at)
	}
	return nil
}

// No parameter panics: invalid ones are errors, valid ones give a log whose
// every line decodes.
func FuzzGenerate(f *testing.F) {
	f.Add(8, 4, 128, 1, uint64(42), false, "app-20261130090000-0001")
	f.Add(1, 1, 1, 1, uint64(0), true, "app-1")
	f.Add(1, 4, 1, 3, uint64(7), false, "local-1")
	f.Add(0, 0, 0, 0, uint64(1), false, "")
	f.Add(-1, 3, 5, -2, uint64(1), false, "a/b")
	f.Fuzz(func(t *testing.T, executors, cores, tasks, repeat int, seed uint64, live bool, appID string) {
		cfg := DefaultConfig()
		cfg.Executors, cfg.CoresPerExecutor, cfg.TasksPerStage, cfg.Repeat = executors, cores, tasks, repeat
		cfg.Seed, cfg.Live, cfg.AppID = seed, live, appID
		// Validate bounds each factor, so the product cannot overflow.
		if cfg.Validate() == nil && executors*cores*tasks*max(repeat, 1) > 1<<16 {
			t.Skip("valid but too big to generate quickly")
		}
		sink := &lineSink{t: t}
		n, err := Generate(cfg, sink)
		if err != nil {
			if n != 0 || sink.lines != 0 {
				t.Fatalf("error %v after %d lines", err, n)
			}
			return
		}
		if n != sink.lines || n == 0 {
			t.Fatalf("returned %d, sink got %d lines", n, sink.lines)
		}
	})
}
