package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/sparkglance/sparkglance/internal/human"
	"github.com/sparkglance/sparkglance/internal/simulate"
)

// writeManyApps writes n small finished simulated applications to dir,
// each with its own id and seed (so each has other figures), and returns
// their paths. Small ones, so that hundreds are written in a few seconds.
func writeManyApps(tb testing.TB, dir string, n int) []string {
	tb.Helper()
	paths := make([]string, n)
	for i := range n {
		cfg := simulate.DefaultConfig()
		cfg.AppID = fmt.Sprintf("app-20261201%06d-%04d", i, i)
		cfg.Start = cfg.Start.Add(time.Duration(i) * time.Minute)
		cfg.Executors, cfg.CoresPerExecutor, cfg.TasksPerStage = 2+i%3, 2, 8+i%5
		cfg.Seed = uint64(1000 + i)
		paths[i] = filepath.Join(dir, cfg.AppID)
		if err := simulate.WriteFile(paths[i], cfg); err != nil {
			tb.Fatal(err)
		}
	}
	return paths
}

// runCommand runs `sparkglance NAME ARGS…` in-process: stdout, stderr
// (ending with the error line realMain prints) and the exit status realMain
// would return.
func runCommand(t testing.TB, name string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	app := kingpin.New("sparkglance", "")
	var out, errOut bytes.Buffer
	var cmd command
	switch name {
	case "analyze":
		c := newAnalyzeCommand(app.Command(name, ""))
		c.out, c.errOut = &out, &errOut
		cmd = c
	case "report":
		c := newReportCommand(app.Command(name, ""))
		c.analyze.out, c.analyze.errOut = &out, &errOut
		cmd = c
	case "backfill":
		c := newBackfillCommand(app.Command(name, ""))
		c.errOut = &errOut
		cmd = c
	default:
		t.Fatalf("no command %s here", name)
	}
	if _, err := app.Parse(append([]string{name}, args...)); err != nil {
		t.Fatalf("parse %v: %v", args, err)
	}
	err := cmd.run(context.Background())
	if err != nil {
		fmt.Fprintf(&errOut, "sparkglance %s: %s\n", name, human.Safe(err.Error()))
	}
	return out.String(), errOut.String(), exitStatus(err)
}

// manyLogsDir is a directory of 12 generated applications among which one
// log has a damaged line (a problem), plus a log that holds no event and
// one damaged from its first line: the errors of some must not stop the
// others, and must come out where the sequential read puts them.
func manyLogsDir(t *testing.T) string {
	dir := t.TempDir()
	paths := writeManyApps(t, dir, 12)
	data, err := os.ReadFile(paths[7])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	lines[40] = "{\"Event\":\"SparkListenerTaskEnd\",\n"
	if err := os.WriteFile(paths[7], []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, dir, "app-20261201000003-9999", "")
	writeTestFile(t, dir, "app-20261201000009-9999", "not json\n{\"Event\":\n")
	return dir
}

// readTree returns every file under dir by its relative path.
func readTree(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[rel] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// Errors in some applications do not stop the others: every good log is
// analysed, each bad one is named on stderr with its reason, and the exit
// status says the read was partial, as a sequential read says.
func TestParallelErrorsNameTheirLogAndSpareTheOthers(t *testing.T) {
	dir := manyLogsDir(t)
	out, errOut, status := runCommand(t, "analyze", "--parallel", "4", "--json", dir)
	if status != exitPartial {
		t.Errorf("exit status %d, want %d", status, exitPartial)
	}
	if n := strings.Count(out, `"appId": "app-20261201`); n != 12 {
		t.Errorf("%d applications in the JSON, want the 12 generated (one with a damaged line)", n)
	}
	for _, want := range []string{
		filepath.Join(dir, "app-20261201000003-9999") + ": holds no Spark event",
		filepath.Join(dir, "app-20261201000009-9999") + ": holds no Spark event",
		filepath.Join(dir, "app-20261201000007-0007") + ": 1 problem,",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if _, _, status := runCommand(t, "analyze", "--parallel=-1", dir); status != exitUsage {
		t.Errorf("--parallel -1: exit status %d, want %d", status, exitUsage)
	}
}

// Two logs of the same attempt get two pages (and a duplicate-app problem), named in the order of the
// inputs (name.html, then name-2.html…) whichever worker finishes first,
// and the pages' temporary files are all gone at the end.
func TestReportPagesOfOneAttemptNamedInInputOrder(t *testing.T) {
	src := t.TempDir()
	same := writeManyApps(t, src, 2) // app 0 three times, app 1 once
	root := t.TempDir()
	var inputs []string
	for i, sub := range []string{"a", "b", "c"} {
		dir := filepath.Join(root, sub)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(same[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(same[0])), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			other, err := os.ReadFile(same[1])
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(same[1])), other, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		inputs = append(inputs, dir)
	}
	for _, parallel := range []string{"1", "3"} {
		out := filepath.Join(t.TempDir(), "report")
		_, errOut, st := runCommand(t, "report", append([]string{"--parallel", parallel, "-o", out}, inputs...)...)
		// The copies are duplicate-app problems (read with problems), and
		// still get their pages.
		if st != exitPartial || strings.Count(errOut, ": duplicate-app: ") != 2 {
			t.Fatalf("--parallel %s: exit %d, want %d and two duplicate-app problems\n%s", parallel, st, exitPartial, errOut)
		}
		files := readTree(t, out)
		name := filepath.Base(same[0])
		want := map[string]string{ // page → the input directory its log is in
			name + ".html": "a", name + "-2.html": "b", name + "-3.html": "c", filepath.Base(same[1]) + ".html": "b",
		}
		for page, sub := range want {
			data, ok := files[page]
			if !ok {
				t.Errorf("--parallel %s: no %s among %v", parallel, page, keys(files))
				continue
			}
			if log := filepath.Join(root, sub, filepath.Base(same[0])); page != filepath.Base(same[1])+".html" && !bytes.Contains(data, []byte(log)) {
				t.Errorf("--parallel %s: %s is not the page of %s", parallel, page, log)
			}
		}
		if len(files) != len(want)+1 { // and index.html
			t.Errorf("--parallel %s: files %v, want %d pages and index.html", parallel, keys(files), len(want))
		}
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
