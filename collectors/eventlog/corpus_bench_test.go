package eventlog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/testkit"
	"github.com/sparkglance/sparkglance/internal/testkit/corpus"
)

// BenchmarkCatchUpCorpus: the built binary's `serve` started on a History
// Server directory of n real logs (../shared/spark-events copied until it
// holds n, each under its own application id: internal/testkit/corpus,
// built once into the user cache), until /-/ready answers 200 and a first
// scrape of /metrics holds every application in spark_app_info, against the
// same binary's `analyze --json` over the same directory (output to
// /dev/null), the two in turns. Reported per run: wall seconds, CPU seconds
// (user + sys) and the cores they kept busy (CPU / wall), peak RSS (VmHWM of
// the serve process at the scrape; getrusage of analyze, which starts from
// this process's own peak, reported as self-maxRSS-MiB), serve's ratios to
// analyze, and the most analyses serve held at once (from its "event logs
// caught up" log line). Goal (issue #27): serve within 1.5 × analyze.
//
// The "max-apps=50" runs start serve alone with --eventlog.max-apps 50: its
// peak RSS must not grow with the directory (compare n=2000 and n=10000).
//
// Before timing, an untimed `analyze --json` reads every log (the page cache
// then holds the directory for both) and lists the applications the
// scrape must show.
func BenchmarkCatchUpCorpus(b *testing.B) {
	bin := buildSparkglance(b)
	src := testkit.Events(b)
	for _, n := range []int{200, 2000, 10000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			dir := cachedCorpus(b, src, n)
			want := analyzeApps(b, bin, dir)
			var analyze, serve childRun
			for i := 0; b.Loop(); i++ {
				if i%2 == 0 { // alternate, so that neither always runs on a warmer machine
					analyze.add(runAnalyze(b, bin, dir))
					serve.add(runServe(b, bin, dir, n, want))
				} else {
					serve.add(runServe(b, bin, dir, n, want))
					analyze.add(runAnalyze(b, bin, dir))
				}
			}
			analyze.report(b, "analyze")
			serve.report(b, "serve")
			b.ReportMetric(serve.wall.Seconds()/analyze.wall.Seconds(), "serve/analyze")
			b.ReportMetric(serve.cpu.Seconds()/analyze.cpu.Seconds(), "serve/analyze-cpu")
			b.ReportMetric(float64(serve.peakAnalyses), "peak-analyses")
			b.ReportMetric(selfMaxRSS(b), "self-maxRSS-MiB")
		})
		b.Run(fmt.Sprintf("n=%d-max-apps=50", n), func(b *testing.B) {
			dir := cachedCorpus(b, src, n)
			warmPageCache(b, dir)
			var serve childRun
			for b.Loop() {
				serve.add(runServe(b, bin, dir, 50, nil))
			}
			serve.report(b, "serve")
			b.ReportMetric(float64(serve.peakAnalyses), "peak-analyses")
		})
	}
}

// childRun sums what runs of one command cost.
type childRun struct {
	runs         int
	wall, cpu    time.Duration
	maxRSS       int64 // KiB
	peakAnalyses int64
	// serve's first scrape: its part of wall, and its size unzipped
	scrape      time.Duration
	scrapeBytes int64
}

func (c *childRun) add(r childRun) {
	c.runs++
	c.wall += r.wall
	c.cpu += r.cpu
	c.maxRSS = max(c.maxRSS, r.maxRSS)
	c.peakAnalyses = max(c.peakAnalyses, r.peakAnalyses)
	c.scrape += r.scrape
	c.scrapeBytes = r.scrapeBytes
}

func (c *childRun) report(b *testing.B, name string) {
	n := float64(c.runs)
	b.ReportMetric(c.wall.Seconds()/n, name+"-s/op")
	b.ReportMetric(c.cpu.Seconds()/n, name+"-cpu-s/op")
	b.ReportMetric(c.cpu.Seconds()/c.wall.Seconds(), name+"-cores")
	b.ReportMetric(float64(c.maxRSS)/1024, name+"-maxRSS-MiB")
	if c.scrapeBytes > 0 {
		b.ReportMetric(c.scrape.Seconds()/n, name+"-scrape-s/op")
		b.ReportMetric(float64(c.scrapeBytes)/(1<<20), name+"-scrape-MiB")
	}
}

