package sparklog

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// readmeRow is one row of a table in spark-events/README.md: the log's
// path relative to spark-events/ and its cells by column header.
type readmeRow struct {
	path  string
	cells map[string]string
}

// parseReadmeTables returns the rows of every table whose first column
// names a log ("file" for the main set, "copied as" for extra/).
func parseReadmeTables(t *testing.T, readme string) []readmeRow {
	t.Helper()
	data, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	var rows []readmeRow
	var header []string
	prefix := ""
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "|") {
			header = nil
			continue
		}
		cells := splitRow(line)
		switch {
		case header == nil:
			header = cells
			switch header[0] {
			case "file":
				prefix = ""
			case "copied as":
				prefix = "extra/"
			default:
				prefix = "-" // not a table of logs
			}
		case strings.HasPrefix(cells[0], "---"), prefix == "-":
		default:
			if len(cells) != len(header) {
				t.Fatalf("README row has %d cells, header %d: %s", len(cells), len(header), line)
			}
			r := readmeRow{path: prefix + strings.Trim(cells[0], "`"), cells: map[string]string{}}
			for i, h := range header {
				r.cells[h] = cells[i]
			}
			rows = append(rows, r)
		}
	}
	return rows
}

func splitRow(line string) []string {
	parts := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// expectation sums the README counts of the files that make up one log.
type expectation struct {
	rows   []readmeRow
	counts map[string]int64 // column → sum
	others map[string]int64 // "other event types" short name → count
}

// countColumns are the README columns checked against what Read counted:
// "lines" against Stats.Lines, the others against Stats.ByType.
var countColumns = map[string]string{
	"lines":             "",
	"TaskEnd":           sparkevent.TypeTaskEnd,
	"StageCompleted":    sparkevent.TypeStageCompleted,
	"JobEnd":            sparkevent.TypeJobEnd,
	"ExecutorAdded":     sparkevent.TypeExecutorAdded,
	"BlockManagerAdded": sparkevent.TypeBlockManagerAdded,
	"SQLExecutionStart": sparkevent.TypeSQLExecutionStart,
}

func (e *expectation) add(t *testing.T, r readmeRow) {
	t.Helper()
	e.rows = append(e.rows, r)
	for col := range countColumns {
		cell, ok := r.cells[col]
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(cell, 10, 64)
		if err != nil {
			t.Fatalf("README %s: column %s = %q is not a count", r.path, col, cell)
		}
		e.counts[col] += n
	}
	for _, col := range []string{"bytes", "uncompr.", "bad lines"} {
		if n, err := strconv.ParseInt(r.cells[col], 10, 64); err == nil {
			e.counts[col] += n
		}
	}
	if col, ok := r.cells["other event types"]; ok && col != "—" {
		for _, item := range strings.Split(col, ", ") {
			name, num, found := strings.Cut(item, "×")
			n, err := strconv.ParseInt(num, 10, 64)
			if !found || err != nil {
				t.Fatalf("README %s: other event type %q is not Name×N", r.path, item)
			}
			e.others[name] += n
		}
	}
}

// countType counts events whose type is name or ends with "."+name (the
// README shortens fully qualified class names).
func countType(byType map[string]int64, name string) int64 {
	var n int64
	for typ, c := range byType {
		if typ == name || strings.HasSuffix(typ, "."+name) {
			n += c
		}
	}
	return n
}

// TestSharedLogsMatchREADME reads every shared log and checks it against
// the counts the README computed independently with Python.
func TestSharedLogsMatchREADME(t *testing.T) {
	root := testkit.Events(t)
	rows := parseReadmeTables(t, filepath.Join(root, "README.md"))
	if len(rows) < 18+30 {
		t.Fatalf("parsed %d README rows; the tables were not recognised", len(rows))
	}

	// One log per top-level file, per extra/ file, and per application
	// directory (rolling or Databricks) under extra/.
	logPaths := map[string]bool{}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() && e.Name() != "README.md" {
			logPaths[e.Name()] = true
		}
	}
	err = filepath.WalkDir(filepath.Join(root, "extra"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if _, err := os.Stat(filepath.Join(p, databricksCurrent)); err == nil || isRollingDirName(d.Name()) {
				logPaths[rel] = true
				return filepath.SkipDir
			}
			return nil
		}
		logPaths[rel] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	want := map[string]*expectation{}
	for _, r := range rows {
		owner := r.path
		for !logPaths[owner] && owner != "." {
			owner = filepath.Dir(owner)
		}
		if owner == "." {
			t.Errorf("README row %s matches no log found on disk", r.path)
			continue
		}
		if r.cells["lines"] == "—" {
			continue // the appstatus marker, the zip (checked below)
		}
		if want[owner] == nil {
			want[owner] = &expectation{counts: map[string]int64{}, others: map[string]int64{}}
		}
		want[owner].add(t, r)
	}
	const zipLog = "extra/sparklint/src/test/resources/history_source/eventLogs-application_1489705648216_1600.zip"
	want[zipLog] = &expectation{counts: map[string]int64{"lines": 289, "TaskEnd": 116}}

	paths := make([]string, 0, len(logPaths))
	for p := range logPaths {
		paths = append(paths, p)
		if want[p] == nil {
			t.Errorf("log %s has no README row", p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		exp := want[p]
		if exp == nil {
			continue
		}
		t.Run(p, func(t *testing.T) {
			t.Parallel()
			checkAgainstREADME(t, filepath.Join(root, p), exp)
		})
	}
}

func checkAgainstREADME(t *testing.T, path string, exp *expectation) {
	log := discoverOne(t, path)
	st, rec := readLog(t, log, Options{})
	if !st.Finished {
		t.Errorf("not finished after reading: %+v", st)
	}
	for col, typ := range countColumns {
		want, ok := exp.counts[col]
		if !ok {
			continue
		}
		got := st.Lines
		if typ != "" {
			got = st.ByType[typ]
		}
		if got != want {
			t.Errorf("%s: read %d, README says %d", col, got, want)
		}
	}
	for name, want := range exp.others {
		if got := countType(st.ByType, name); got != want {
			t.Errorf("%s: read %d, README says %d", name, got, want)
		}
	}
	if want, ok := exp.counts["bytes"]; ok && st.BytesIn != want {
		t.Errorf("bytes in: read %d, README says %d", st.BytesIn, want)
	}
	if want, ok := exp.counts["uncompr."]; ok && st.BytesOut != want {
		t.Errorf("bytes out: read %d, README says %d", st.BytesOut, want)
	}
	if bad := exp.counts["bad lines"]; int64(len(rec.problems)) != bad || st.Problems != bad {
		t.Errorf("%d problems (stats %d), README says %d bad lines: %v", len(rec.problems), st.Problems, bad, rec.problems)
	}
	if st.Events+exp.counts["bad lines"] != st.Lines {
		t.Errorf("events %d + bad lines %d != lines %d", st.Events, exp.counts["bad lines"], st.Lines)
	}
	if strings.HasSuffix(path, "malformed_json_eventlog.zstd") {
		// Line 4 (the EnvironmentUpdate with a stray '_'), found by hand
		// with zstd -dc | python3 json.loads per line.
		if len(rec.problems) == 1 {
			p := rec.problems[0]
			if p.Kind != ProblemMalformedJSON || p.Line != 4 || p.File != log.Files[0].Path {
				t.Errorf("malformed log problem = %+v, want malformed-json at line 4", p)
			}
		}
		if st.ByType[sparkevent.TypeEnvironmentUpdate] != 0 {
			t.Errorf("the broken EnvironmentUpdate was counted")
		}
	}
}
