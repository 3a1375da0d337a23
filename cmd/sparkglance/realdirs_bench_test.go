package main

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/testkit"
	"github.com/sparkglance/sparkglance/internal/testkit/corpus"
)

// The directory benchmarks of issue #27 run over History-Server-like
// directories of real logs (package corpus, built once into the user
// cache): copies40, 40 copies of one real 2.1 MB log (115 kB as stored,
// zstd), and mixedN, the logs of ../shared/spark-events copied until the
// directory holds N of them (SPARKGLANCE_BENCH_LOGS, default 200; the
// issue's figure is 2000, tens of seconds a run).

// realLogDirs returns the corpora's names and directories.
func realLogDirs(b *testing.B) []struct{ name, dir string } {
	b.Helper()
	n := 200
	if s := os.Getenv("SPARKGLANCE_BENCH_LOGS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 1 {
			b.Fatalf("SPARKGLANCE_BENCH_LOGS=%q: want a number of logs", s)
		}
	}
	one := testkit.Events(b, "extra", "spark-rapids-tools", "spark-events-qualification", "cluster_information", "eventlog_4nodes_8cores_dynamic_alloc.zstd")
	copies, err := corpus.Cached(one, 40)
	if err != nil {
		b.Fatal(err)
	}
	mixed, err := corpus.Cached(testkit.Events(b), n)
	if err != nil {
		b.Fatal(err)
	}
	return []struct{ name, dir string }{{"copies40", copies}, {"mixed" + strconv.Itoa(n), mixed}}
}

// dirCommandArgs are the arguments of command over dir, writing into out
// (a temporary directory) where it writes files.
func dirCommandArgs(command, dir, out string) []string {
	switch command {
	case "report":
		return []string{"report", "-o", filepath.Join(out, "report"), dir}
	case "backfill":
		return []string{"backfill", "-o", filepath.Join(out, "backfill.om"), dir}
	}
	return []string{"analyze", "--json", dir}
}

// BenchmarkRealLogDirs runs the built binary's `analyze --json`, `report -o`
// and `backfill` over the real-log directories three ways, in turns (the
// order rotating each iteration, so that none always runs on a warmer or
// quieter machine): with every core of the box ("all", GOMAXPROCS and
// --parallel by default), pinned to one core (`taskset -c 0`: Go then sees
// one CPU), and with --parallel 1 on every core. It reports each way's wall
// seconds, CPU seconds (user + sys) and peak RSS per run, and the issue's
// ratios: speed-up (pinned wall / all wall; goal ≥ 1.8 on two cores),
// cpu-ratio (all CPU / pinned CPU; goal ≤ 1.1) and p1/pinned (--parallel 1
// wall / pinned wall; goal ≤ 1). On a loaded box the CPU seconds are the
// robust figures; the wall-clock ratios need a quiet one:
//
//	go test -run '^$' -bench 'RealLogDirs$' -benchtime 5x ./cmd/sparkglance/
func BenchmarkRealLogDirs(b *testing.B) {
	bin, err := buildBinary()
	if err != nil {
		b.Fatal(err)
	}
	taskset := testkit.RequireTool(b, "taskset")
	for _, corp := range realLogDirs(b) {
		for _, command := range []string{"analyze", "report", "backfill"} {
			b.Run(corp.name+"/"+command, func(b *testing.B) {
				args := dirCommandArgs(command, corp.dir, b.TempDir())
				withP1 := slices.Insert(slices.Clone(args), 1, "--parallel", "1")
				ways := []struct {
					name string
					argv []string
				}{
					{"all", append([]string{bin}, args...)},
					{"pinned", append([]string{taskset, "-c", "0", bin}, args...)},
					{"p1", append([]string{bin}, withP1...)},
				}
				sum := make([]binaryRun, len(ways))
				for i := 0; b.Loop(); i++ {
					for k := range ways {
						w := (i + k) % len(ways)
						r := timeBinary(b, ways[w].argv)
						sum[w].wall += r.wall
						sum[w].cpu += r.cpu
						sum[w].maxRSS = max(sum[w].maxRSS, r.maxRSS)
					}
				}
				n := float64(b.N)
				for w, way := range ways {
					b.ReportMetric(sum[w].wall.Seconds()/n, way.name+"-s/op")
					b.ReportMetric(sum[w].cpu.Seconds()/n, way.name+"-cpu-s/op")
					b.ReportMetric(float64(sum[w].maxRSS)/(1<<20), way.name+"-maxRSS-MiB")
				}
				all, pinned, p1 := sum[0], sum[1], sum[2]
				b.ReportMetric(pinned.wall.Seconds()/all.wall.Seconds(), "speed-up")
				b.ReportMetric(all.cpu.Seconds()/pinned.cpu.Seconds(), "cpu-ratio")
				b.ReportMetric(p1.wall.Seconds()/pinned.wall.Seconds(), "p1/pinned")
				b.ReportMetric(p1.cpu.Seconds()/pinned.cpu.Seconds(), "p1-cpu-ratio")
			})
		}
	}
}

// BenchmarkRealLogDirsInProcess runs the same commands in this process with
// the default --parallel, for profiles of the directory runs (the binary
// has no profiling flags); pin it with taskset for the one-core profile:
//
//	go test -run '^$' -bench 'RealLogDirsInProcess/copies40/analyze' -benchtime 10x \
//	    -cpuprofile /tmp/cpu.pprof -trace /tmp/trace.out ./cmd/sparkglance/
//	taskset -c 0 go test … (the same)
func BenchmarkRealLogDirsInProcess(b *testing.B) {
	for _, corp := range realLogDirs(b) {
		for _, command := range []string{"analyze", "report", "backfill"} {
			b.Run(corp.name+"/"+command, func(b *testing.B) {
				args := dirCommandArgs(command, corp.dir, b.TempDir())
				c := parseCommand(b, args[0], args[1:]...)
				var cpu time.Duration
				for b.Loop() {
					runtime.GC() // the previous run's garbage is not this one's
					before := processCPU(b)
					if err := c.run(context.Background()); err != nil && exitStatus(err) != exitPartial {
						b.Fatal(err)
					}
					cpu += processCPU(b) - before
				}
				b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
			})
		}
	}
}
