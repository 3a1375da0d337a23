package sparklog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readShared(t testing.TB, elem ...string) []byte {
	t.Helper()
	data, err := os.ReadFile(testkit.Events(t, elem...))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func fileNames(l Log) []string {
	var names []string
	for _, f := range l.Files {
		names = append(names, f.Name())
	}
	return names
}

// TestDiscoverLogDirectory: the History Server's own directory holds 18 logs
// (16 apps, two with 2 attempts each) plus README.md, which is kept as a log
// and reported as "not an event log" when read; extra/ is ignored as Spark
// ignores sub-directories not named eventlog_v2_*.
func TestDiscoverLogDirectory(t *testing.T) {
	root := testkit.Events(t)
	logs, err := Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 19 {
		t.Fatalf("%d logs, want 18 + README.md", len(logs))
	}
	keys := map[string]bool{}
	for _, l := range logs {
		if keys[l.Key] {
			t.Errorf("duplicate key %s", l.Key)
		}
		keys[l.Key] = true
		if strings.Contains(l.Path, "extra") {
			t.Errorf("%s: sub-directory extra/ not ignored", l.Path)
		}
		if l.Layout != LayoutFile || len(l.Files) != 1 || l.InProgress {
			t.Errorf("%s: %+v", l.Path, l)
		}
	}
	readme := filepath.Join(root, "README.md")
	if !keys[readme] {
		t.Fatalf("README.md not listed")
	}
	st, rec := readLog(t, discoverOne(t, readme), Options{})
	if len(rec.problems) != 1 || rec.problems[0].Kind != ProblemNotEventLog || st.Events != 0 {
		t.Errorf("README.md: %d events, problems %v; want one not-event-log", st.Events, rec.problems)
	}
}

// TestDiscoverRollingLayout follows Spark's reader: start at the last
// .compact file, report index gaps, completion from appstatus only.
func TestDiscoverRollingLayout(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "eventlog_v2_app-1")
	for _, n := range []string{
		"events_1_app-1.zstd", "events_2_app-1.zstd", "events_3_app-1.zstd",
		"events_3_app-1.zstd.compact", "events_4_app-1.zstd", "events_6_app-1.zstd",
		"appstatus_app-1.inprogress", "unrelated.txt",
	} {
		writeFile(t, filepath.Join(dir, n), nil)
	}
	l := discoverOne(t, dir)
	want := []string{"events_3_app-1.zstd.compact", "events_4_app-1.zstd", "events_6_app-1.zstd"}
	if got := fileNames(l); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("files %v, want %v", got, want)
	}
	if !l.InProgress || l.Layout != LayoutRolling || l.Key != dir {
		t.Errorf("log %+v", l)
	}
	if len(l.Problems) != 1 || l.Problems[0].Kind != ProblemMissingFile || !strings.Contains(l.Problems[0].Reason, "index 5 missing") {
		t.Errorf("problems %v, want index 5 missing", l.Problems)
	}
	for _, f := range l.Files {
		if f.Codec != "zstd" {
			t.Errorf("%s: codec %q", f.Name(), f.Codec)
		}
	}

	if err := os.Rename(filepath.Join(dir, "appstatus_app-1.inprogress"), filepath.Join(dir, "appstatus_app-1")); err != nil {
		t.Fatal(err)
	}
	if l := discoverOne(t, dir); l.InProgress {
		t.Errorf("appstatus renamed but still in progress")
	}
}

// TestDiscoverAttemptsAndRename: each attempt file is its own log; a
// finished name hides its .inprogress twin; the key never has .inprogress.
func TestDiscoverAttemptsAndRename(t *testing.T) {
	dir := t.TempDir()
	data := readShared(t, "local-1430917381535_1")
	for _, n := range []string{"local-1430917381535_1", "local-1430917381535_2", "app-2.zstd.inprogress", "app-3.inprogress", "app-3", ".hidden"} {
		writeFile(t, filepath.Join(dir, n), data)
	}
	writeFile(t, filepath.Join(dir, "subdir", "x"), data)
	logs, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Log{}
	for _, l := range logs {
		got[filepath.Base(l.Key)] = l
	}
	if len(logs) != 4 {
		t.Fatalf("%d logs %v, want 4", len(logs), got)
	}
	if l := got["app-2.zstd"]; !l.InProgress || filepath.Base(l.Path) != "app-2.zstd.inprogress" || l.Files[0].Codec != "zstd" {
		t.Errorf("in-progress log %+v", l)
	}
	if l := got["app-3"]; l.InProgress || filepath.Base(l.Path) != "app-3" {
		t.Errorf("renamed log %+v", l)
	}
	for _, n := range []string{"local-1430917381535_1", "local-1430917381535_2"} {
		st, rec := readLog(t, got[n], Options{})
		if st.Lines != 5 || len(rec.problems) != 0 {
			t.Errorf("%s: %d lines, problems %v", n, st.Lines, rec.problems)
		}
	}
}

// TestDiscoverDatabricksOrder: rolled files in time order, then eventlog.
func TestDiscoverDatabricksOrder(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"eventlog", "eventlog-2021-06-15--16-00", "eventlog-2021-06-15--15-00.gz", "notes.txt"} {
		writeFile(t, filepath.Join(dir, n), nil)
	}
	l := discoverOne(t, dir)
	want := "eventlog-2021-06-15--15-00.gz eventlog-2021-06-15--16-00 eventlog"
	if got := strings.Join(fileNames(l), " "); got != want || l.Layout != LayoutDatabricks {
		t.Errorf("files %q (%s), want %q", got, l.Layout, want)
	}
	if l.Files[0].Codec != "gzip" || l.Files[2].Codec != "plain" {
		t.Errorf("codecs %+v", l.Files)
	}
}

// TestDiscoverZip: a /logs zip holding two attempt files and a rolling
// directory yields three logs, each read from inside the zip.
func TestDiscoverZip(t *testing.T) {
	rolling := "spark-rapids-tools/spark-events-qualification/eventlog_v2_local-1623876083964/"
	members := map[string][]byte{
		"local-1430917381535_1": readShared(t, "local-1430917381535_1"),
		"local-1430917381535_2": readShared(t, "local-1430917381535_2"),
		"eventlog_v2_local-1623876083964/events_1_local-1623876083964.zstd": readShared(t, "extra", rolling+"events_1_local-1623876083964.zstd"),
		"eventlog_v2_local-1623876083964/events_2_local-1623876083964.zstd": readShared(t, "extra", rolling+"events_2_local-1623876083964.zstd"),
		"eventlog_v2_local-1623876083964/appstatus_local-1623876083964":     nil,
	}
	path := filepath.Join(t.TempDir(), "eventLogs-app.zip")
	writeZip(t, path, members)

	logs, err := Discover(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 3 {
		t.Fatalf("%d logs, want 3: %+v", len(logs), logs)
	}
	lines := map[string]int64{}
	for _, l := range logs {
		st, rec := readLog(t, l, Options{})
		if len(rec.problems) != 0 || !st.Finished {
			t.Errorf("%s: problems %v, finished %v", l.Key, rec.problems, st.Finished)
		}
		lines[strings.TrimPrefix(l.Key, path+"!")] = st.Lines
	}
	// 5 + 5 lines for the attempts; 5370 + 251 for the rolling parts (README).
	want := map[string]int64{"local-1430917381535_1": 5, "local-1430917381535_2": 5, "eventlog_v2_local-1623876083964": 5621}
	for k, n := range want {
		if lines[k] != n {
			t.Errorf("%s: %d lines, want %d (all: %v)", k, lines[k], n, lines)
		}
	}
}
