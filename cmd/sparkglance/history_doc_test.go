package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/testkit"
	"github.com/sparkglance/sparkglance/internal/testkit/promtest"
)

// docCommands returns the lines of the first ```sh block under heading in
// a markdown file of the module.
func docCommands(t *testing.T, doc, heading string) []string {
	t.Helper()
	root, err := testkit.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, doc))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("%s has no heading %q", doc, heading)
	}
	text = text[i:]
	start := strings.Index(text, "\n```sh\n")
	if start < 0 {
		t.Fatalf("%s: no ```sh block under %q", doc, heading)
	}
	text = text[start+len("\n```sh\n"):]
	end := strings.Index(text, "\n```")
	if end < 0 {
		t.Fatalf("%s: the ```sh block under %q is not closed", doc, heading)
	}
	return strings.Split(text[:end], "\n")
}

// The commands of docs/history.md, run as written (only the History Server
// directory and Prometheus' data directory point into the test, and
// Prometheus listens on a loopback port) on Spark's own test logs, which
// span 2015 to 2021: a real Prometheus then answers for every application
// written. With Prometheus' default retention it deleted all but the
// newest application's blocks at start.
func TestHistoryDocCommandsKeepEveryApplication(t *testing.T) {
	testkit.RequireTool(t, "promtool")
	testkit.RequireTool(t, "prometheus")
	events := testkit.Events(t)
	bin := binary(t)
	work := t.TempDir()
	data := filepath.Join(work, "data")
	if err := os.WriteFile(filepath.Join(work, "prometheus.yml"), []byte(promtest.MinimalConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	var prom *promtest.Server
	var backfillErr string
	for _, line := range docCommands(t, "docs/history.md", "## Load a History Server directory") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		line = strings.NewReplacer("/var/spark-events", events, "/prometheus/data", data).Replace(line)
		if strings.HasPrefix(line, "prometheus ") {
			if prom != nil {
				t.Fatalf("two prometheus commands in the doc")
			}
			prom = startDocPrometheus(t, ctx, line, work, env)
			continue
		}
		cmd := exec.CommandContext(ctx, "sh", "-c", line)
		cmd.Dir, cmd.Env = work, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
		if strings.HasPrefix(line, "sparkglance backfill ") {
			backfillErr = string(out)
		}
	}
	if prom == nil {
		t.Fatal("the doc never starts prometheus: the blocks would be loaded with whatever retention it has")
	}

	// Every application written, queried at its last sample.
	f, err := os.Open(filepath.Join(work, "history.om"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	last := map[string]string{} // app_id → the time of its last spark_app_info sample
	info := regexp.MustCompile(`^spark_app_info\{app_id="([^"]*)".*\} 1 ([0-9.]+)$`)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := info.FindStringSubmatch(sc.Text()); m != nil {
			last[m[1]] = m[2]
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`(\d+) applications`).FindStringSubmatch(backfillErr)
	if want == nil || want[1] != strconv.Itoa(len(last)) || len(last) < 10 {
		t.Fatalf("%d applications in history.om; backfill said:\n%s", len(last), backfillErr)
	}
	for id, ts := range last {
		r, err := prom.Query(`spark_app_info{app_id="` + id + `"} @ ` + ts)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Result) != 1 {
			t.Errorf("%s: %d spark_app_info series at %s, want 1 (its blocks deleted?)", id, len(r.Result), ts)
		}
	}
}

// startDocPrometheus runs a documented prometheus command line with a
// loopback listen address added, until the test ends.
func startDocPrometheus(t *testing.T, ctx context.Context, line, dir string, env []string) *promtest.Server {
	t.Helper()
	addr := testkit.FreeLoopbackAddr(t)
	logPath := filepath.Join(dir, "prometheus.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", "exec "+line+" --web.listen-address="+addr)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		logFile.Close()
		if t.Failed() {
			out, _ := os.ReadFile(logPath)
			t.Logf("prometheus log:\n%s", out)
		}
	})
	promtest.WaitReady(t, "http://"+addr+"/-/ready", 30*time.Second, logPath)
	return &promtest.Server{Addr: addr, URL: "http://" + addr, Dir: dir}
}
