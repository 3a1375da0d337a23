package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// exponent is a number printed in scientific notation: 6.7108864e+07, 2.56e-05.
var exponent = regexp.MustCompile(`(^|[^\w.-])\d+(\.\d+)?[eE][+-]?\d+\b`)

// Help goes to stdout, so that `serve --help | less` shows it; --help lists
// the common flags (serve's --demo first) and one line per topic, and
// --help-long every flag under its topic; no default is in scientific
// notation.
func TestHelpOnStdoutGroupedByTopic(t *testing.T) {
	stdout, stderr, status := runBinary(t, "serve", "--help")
	if status != 0 || stderr != "" || stdout == "" {
		t.Fatalf("serve --help: exit %d, %d bytes on stdout, stderr %q", status, len(stdout), stderr)
	}
	lines := strings.Split(stdout, "\n")
	if len(lines) > 80 {
		t.Errorf("serve --help is %d lines, want a short help (the rest under --help-long)", len(lines))
	}
	demo, flags := strings.Index(stdout, "--[no-]demo"), strings.Index(stdout, "Flags:")
	if demo < 0 || flags < 0 || strings.Count(stdout[flags:demo], "\n      --") > 0 {
		t.Errorf("serve --help does not list --demo first among its flags:\n%s", stdout)
	}
	for _, want := range []string{"--finding.*", "Finding thresholds (", "--otlp.*", "--web.listen-address", "--help-long"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("serve --help lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "--finding.sql.spill.min-bytes") {
		t.Errorf("serve --help lists every finding threshold; they belong to --help-long")
	}

	long, stderr, status := runBinary(t, "analyze", "--help-long")
	if status != 0 || stderr != "" {
		t.Fatalf("analyze --help-long: exit %d, stderr %q", status, stderr)
	}
	common, findings, energy := strings.Index(long, "\nCommon:\n"), strings.Index(long, "\nFinding thresholds:\n"), strings.Index(long, "\nEnergy and carbon:\n")
	if common < 0 || findings < common || energy < findings {
		t.Errorf("analyze --help-long is not grouped Common, Finding thresholds, Energy and carbon:\n%s", long)
	}
	if !strings.Contains(long[findings:energy], "--finding.sql.spill.min-bytes=67108864") {
		t.Errorf("the finding thresholds are not under their topic, or their defaults are not plain numbers:\n%s", long[findings:energy])
	}
	for _, cmd := range []string{"analyze", "report", "backfill", "serve", "simulate"} {
		for _, flag := range []string{"--help", "--help-long"} {
			out, _, _ := runBinary(t, cmd, flag)
			if m := exponent.FindString(out); m != "" {
				t.Errorf("%s %s prints %q in scientific notation", cmd, flag, m)
			}
		}
	}
}

// A misspelt command or flag gets the nearest one suggested.
func TestMisspeltCommandSuggested(t *testing.T) {
	for _, c := range []struct{ args []string }{
		{[]string{"analyse", "x"}}, {[]string{"analyze", "--jsn", "x"}},
	} {
		_, stderr, status := runBinary(t, c.args...)
		want := map[string]string{"analyse": `did you mean "analyze"?`, "analyze": `did you mean "--json"?`}[c.args[0]]
		if status != exitUsage || !strings.Contains(stderr, want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, status, stderr, exitUsage, want)
		}
	}
}

