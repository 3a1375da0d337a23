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

// TestSafepointPausePerDump measures the stop-the-world pause each dump
// costs a JVM with 200 threads and checks that one dump per second (the
// default --stacks.interval) costs it under 1% of its time.
func TestSafepointPausePerDump(t *testing.T) {
	classes := jvmtest.Compile(t)
	logFile := filepath.Join(t.TempDir(), "safepoint.log")
	jvm := jvmtest.Start(t, classes, jvmtest.Options{JVMArgs: []string{"-Xlog:safepoint:file=" + logFile}},
		"pool=196", "spin=1", "shuffle=1")
	if n := len(jvm.Kinds); n != 200 {
		t.Fatalf("%d threads started, want 200", n)
	}
	const dumps = 20
	var c attach.Client
	for i := range dumps {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := c.ThreadDump(ctx, jvm.PID)
		cancel()
		if err != nil {
			t.Fatalf("dump %d: %v", i, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	var pauses []time.Duration // one sum per dump: PrintThreads starts a dump
	deadline := time.Now().Add(5 * time.Second)
	for len(pauses) < dumps && time.Now().Before(deadline) { // the log lags a little
		time.Sleep(100 * time.Millisecond)
		b, err := os.ReadFile(logFile)
		if err != nil {
			t.Fatal(err)
		}
		pauses = pauses[:0]
		for _, m := range safepointLine.FindAllStringSubmatch(string(b), -1) {
			ns, _ := strconv.ParseInt(m[2], 10, 64)
			if m[1] == "PrintThreads" {
				pauses = append(pauses, 0)
			}
			if len(pauses) > 0 {
				pauses[len(pauses)-1] += time.Duration(ns)
			}
		}
	}
	if len(pauses) != dumps {
		t.Fatalf("safepoint log has %d PrintThreads, want %d", len(pauses), dumps)
	}
	var total time.Duration
	for _, p := range pauses {
		total += p
	}
	slices.Sort(pauses)
	median, mean := pauses[dumps/2], total/dumps
	// The median resists the outliers of a shared, overloaded machine.
	t.Logf("200 threads: safepoint pause per dump median %v, mean %v, max %v; one dump per second costs %.2f%% (median) of the JVM's time",
		median, mean, pauses[dumps-1], 100*median.Seconds())
	if median >= 10*time.Millisecond {
		t.Errorf("median pause %v per dump is ≥ 1%% of the 1s default interval", median)
	}
}
