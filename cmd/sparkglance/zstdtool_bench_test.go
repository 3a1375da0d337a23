package main

import (
	"bytes"
	"os/exec"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// BenchmarkAnalyzeVsZstdTool runs, in each iteration, `zstd -d --long=31
// -c LOG >/dev/null` and then the binary's `analyze --json LOG` on nds_q72
// and nds_q88 as stored (zstd; q88's frame declares a 128 MiB window), and
// reports the wall and CPU seconds of each and their ratio. Runs taken back
// to back make the ratio the figure to compare on a shared box: the load
// that slows one slows the other. The goal is a ratio within 1.5.
func BenchmarkAnalyzeVsZstdTool(b *testing.B) {
	bin, err := buildBinary()
	if err != nil {
		b.Fatal(err)
	}
	zstdTool := testkit.RequireTool(b, "zstd")
	for _, log := range []struct {
		name, file string
		size       int64
	}{
		{"q72", "nds_q72_dataproc_2_2.zstd", 48279502},
		{"q88", "nds_q88_photon_db_13_3.zstd", 142361502},
	} {
		stored := testkit.Events(b, "extra", "spark-rapids-tools", "spark-events-qualification", log.file)
		b.Run(log.name, func(b *testing.B) {
			b.SetBytes(log.size)
			var toolWall, toolCPU, wall, cpu time.Duration
			for b.Loop() {
				w, c := timeRun(b, zstdTool, "-d", "-q", "--long=31", "-c", stored)
				toolWall, toolCPU = toolWall+w, toolCPU+c
				w, c = timeRun(b, bin, "analyze", "--json", stored)
				wall, cpu = wall+w, cpu+c
			}
			n := float64(b.N)
			b.ReportMetric(toolWall.Seconds()/n, "zstd-s/op")
			b.ReportMetric(toolCPU.Seconds()/n, "zstd-cpu-s/op")
			b.ReportMetric(wall.Seconds()/n, "analyze-s/op")
			b.ReportMetric(cpu.Seconds()/n, "analyze-cpu-s/op")
			b.ReportMetric(wall.Seconds()/toolWall.Seconds(), "ratio")
		})
	}
}

// timeRun runs bin with its standard output on /dev/null and returns its
// wall time and CPU time (user+sys).
func timeRun(b *testing.B, bin string, args ...string) (wall, cpu time.Duration) {
	cmd := exec.Command(bin, args...) // Stdout nil: /dev/null, no pipe to copy through
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s: %v: %s", bin, err, stderr.String())
	}
	wall = time.Since(start)
	return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}
