package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// BenchmarkAnalyzeBinary runs the built binary's `analyze --json` over
// nds_q72 (48 MB of JSON) and nds_q88 (142 MB) as stored (zstd), plain and
// gzip, start to exit with the output written, and reports per run the wall
// time, the CPU time (user+sys) and the peak RSS from getrusage. The
// uncompressed throughput is the one that counts: bytes of JSON per wall
// second. GOMAXPROCS is the environment's (set it to compare 1 and 2).
func BenchmarkAnalyzeBinary(b *testing.B) {
	bin, err := buildBinary()
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	for _, log := range []struct {
		name, file string
		size       int64
	}{
		{"q72", "nds_q72_dataproc_2_2.zstd", 48279502},
		{"q88", "nds_q88_photon_db_13_3.zstd", 142361502},
	} {
		stored := testkit.Events(b, "extra", "spark-rapids-tools", "spark-events-qualification", log.file)
		plain := filepath.Join(dir, "app-"+log.name)
		gz := plain + ".gz"
		writeDecoded(b, stored, plain, gz)
		for _, in := range []struct{ codec, path string }{{"zstd", stored}, {"plain", plain}, {"gzip", gz}} {
			b.Run(log.name+"/"+in.codec, func(b *testing.B) {
				b.SetBytes(log.size)
				benchBinary(b, bin, "analyze", "--json", in.path)
			})
		}
	}
}

// writeDecoded decompresses a zstd log into plain and gzip copies with the
// zstd and gzip tools: a child's peak RSS (getrusage) starts from this
// process's peak, which decoding a 128 MiB window here would raise.
func writeDecoded(b *testing.B, stored, plain, gz string) {
	b.Helper()
	zstdTool, gzipTool := testkit.RequireTool(b, "zstd"), testkit.RequireTool(b, "gzip")
	if out, err := exec.Command(zstdTool, "-d", "-q", "-f", "--long=31", stored, "-o", plain).CombinedOutput(); err != nil {
		b.Fatalf("zstd: %v\n%s", err, out)
	}
	if out, err := exec.Command(gzipTool, "-k", "-f", plain).CombinedOutput(); err != nil {
		b.Fatalf("gzip: %v\n%s", err, out)
	}
	if _, err := os.Stat(gz); err != nil {
		b.Fatal(err)
	}
}

// benchBinary runs bin with args once per iteration of b and reports the
// child's CPU seconds per run and its peak RSS: what a user's run costs,
// reading and writing included.
func benchBinary(b *testing.B, bin string, args ...string) {
	var cpu time.Duration
	var maxRSS int64
	for b.Loop() {
		r := timeBinary(b, append([]string{bin}, args...))
		cpu += r.cpu
		maxRSS = max(maxRSS, r.maxRSS)
	}
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(maxRSS)/(1<<20), "maxRSS-MiB")
}

// binaryRun is what one run of a command cost: wall time, CPU time (user
// and system) and peak RSS in bytes, from getrusage.
type binaryRun struct {
	wall, cpu time.Duration
	maxRSS    int64
}

// timeBinary runs argv (a program and its arguments) to its exit, its output
// discarded, and returns what it cost; an exit status other than 0 or 3
// (read with problems: some real logs are damaged) fails b.
func timeBinary(b *testing.B, argv []string) binaryRun {
	b.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout = io.Discard
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil && cmd.ProcessState.ExitCode() != exitPartial {
		b.Fatalf("%s: %v: %s", strings.Join(argv, " "), err, stderr.String())
	}
	r := binaryRun{wall: wall, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.maxRSS = ru.Maxrss << 10 // KiB on Linux
	}
	return r
}