// Every number analyze prints over all the shared logs reads as on the
// report page: no scientific notation (probeRows=4.25e+07, 2.56e-05 Wh),
// and no control character but newlines and tabs.
func TestAnalyzeTextHasNoExponent(t *testing.T) {
	paths := sharedLogs(t)
	err := filepath.WalkDir(testkit.Events(t, "extra"), func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && strings.HasPrefix(d.Name(), "eventlog_v2_"):
			paths = append(paths, p)
			return filepath.SkipDir
		case !d.IsDir() && !strings.HasSuffix(d.Name(), ".md"):
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, _ := runBinary(t, append([]string{"analyze"}, paths...)...)
	if n := strings.Count(stdout, "\nlog: "); n < 30 {
		t.Fatalf("analyze read %d of %d logs:\n%s", n, len(paths), stderr)
	}
	for _, out := range []string{stdout, stderr} {
		for _, line := range strings.Split(out, "\n") {
			if m := exponent.FindString(line); m != "" && !strings.Contains(line, "log: ") {
				t.Errorf("%q in scientific notation: %s", m, line)
			}
			if strings.ContainsFunc(line, func(r rune) bool { return r < 0x20 && r != '\t' }) {
				t.Errorf("a control character in %q", line)
			}
		}
	}
}

// Names an event log chose (application, stage, file) and problems are
// escaped on the terminal: a name cannot set the window title, clear the
// screen or reorder what is shown.
func TestHostileNamesEscaped(t *testing.T) {
	dir := t.TempDir()
	hostile := "\x1b]0;pwned\x07\x1b[2J\u202e\u009b31m"
	lines := []string{
		`{"Event":"SparkListenerLogStart","Spark Version":"3.5.0"}`,
		fmt.Sprintf(`{"Event":"SparkListenerApplicationStart","App Name":%s,"App ID":"app-1","Timestamp":1700000000000,"User":"u"}`, jsonText("app"+hostile)),
		`{"Event":"SparkListenerExecutorAdded","Timestamp":1700000000000,"Executor ID":"1","Executor Info":{"Host":"h","Total Cores":2,"Log Urls":{}}}`,
		fmt.Sprintf(`{"Event":"SparkListenerStageSubmitted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":%s,"Number of Tasks":1,"Submission Time":1700000000100,"RDD Info":[],"Parent IDs":[],"Details":"","Accumulables":[]},"Properties":{}}`, jsonText("stage"+hostile)),
		fmt.Sprintf(`{"Event":"SparkListenerStageCompleted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":%s,"Number of Tasks":1,"Submission Time":1700000000100,"Completion Time":1700000001000,"RDD Info":[],"Parent IDs":[],"Details":"","Accumulables":[]}}`, jsonText("stage"+hostile)),
		`{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task Type":"ResultTask","Task End Reason":{"Reason":"Success"},"Task Info":{"Task ID":0,"Index":0,"Attempt":0,"Launch Time":1700000000100,"Executor ID":"1","Host":"h","Finish Time":1700000000900,"Failed":false,"Killed":false},"Task Metrics":{"Executor Run Time":800,"Executor CPU Time":700000000}}`,
		`{"Event":"NotAnEvent` + hostile + `"`, // a damaged line: a problem naming the file
		`{"Event":"SparkListenerApplicationEnd","Timestamp":1700000002000}`,
	}
	log := filepath.Join(dir, "log"+hostile)
	if err := os.WriteFile(log, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, _ := runBinary(t, "analyze", log)
	if !strings.Contains(stdout, `app\x1b]0;pwned\x07\x1b[2J\u202e\u009b31m`) || !strings.Contains(stdout, `stage\x1b]0;pwned`) {
		t.Errorf("the names are not shown escaped:\n%s", stdout)
	}
	for what, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
		if strings.ContainsAny(out, "\x1b\x07\u202e\u009b") {
			t.Errorf("%s carries a raw control character:\n%q", what, out)
		}
	}
	if !strings.Contains(stderr, `log\x1b]0;pwned`) {
		t.Errorf("stderr does not name the damaged file, escaped:\n%s", stderr)
	}
}

// analyze names the locations it could not read without the secrets they
// carry (an endpoint's password in a query option, a SAS token).
func TestUnreadableLocationRedacted(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "sparkglance-test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "sparkglance-test-secret")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	loc := "s3://bucket/logs?endpoint=http://user:hunter2@127.0.0.1:1&region=us-east-1&use_path_style=true"
	_, stderr, status := runBinary(t, "analyze", loc)
	if status != exitNothingRead || strings.Contains(stderr, "hunter2") || !strings.Contains(stderr, "no event log could be read from s3://bucket/logs?endpoint=") {
		t.Errorf("exit %d, stderr:\n%s", status, stderr)
	}
	for in, want := range map[string]string{
		loc: "s3://bucket/logs?endpoint=http%3A%2F%2Fuser%3Axxxxx%40127.0.0.1%3A1&region=us-east-1&use_path_style=true",
		"abfss://c@acct.dfs.core.windows.net/logs?sas_token=sv%3D2022&x=1": "abfss://c@acct.dfs.core.windows.net/logs?sas_token=xxxxx&x=1",
		"gs://user:pw@bucket/logs": "gs://user:xxxxx@bucket/logs",
		"/var/log/spark:events":    "/var/log/spark:events",
	} {
		if got := redactLocation(in); got != want {
			t.Errorf("redactLocation(%q) = %q, want %q", in, got, want)
		}
	}
}

// jsonText is s as a JSON string, its control characters \u-escaped as
// Spark writes them.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
