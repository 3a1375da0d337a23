package main

import (
	"context"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// processCPU is the CPU time (user and system) this process used so far.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkManyLogs runs `analyze --json` and `report -o DIR` over a
// directory of 200 generated finished applications with --parallel 1 and
// with one worker per core, in turns, and reports the seconds of each, the
// speed-up (sequential time over parallel time), and the CPU seconds each
// used: on a machine busy with other work the wall-clock speed-up is
// capped by the cores left, while equal CPU times show that the parallel
// run does no more work than the sequential one.
func BenchmarkManyLogs(b *testing.B) {
	dir := b.TempDir()
	writeManyApps(b, dir, 200)
	syscall.Sync() // the logs' write-back must not land in the first timing
	cores := strconv.Itoa(runtime.GOMAXPROCS(0))
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"analyze", []string{"--json", dir}},
		{"report", []string{"-o", b.TempDir(), dir}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			seq := parseCommand(b, tc.name, append([]string{"--parallel", "1"}, tc.args...)...)
			par := parseCommand(b, tc.name, append([]string{"--parallel", cores}, tc.args...)...)
			var seqTime, parTime, seqCPU, parCPU time.Duration
			run := func(c command, total, cpu *time.Duration) {
				runtime.GC() // the other run's garbage is not this one's
				start, before := time.Now(), processCPU(b)
				if err := c.run(context.Background()); err != nil {
					b.Fatal(err)
				}
				*total += time.Since(start)
				*cpu += processCPU(b) - before
			}
			for i := 0; b.Loop(); i++ {
				if i%2 == 0 { // alternate, so that neither always runs on a warmer machine
					run(seq, &seqTime, &seqCPU)
					run(par, &parTime, &parCPU)
				} else {
					run(par, &parTime, &parCPU)
					run(seq, &seqTime, &seqCPU)
				}
			}
			n := float64(b.N)
			b.ReportMetric(seqTime.Seconds()/n, "parallel1-s/op")
			b.ReportMetric(parTime.Seconds()/n, "parallel"+cores+"-s/op")
			b.ReportMetric(seqTime.Seconds()/parTime.Seconds(), "speed-up")
			b.ReportMetric(seqCPU.Seconds()/n, "parallel1-cpu-s/op")
			b.ReportMetric(parCPU.Seconds()/n, "parallel"+cores+"-cpu-s/op")
		})
	}
}
