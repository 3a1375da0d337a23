package stacks_test

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/collectors/stacks"
	"github.com/sparkglance/sparkglance/internal/jvm/attach"
	"github.com/sparkglance/sparkglance/internal/jvm/jvmtest"
	"github.com/sparkglance/sparkglance/internal/jvm/threaddump"
)

// kindState is the state each workload kind is built to be in.
var kindState = map[string]stacks.State{
	"spin":      stacks.Running,
	"blocked":   stacks.Lock,
	"park":      stacks.Lock,
	"shuffle":   stacks.ShuffleFetch,
	"memory":    stacks.MemoryWait,
	"spill":     stacks.Spill,
	"io":        stacks.IO,
	"sleep":     stacks.OtherWait,
	"flinkspin": stacks.Running,
	"flinkbp":   stacks.Backpressure,
}

const dumpsPerTarget = 20

// sample takes dumpsPerTarget dumps of a JVM with the Go attach client
// into the sampler under target, a second apart on the sampler's clock.
func sample(t *testing.T, s *stacks.Sampler, target string, jvm *jvmtest.JVM, start time.Time) (perThread map[string]map[stacks.State]int) {
	perThread = map[string]map[stacks.State]int{}
	var c attach.Client
	for i := range dumpsPerTarget {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		text, err := c.ThreadDump(ctx, jvm.PID)
		cancel()
		if err != nil {
			t.Errorf("%s dump %d: %v", target, i, err)
			return
		}
		d, err := threaddump.Parse(text)
		if err != nil {
			t.Errorf("%s dump %d: %v", target, i, err)
			return
		}
		for _, smp := range s.Observe(target, start.Add(time.Duration(i)*time.Second), d) {
			if perThread[smp.Thread] == nil {
				perThread[smp.Thread] = map[stacks.State]int{}
			}
			perThread[smp.Thread][smp.State]++
		}
	}
	return perThread
}

func TestBlockedRatioOfRealJVMs(t *testing.T) {
	classes := jvmtest.Compile(t)
	spark := jvmtest.Start(t, classes, jvmtest.Options{},
		"spin=2", "blocked=1", "park=1", "shuffle=1", "memory=1", "spill=1", "io=1", "sleep=1")
	flink := jvmtest.Start(t, classes, jvmtest.Options{}, "flinkspin=1", "flinkbp=3")
	waitSettled(t, spark) // every thread reached its blocking call
	waitSettled(t, flink)

	s := stacks.NewSampler(nil, time.Minute)
	start := time.Now()
	var wg sync.WaitGroup
	results := map[string]map[string]map[stacks.State]int{}
	var mu sync.Mutex
	for target, jvm := range map[string]*jvmtest.JVM{"spark": spark, "flink": flink} {
		wg.Go(func() {
			per := sample(t, s, target, jvm, start)
			mu.Lock()
			results[target] = per
			mu.Unlock()
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	now := start.Add(dumpsPerTarget * time.Second)

	for target, jvm := range map[string]*jvmtest.JVM{"spark": spark, "flink": flink} {
		// The construction: which state each task thread should be in.
		want := stacks.Counts{}
		tasks := 0
		for name, kind := range jvm.Kinds {
			st, isTask := kindState[kind]
			if !isTask {
				if _, got := results[target][name]; got {
					t.Errorf("%s: %q (%s) counted as a task thread", target, name, kind)
				}
				continue
			}
			tasks++
			want[st]++
			if _, got := results[target][name]; !got {
				t.Errorf("%s: task thread %q (%s) never sampled", target, name, kind)
			}
			for st2, n := range results[target][name] {
				if st2 != st {
					t.Logf("%s: %q (%s) classified %v in %d of %d samples", target, name, kind, st2, n, dumpsPerTarget)
				}
			}
		}
		w := s.Window(target, now)
		if w.Dumps != dumpsPerTarget {
			t.Errorf("%s: window has %d dumps, want %d", target, w.Dumps, dumpsPerTarget)
		}
		if got := w.Counts.Total(); got != uint64(tasks*dumpsPerTarget) {
			t.Errorf("%s: %d task samples, want %d threads × %d dumps", target, got, tasks, dumpsPerTarget)
		}
		for _, st := range stacks.States() {
			wantRatio := float64(want[st]) / float64(tasks)
			if got := w.Ratio(st); math.Abs(got-wantRatio) > 0.10 {
				t.Errorf("%s: %v ratio %.3f, want %.3f ± 0.10", target, st, got, wantRatio)
			}
		}
		wantBlocked := 1 - float64(want[stacks.Running])/float64(tasks)
		got, ok := w.BlockedRatio()
		if !ok || math.Abs(got-wantBlocked) > 0.10 {
			t.Errorf("%s: blocked ratio %.3f, want %.3f ± 0.10", target, got, wantBlocked)
		}
		t.Logf("%s: blocked ratio %.3f (built %.3f), counts %v", target, got, wantBlocked, w.Counts)
	}

	// Flink: 3 of 4 task threads back-pressured → HIGH.
	fw := s.Window("flink", now)
	if lvl := stacks.BackpressureLevel(fw.Ratio(stacks.Backpressure)); lvl != stacks.LevelHigh {
		t.Errorf("flink back-pressure level %s, want high", lvl)
	}
}
