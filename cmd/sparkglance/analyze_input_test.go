package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/human"
	"github.com/sparkglance/sparkglance/internal/simulate"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// writeFile writes data to name in dir and returns its path.
func writeTestFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// simulatedLog writes the demo application's finished log as lines.
func simulatedLog(t *testing.T) []string {
	t.Helper()
	var b strings.Builder
	if _, err := simulate.Write(&b, simulate.DefaultConfig()); err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

// An input without an event log is an error naming the path and why, exit
// status 1, and never a placeholder application in the JSON.
func TestAnalyzeInputWithoutEventLog(t *testing.T) {
	for _, tc := range []struct {
		name   string
		make   func(dir string) string
		reason string
	}{
		{"empty directory", func(dir string) string { return dir }, "empty directory"},
		{"only sub-directories", func(dir string) string {
			if err := os.MkdirAll(filepath.Join(dir, "2024", "01"), 0o755); err != nil {
				t.Fatal(err)
			}
			return dir
		}, "sub-directories are not searched"},
		{"not an event log", func(dir string) string {
			return writeTestFile(t, dir, "notes.txt", "shopping list\neggs\n")
		}, "holds no Spark event: not a Spark event log"},
		{"empty file", func(dir string) string { return writeTestFile(t, dir, "app-1", "") }, "holds no Spark event"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.make(t.TempDir())
			out, stderr, err := runAnalyzeStderr(t, "--json", path)
			if exitStatus(err) != exitNothingRead {
				t.Errorf("err %v: exit %d, want %d", err, exitStatus(err), exitNothingRead)
			}
			if !strings.Contains(stderr, path+": ") || !strings.Contains(stderr, tc.reason) {
				t.Errorf("stderr %q does not name %s and %q", stderr, path, tc.reason)
			}
			var apps []any
			if err := json.Unmarshal([]byte(out), &apps); err != nil || len(apps) != 0 {
				t.Errorf("stdout %q, want an empty JSON array", out)
			}
		})
	}
}

// Files of a directory that are clearly not event logs (a README, a JSON
// file of something else: neither the name nor the content of a log) are
// named once as skipped and leave the status alone; a damaged log beside
// them still makes the read partial, and so does a non-log named on the
// command line beside a good log. (A file named like a log that holds no
// event is a damaged log: TestParallelErrorsNameTheirLogAndSpareTheOthers.)
func TestAnalyzeDirectoryWithStrayFiles(t *testing.T) {
	dir := t.TempDir()
	writeTestFile(t, dir, "app-demo", strings.Join(simulatedLog(t), "\n")+"\n")
	stray := []string{
		writeTestFile(t, dir, "README.md", "# logs\nWhat these are.\n"),
		writeTestFile(t, dir, "settings.json", `{"retention":"30d"}`+"\n"+`{"owner":"data"}`+"\n"),
		writeTestFile(t, dir, "NOTES", "kept for a year\n"),
	}
	out, stderr, err := runAnalyzeStderr(t, "--json", dir)
	if exitStatus(err) != exitOK {
		t.Errorf("err %v: exit %d, want %d", err, exitStatus(err), exitOK)
	}
	for _, p := range stray {
		if n := strings.Count(stderr, p+": not a Spark event log"); n != 1 {
			t.Errorf("stderr names %s as not an event log %d times, want once:\n%s", p, n, stderr)
		}
	}
	var app struct {
		AppID string `json:"appId"`
	}
	oneApp(t, out, &app)
	if app.AppID != simulate.DefaultConfig().AppID {
		t.Errorf("appId %q", app.AppID)
	}

	lines := simulatedLog(t)
	lines[5] = `{"Event":"SparkListenerTaskEnd", broken`
	writeTestFile(t, dir, "app-damaged", strings.Join(lines, "\n")+"\n")
	if _, stderr, err := runAnalyzeStderr(t, "--json", dir); exitStatus(err) != exitPartial {
		t.Errorf("with a damaged log: exit %d, want %d\n%s", exitStatus(err), exitPartial, stderr)
	}
	good := testkit.Events(t, "local-1422981780767")
	if _, stderr, err := runAnalyzeStderr(t, "--json", good, stray[0]); exitStatus(err) != exitPartial || !strings.Contains(stderr, stray[0]+": holds no Spark event") {
		t.Errorf("a named non-log beside a log: exit %d, want %d\n%s", exitStatus(err), exitPartial, stderr)
	}
}