// buildSparkglance builds the command into a temporary directory.
func buildSparkglance(b *testing.B) string {
	b.Helper()
	root, err := testkit.ModuleRoot()
	if err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(b.TempDir(), "sparkglance")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/sparkglance")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// cachedCorpus returns the directory of n copies of src's logs, building it
// first if the cache lacks it (minutes for thousands of logs).
func cachedCorpus(b *testing.B, src string, n int) string {
	b.Helper()
	dir, err := corpus.Cached(src, n)
	if err != nil {
		b.Fatal(err)
	}
	return dir
}

// warmPageCache reads every file under dir once.
func warmPageCache(b *testing.B, dir string) {
	b.Helper()
	buf := make([]byte, 1<<20)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.CopyBuffer(io.Discard, f, buf)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
}

// analyzeStatusOK: 0, or 3 (read with problems: a few real logs have some).
func analyzeStatusOK(err error) bool {
	var exit *exec.ExitError
	return err == nil || errors.As(err, &exit) && exit.ExitCode() == 3
}

// analyzeApps runs `analyze --json dir` untimed and returns the ids of
// the applications it read (spark_app_info shows each once, with its
// latest attempt).
func analyzeApps(b *testing.B, bin, dir string) map[string]bool {
	b.Helper()
	cmd := exec.Command(bin, "analyze", "--json", dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	// Each document's own members are indented by four spaces.
	want := map[string]bool{}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, `    "appId": `); ok {
			id, err := strconv.Unquote(strings.TrimSuffix(v, ","))
			if err != nil {
				b.Fatalf("analyze --json: %q: %v", line, err)
			}
			want[id] = true
		}
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	if err := cmd.Wait(); !analyzeStatusOK(err) {
		b.Fatalf("analyze: %v\n%s", err, lastLines(stderr.String(), 20))
	}
	if len(want) == 0 {
		b.Fatal("analyze --json listed no application")
	}
	return want
}

// runAnalyze times one `analyze --json dir`, its output to /dev/null.
func runAnalyze(b *testing.B, bin, dir string) childRun {
	b.Helper()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer null.Close()
	cmd := exec.Command(bin, "analyze", "--json", dir)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = null, &stderr
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	if !analyzeStatusOK(err) {
		b.Fatalf("analyze: %v\n%s", err, lastLines(stderr.String(), 20))
	}
	r := childRun{wall: wall, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.maxRSS = ru.Maxrss
	}
	return r
}

// spark_app_info's application id label.
var appInfoRE = regexp.MustCompile(`^spark_app_info\{app_id="([^"]*)"`)

// caughtUpRE is the collector's "event logs caught up" line.
var caughtUpRE = regexp.MustCompile(`msg="event logs caught up".* peak_analyses=(\d+)`)

// runServe starts `serve` on dir with --eventlog.max-apps maxApps, asks
// /-/ready every 10 ms until it answers 200, scrapes /metrics once, and
// returns the time from the start to the end of that scrape, the CPU time
// and peak RSS of the process then, and the peak analyses it logs. With
// want, the scrape must show exactly those applications; else maxApps.
func runServe(b *testing.B, bin, dir string, maxApps int, want map[string]bool) childRun {
	b.Helper()
	addr := testkit.FreeLoopbackAddr(b)
	cmd := exec.Command(bin, "serve", "--collector.disable-defaults", "--collector.eventlog",
		"--eventlog.dir", dir, "--eventlog.max-apps", strconv.Itoa(maxApps),
		"--eventlog.retention", "1000000h", // the corpus holds runs from 2015 on
		"--web.listen-address", addr)
	var stderr testkit.SyncBuffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(time.Minute):
			_ = cmd.Process.Kill()
			<-exited
		}
	}()
	base := "http://" + addr
	client := &http.Client{Timeout: time.Minute}
	for deadline := start.Add(30 * time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if resp, err := client.Get(base + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			b.Fatalf("serve not ready within 30 minutes\n%s", lastLines(stderr.String(), 20))
		}
		select {
		case <-exited:
			b.Fatalf("serve exited\n%s", lastLines(stderr.String(), 20))
		default:
		}
	}
	ready := time.Now()
	got, size := scrapeApps(b, client, base+"/metrics")
	r := childRun{wall: time.Since(start), scrape: time.Since(ready), scrapeBytes: size}
	r.cpu, r.maxRSS = procUsage(b, cmd.Process.Pid)
	switch {
	case want == nil && (len(got) == 0 || len(got) > maxApps):
		// Fewer when copies of a log claim one application.
		b.Fatalf("first scrape after ready shows %d applications, want 1 to %d (--eventlog.max-apps)", len(got), maxApps)
	case want != nil:
		for k := range want {
			if !got[k] {
				b.Fatalf("first scrape after ready shows %d applications; lacks %q of analyze's %d", len(got), k, len(want))
			}
		}
		if len(got) != len(want) {
			b.Fatalf("first scrape after ready shows %d applications, analyze %d", len(got), len(want))
		}
	}
	logs, ok := stderr.Await(time.Minute, caughtUpRE.MatchString)
	if !ok {
		b.Fatalf("serve did not log that it caught up\n%s", lastLines(logs, 20))
	}
	r.peakAnalyses, _ = strconv.ParseInt(caughtUpRE.FindStringSubmatch(logs)[1], 10, 64)
	return r
}

// scrapeApps GETs /metrics as Prometheus does (text, gzip'd on the wire)
// and returns the application ids of its spark_app_info series and its
// size unzipped, reading it line by line: this process's peak RSS is the
// floor of analyze's getrusage figure, and 10,000 applications make
// hundreds of megabytes of text.
func scrapeApps(b *testing.B, client *http.Client, u string) (map[string]bool, int64) {
	b.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := client.Do(req) // the transport asks for gzip and unzips
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("GET %s: %s", u, resp.Status)
	}
	apps := map[string]bool{}
	var size int64
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		size += int64(len(line)) + 1
		if m := appInfoRE.FindSubmatch(line); m != nil {
			apps[string(m[1])] = true
		}
	}
	if err := sc.Err(); err != nil {
		b.Fatalf("GET %s: %v", u, err)
	}
	return apps, size
}

// procUsage reads a live process's CPU time (user + sys) and peak RSS
// (VmHWM, KiB) from /proc.
func procUsage(b *testing.B, pid int) (time.Duration, int64) {
	b.Helper()
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// The fields after the command's ")" start with the state (field 3);
	// utime and stime are fields 14 and 15, in clock ticks of 1/100 s
	// (USER_HZ on Linux).
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		b.Fatalf("/proc/%d/stat: %v", pid, err)
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	var hwm int64
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			hwm, _ = strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, hwm
}

// selfMaxRSS is this process's peak RSS in MiB: the floor of a child's
// getrusage figure.
func selfMaxRSS(b *testing.B) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return float64(ru.Maxrss) / 1024
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
