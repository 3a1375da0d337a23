package main

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// BenchmarkManyLogs runs `analyze --json` and `report -o DIR` over a
// directory of 200 generated finished applications with --parallel 1 and
// with one worker per core, in turns, and reports the seconds of each and
// the speed-up (sequential time over parallel time).
func BenchmarkManyLogs(b *testing.B) {
	dir := b.TempDir()
	writeManyApps(b, dir, 200)
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
			var seqTime, parTime time.Duration
			run := func(c command, total *time.Duration) {
				start := time.Now()
				if err := c.run(context.Background()); err != nil {
					b.Fatal(err)
				}
				*total += time.Since(start)
			}
			for i := 0; b.Loop(); i++ {
				if i%2 == 0 { // alternate, so that neither always runs on a warmer machine
					run(seq, &seqTime)
					run(par, &parTime)
				} else {
					run(par, &parTime)
					run(seq, &seqTime)
				}
			}
			n := float64(b.N)
			b.ReportMetric(seqTime.Seconds()/n, "parallel1-s/op")
			b.ReportMetric(parTime.Seconds()/n, "parallel"+cores+"-s/op")
			b.ReportMetric(seqTime.Seconds()/parTime.Seconds(), "speed-up")
		})
	}
}