// Spark's own test log directory holds a README.md: analyze and report of
// it succeed, naming the README once.
func TestAnalyzeSparkTestDirectoryWithItsReadme(t *testing.T) {
	dir := testkit.Events(t)
	for _, args := range [][]string{{"analyze", dir}, {"report", dir, "-o", t.TempDir()}} {
		_, stderr, code := runBinary(t, args...)
		if code != exitOK || strings.Count(stderr, "README.md") != 1 {
			t.Errorf("%s: exit %d, want %d and README.md named once; stderr:\n%s", args[0], code, exitOK, stderr)
		}
	}
}

func TestAnalyzeUnsupportedScheme(t *testing.T) {
	good := testkit.Events(t, "local-1422981780767")
	for _, loc := range []string{"hdfs://namenode:8020/spark-logs", "webhdfs://namenode:9870/spark-logs"} {
		out, _, err := runAnalyzeStderr(t, good, loc)
		if exitStatus(err) != exitUsage {
			t.Errorf("%s: exit %d, want %d (usage)", loc, exitStatus(err), exitUsage)
		}
		if err == nil {
			continue
		}
		for _, want := range []string{loc, "not supported", "local paths", "file://", "s3a://", "gs://", "abfss://", "mount"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q lacks %q", err, want)
			}
		}
		if out != "" {
			t.Errorf("%s: something was analysed before the usage error:\n%.200s", loc, out)
		}
	}
}

func TestAnalyzeFileURL(t *testing.T) {
	path := testkit.Events(t, "local-1422981780767")
	out, err := runAnalyze(t, "--json", "file://"+path)
	if err != nil {
		t.Fatal(err)
	}
	var app struct {
		AppID string `json:"appId"`
		Log   string `json:"log"`
	}
	oneApp(t, out, &app)
	if app.AppID != "local-1422981780767" || app.Log != path {
		t.Errorf("appId %q log %q", app.AppID, app.Log)
	}
}

// Damage in text mode: the summary still comes out, each problem is one
// file:line line on stderr, and a garbage-filled log cannot flood stderr.
func TestAnalyzeTextProblemsOnStderrBounded(t *testing.T) {
	lines := simulatedLog(t)
	const bad = 50
	var b strings.Builder
	for i, l := range lines {
		b.WriteString(l + "\n")
		if i >= 2 && i < 2+bad {
			b.WriteString(`{"Event":"SparkListenerTaskEnd", broken` + "\n")
		}
	}
	path := writeTestFile(t, t.TempDir(), "app-damaged", b.String())
	out, stderr, err := runAnalyzeStderr(t, path)
	if exitStatus(err) != exitPartial {
		t.Errorf("err %v, want exit %d", err, exitPartial)
	}
	if !strings.Contains(out, simulate.DefaultConfig().AppID) || !strings.Contains(out, fmt.Sprintf("Problems: %d (listed on stderr)", bad)) {
		t.Errorf("summary lacks the application or the problem count:\n%s", out)
	}
	// The first bad line is line 4: after lines 1-3 of the log.
	if !strings.Contains(stderr, path+":4 ") || !strings.Contains(stderr, "malformed-json") {
		t.Errorf("stderr lacks %s:4 malformed-json:\n%s", path, stderr)
	}
	if n := strings.Count(stderr, ": malformed-json: "); n != maxStderrProblems {
		t.Errorf("%d problem lines on stderr, want %d", n, maxStderrProblems)
	}
	if !strings.Contains(stderr, "and "+human.Plural(bad-maxStderrProblems, "problem")+" more") {
		t.Errorf("stderr does not say how many were left out:\n%s", stderr)
	}
}
