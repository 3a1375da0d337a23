package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alecthomas/kingpin/v2"

	"github.com/sparkglance/sparkglance/internal/simulate"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// runAnalyze runs `sparkglance analyze ARGS…` in-process and returns stdout.
func runAnalyze(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out, _, err := runAnalyzeStderr(t, args...)
	return out, err
}

// runAnalyzeStderr runs `sparkglance analyze ARGS…` in-process and returns
// stdout and stderr.
func runAnalyzeStderr(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	app := kingpin.New("sparkglance", "")
	c := newAnalyzeCommand(app.Command("analyze", ""))
	var out, errOut bytes.Buffer
	c.out, c.errOut = &out, &errOut
	if _, err := app.Parse(append([]string{"analyze"}, args...)); err != nil {
		t.Fatalf("parse %v: %v", args, err)
	}
	err = c.run(context.Background())
	return out.String(), errOut.String(), err
}

// exitStatus is the status realMain returns for a command's error.
func exitStatus(err error) int {
	if err == nil {
		return exitOK
	}
	var ec exitCoder
	if asExitCoder(err, &ec) {
		return ec.ExitCode()
	}
	return exitNothingRead
}

// oneApp decodes analyze --json output, which must be an array of exactly
// one application.
func oneApp(t *testing.T, out string, into any) {
	t.Helper()
	var apps []json.RawMessage
	if err := json.Unmarshal([]byte(out), &apps); err != nil {
		t.Fatalf("not a JSON array: %v\n%s", err, out[:min(len(out), 300)])
	}
	if len(apps) != 1 {
		t.Fatalf("%d applications, want 1", len(apps))
	}
	if err := json.Unmarshal(apps[0], into); err != nil {
		t.Fatal(err)
	}
}

func TestAnalyzeJSONOneApp(t *testing.T) {
	path := testkit.Events(t, "local-1422981780767")
	out, err := runAnalyze(t, "--json", path)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	oneApp(t, out, &got)
	for _, k := range []string{"appId", "attemptId", "appName", "sparkVersion", "start", "end", "events", "problems",
		"intervalMs", "intervals", "stages", "executors", "findings"} {
		if _, ok := got[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	// Values from the History Server's answer for this app
	// (../shared/oracle/one_app_json_expectation.json) and the log itself.
	if got["appId"] != "local-1422981780767" || got["appName"] != "Spark shell" {
		t.Errorf("appId %v appName %v", got["appId"], got["appName"])
	}
	if got["start"] != float64(1422981779720) || got["end"] != float64(1422981788731) {
		t.Errorf("start %v end %v, want 1422981779720 and 1422981788731 (oracle: startTimeEpoch, endTimeEpoch)", got["start"], got["end"])
	}
	ev := got["events"].(map[string]any)
	if ev["SparkListenerTaskEnd"] != float64(32) || ev["SparkListenerStageCompleted"] != float64(4) {
		t.Errorf("events %v, want 32 TaskEnd and 4 StageCompleted (shared README)", ev)
	}
	if p := got["problems"].([]any); len(p) != 0 {
		t.Errorf("problems on a clean log: %v", p)
	}
}

func TestAnalyzeSeveralAppsGiveAnArray(t *testing.T) {
	a := testkit.Events(t, "local-1422981780767")
	b := testkit.Events(t, "app-20180109111548-0000")
	out, err := runAnalyze(t, "--json", a, b)
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0]["appId"] != "local-1422981780767" || got[1]["appId"] != "app-20180109111548-0000" {
		t.Errorf("got %d apps", len(got))
	}
}

func TestAnalyzeReportsProblemsAndExitsPartial(t *testing.T) {
	path := testkit.Events(t, "extra", "spark-rapids-tools", "spark-events-profiling", "malformed_json_eventlog.zstd")
	out, stderr, err := runAnalyzeStderr(t, "--json", path)
	if exitStatus(err) != exitPartial {
		t.Fatalf("a readable log with a bad line: err %v, want exit status %d", err, exitPartial)
	}
	if !strings.Contains(stderr, path+": 1 problem,") {
		t.Errorf("stderr does not count the problem: %q", stderr)
	}
	var got struct {
		AppID    string           `json:"appId"`
		Events   map[string]int64 `json:"events"`
		Problems []struct {
			File   string `json:"file"`
			Line   int64  `json:"line"`
			Reason string `json:"reason"`
		} `json:"problems"`
	}
	oneApp(t, out, &got)
	if len(got.Problems) != 1 || got.Problems[0].Line != 4 || !strings.HasSuffix(got.Problems[0].File, "malformed_json_eventlog.zstd") {
		t.Errorf("problems %+v, want one at line 4 of the file", got.Problems)
	}
	if got.AppID != "application_1603128018386_7759" || got.Events["SparkListenerTaskEnd"] != 217 {
		t.Errorf("app %q with %d TaskEnd; the events around the bad line must survive (README: 217)", got.AppID, got.Events["SparkListenerTaskEnd"])
	}
}

func TestAnalyzeMissingInputFailsButReportsTheRest(t *testing.T) {
	good := testkit.Events(t, "local-1422981780767")
	out, stderr, err := runAnalyzeStderr(t, "--json", filepath.Join(t.TempDir(), "no-such-log"), good)
	if exitStatus(err) != exitPartial {
		t.Fatalf("err %v, want exit status %d: one of two inputs was read", err, exitPartial)
	}
	if !strings.Contains(stderr, "no-such-log: no such file or directory") {
		t.Errorf("stderr %q does not name the missing input and why", stderr)
	}
	if !strings.Contains(out, `"local-1422981780767"`) {
		t.Error("the readable input was not reported")
	}
}

func TestAnalyzeTextSummary(t *testing.T) {
	path := testkit.Events(t, "app-20200706201101-0003")
	out, err := runAnalyze(t, "--interval", "stages", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"app-20200706201101-0003", "Timeline", "Findings", "48  SparkListenerTaskEnd"} {
		if !strings.Contains(out, want) {
			t.Errorf("text summary lacks %q:\n%s", want, out)
		}
	}
}

func TestAnalyzeRejectsBadInterval(t *testing.T) {
	if _, err := runAnalyze(t, "--interval", "soon", "x"); exitStatus(err) != exitUsage || !strings.Contains(err.Error(), "--interval") {
		t.Errorf("err %v, want a usage error (exit %d) naming --interval", err, exitUsage)
	}
}

func TestAnalyzeThresholdFlagsReachTheFindings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app-demo")
	if err := simulate.WriteFile(path, simulate.DefaultConfig()); err != nil {
		t.Fatal(err)
	}
	count := func(args ...string) int {
		out, err := runAnalyze(t, append([]string{"--json"}, append(args, path)...)...)
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Findings []struct{ Kind string } `json:"findings"`
		}
		oneApp(t, out, &r)
		n := 0
		for _, f := range r.Findings {
			if f.Kind == "single_core_stage" {
				n++
			}
		}
		return n
	}
	// The demo's repartition(1) stage runs one 45 s task.
	if n := count(); n == 0 {
		t.Fatal("the demo's repartition(1) stage was not found with the default thresholds")
	}
	if n := count("--finding.single-core.min-duration=1h"); n != 0 {
		t.Errorf("%d single_core_stage findings with a 1h minimum", n)
	}
}
