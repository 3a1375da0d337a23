package stacks_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/jvm/attach"
	"github.com/sparkglance/sparkglance/internal/jvm/jvmtest"
)

// safepointLine matches a JDK 17+ -Xlog:safepoint line of a VM operation a
// "threaddump" runs (PrintThreads, PrintJNI, FindDeadlocks).
var safepointLine = regexp.MustCompile(`Safepoint "(PrintThreads|PrintJNI|FindDeadlocks)",.* Total: (\d+) ns`)

// BenchmarkSafepointPausePerDump measures the stop-the-world pause each
// thread dump costs a JVM with 200 threads, from the JVM's own safepoint
// log, and reports it as pause-ns/dump (median: it resists the outliers of
// a shared machine) and pause-%/dump-per-s (the share of the target's time
// one dump per second, the default --stacks.interval, takes; the goal is
// under 1%). It is a benchmark, not a test: the pause depends on how loaded
// the machine is, so it is measured (`make bench`, docs/performance.md),
// never asserted.
func BenchmarkSafepointPausePerDump(b *testing.B) {
	classes := jvmtest.Compile(b)
	logFile := filepath.Join(b.TempDir(), "safepoint.log")
	jvm := jvmtest.Start(b, classes, jvmtest.Options{JVMArgs: []string{"-Xlog:safepoint:file=" + logFile}},
		"pool=196", "spin=1", "shuffle=1")
	if n := len(jvm.Kinds); n != 200 {
		b.Fatalf("%d threads started, want 200", n)
	}
	var c attach.Client
	dumps := 0
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := c.ThreadDump(ctx, jvm.PID)
		cancel()
		if err != nil {
			b.Fatalf("dump %d: %v", dumps, err)
		}
		dumps++
	}
	b.StopTimer()
	var pauses []time.Duration // one sum per dump: PrintThreads starts a dump
	// The JVM writes the log asynchronously: read until every dump is in it.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		data, err := os.ReadFile(logFile)
		if err != nil {
			b.Fatal(err)
		}
		pauses = pauses[:0]
		for _, m := range safepointLine.FindAllStringSubmatch(string(data), -1) {
			ns, _ := strconv.ParseInt(m[2], 10, 64)
			if m[1] == "PrintThreads" {
				pauses = append(pauses, 0)
			}
			if len(pauses) > 0 {
				pauses[len(pauses)-1] += time.Duration(ns)
			}
		}
		if len(pauses) >= dumps || time.Now().After(deadline) {
			break
		}
	}
	if len(pauses) != dumps {
		b.Fatalf("safepoint log has %d PrintThreads, want %d", len(pauses), dumps)
	}
	slices.Sort(pauses)
	median := pauses[len(pauses)/2]
	b.ReportMetric(float64(median.Nanoseconds()), "pause-ns/dump")
	b.ReportMetric(100*median.Seconds(), "pause-%/dump-per-s")
	b.ReportMetric(float64(pauses[len(pauses)-1].Nanoseconds()), "max-pause-ns")
}
