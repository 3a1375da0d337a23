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

// A non-log among logs is reported but the logs are still analysed; the
// status says the read was partial.
func TestAnalyzeDirectoryWithAStrayFile(t *testing.T) {
	dir := t.TempDir()
	writeTestFile(t, dir, "app-demo", strings.Join(simulatedLog(t), "\n")+"\n")
	readme := writeTestFile(t, dir, "README.md", "# logs\n")
	out, stderr, err := runAnalyzeStderr(t, "--json", dir)
	if exitStatus(err) != exitPartial {
		t.Errorf("err %v, want exit %d", err, exitPartial)
	}
	if !strings.Contains(stderr, readme+": holds no Spark event") {
		t.Errorf("stderr %q does not name the stray file", stderr)
	}
	var app struct {
		AppID string `json:"appId"`
	}
	oneApp(t, out, &app)
	if app.AppID != simulate.DefaultConfig().AppID {
		t.Errorf("appId %q", app.AppID)
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
