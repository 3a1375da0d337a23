package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// The commands that read a directory once must write the same bytes
// whatever the number of logs read at once and of goroutines decoding a
// log: stdout, stderr, exit status and every file written. One
// differential check, checkParallelDifferential, runs each command of
// differentialCommands the ways of parallelRuns and compares them with the
// first. Over directories made of real logs by a seed
// (FuzzParallelDifferential) it runs the commands in-process, so that the
// race detector watches the reading pipeline; over the whole real corpus
// (TestParallelDifferentialRealLogs) it runs the built binary, as the
// corpus' big logs take minutes under the race detector.

// parallelRuns are the ways a directory is read. The first is the
// reference: one log after the other, each decoded on one goroutine
// (GOMAXPROCS=1 leaves the parallel line decoder out).
var parallelRuns = []struct {
	name  string
	procs int // GOMAXPROCS during the run
	flags []string
}{
	{"--parallel 1, GOMAXPROCS=1", 1, []string{"--parallel", "1"}},
	{"--parallel 2, GOMAXPROCS=2", 2, []string{"--parallel", "2"}},
	{"default, GOMAXPROCS=4", 4, nil}, // four logs at once, big ones decoded on four goroutines
}

// differentialCommands are the commands compared, with their arguments
// before the inputs; OUT stands for the run's output directory. want is
// what the reference run must have written somewhere (stdout or a file),
// so that two runs that both failed do not pass for two equal outputs;
// backfill may fail instead: it stops at the first log it cannot read.
var differentialCommands = []struct {
	name    string
	args    []string
	want    string
	mayFail bool
}{
	{"analyze", []string{"--json"}, `"appId"`, false},
	{"analyze", nil, "log: ", false},
	{"report", []string{"-o", "OUT/report"}, "<html", false},
	{"backfill", []string{"--include-unfinished", "-o", "OUT/backfill.om"}, "spark_app_info{", true},
}

// commandRun is what one run of a command gave.
type commandRun struct {
	stdout, stderr string
	status         int
	files          map[string][]byte // what it wrote under OUT, by relative path
}

// checkParallelDifferential runs every command of differentialCommands on
// inputs in every way of parallelRuns and reports each difference from the
// reference run.
func checkParallelDifferential(t *testing.T, run commandRunner, inputs []string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out") // the same path for every run: messages name it
	for _, c := range differentialCommands {
		name := strings.Join(append([]string{c.name}, c.args...), " ")
		var ref commandRun
		for i, way := range parallelRuns {
			got := runOnce(t, run, out, way.procs, c.name, slices.Concat(way.flags, c.args), inputs)
			if i == 0 {
				ref = got
				wrote := strings.Contains(ref.stdout, c.want) || slices.ContainsFunc(slices.Collect(maps.Values(ref.files)), func(b []byte) bool { return bytes.Contains(b, []byte(c.want)) })
				if !wrote && !(c.mayFail && ref.status != exitOK) {
					t.Fatalf("%s (%s) wrote no %q; exit %d, stderr:\n%s", name, way.name, c.want, ref.status, ref.stderr)
				}
				continue
			}
			where := fmt.Sprintf("%s: %s vs %s", name, way.name, parallelRuns[0].name)
			if d := firstDifference(ref.stdout, got.stdout); d != "" {
				t.Errorf("%s: stdout differs at %s", where, d)
			}
			if d := firstDifference(ref.stderr, got.stderr); d != "" {
				t.Errorf("%s: stderr differs at %s", where, d)
			}
			if got.status != ref.status {
				t.Errorf("%s: exit status %d vs %d", where, got.status, ref.status)
			}
			for _, f := range slices.Sorted(maps.Keys(ref.files)) {
				b, ok := got.files[f]
				if !ok {
					t.Errorf("%s: %s not written", where, f)
				} else if d := firstDifference(string(ref.files[f]), string(b)); d != "" {
					t.Errorf("%s: %s differs at %s", where, f, d)
				}
			}
			for f := range got.files {
				if _, ok := ref.files[f]; !ok {
					t.Errorf("%s: %s written, not by the reference", where, f)
				}
			}
		}
	}
}

// A commandRunner runs `sparkglance NAME ARGS…` with GOMAXPROCS procs.
type commandRunner func(t *testing.T, procs int, name string, args ...string) (stdout, stderr string, status int)

// inProcess runs the command in the test's process (runCommand).
func inProcess(t *testing.T, procs int, name string, args ...string) (string, string, int) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	return runCommand(t, name, args...)
}

// builtBinary runs the command built without the race detector.
func builtBinary(t *testing.T, procs int, name string, args ...string) (string, string, int) {
	t.Helper()
	return runBinaryEnv(t, []string{"GOMAXPROCS=" + strconv.Itoa(procs)}, append([]string{name}, args...)...)
}

// runOnce runs a command into a fresh output directory out.
func runOnce(t *testing.T, run commandRunner, out string, procs int, name string, args, inputs []string) commandRun {
	t.Helper()
	if err := os.RemoveAll(out); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	args = slices.Clone(args)
	for i, a := range args {
		args[i] = strings.Replace(a, "OUT", out, 1)
	}
	var r commandRun
	r.stdout, r.stderr, r.status = run(t, procs, name, append(args, inputs...)...)
	r.files = readTree(t, out)
	return r
}

// firstDifference is "" for equal texts, else where they part: the line
// and both versions of it (cut short).
func firstDifference(want, got string) string {
	if want == got {
		return ""
	}
	w, g := strings.SplitAfter(want, "\n"), strings.SplitAfter(got, "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	line := func(l []string) string {
		if i >= len(l) {
			return "(end)"
		}
		return fmt.Sprintf("%.300q", l[i])
	}
	return fmt.Sprintf("line %d (of %d vs %d bytes):\n  reference: %s\n  this run:  %s", i+1, len(want), len(got), line(w), line(g))
}

// Every log of the real corpus, every directory under spark-events given
// at once, through the built binary (extra/ with its compressed, rolling, Databricks, broken and
// repeated logs, nds_q72 and nds_q88; directories that hold only
// directories are unreadable inputs, README.md a stray file).
func TestParallelDifferentialRealLogs(t *testing.T) {
	root := testkit.Events(t)
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 10 {
		t.Fatalf("%d directories under %s; expected the main set and extra/", len(dirs), root)
	}
	checkParallelDifferential(t, builtBinary, dirs)
}

// A directory of real logs made from a seed: copies with new application
// ids, copies sharing one, truncated, damaged, compressed, empty,
// unreadable, a stray file, a nested directory.
func FuzzParallelDifferential(f *testing.F) {
	for _, seed := range []uint64{1, 7, 42} {
		f.Add(seed, uint8(5))
	}
	f.Fuzz(func(t *testing.T, seed uint64, size uint8) {
		checkParallelDifferential(t, inProcess, fuzzedLogDir(t, seed, int(size%12)+2))
	})
}

// fuzzSources are the real logs fuzzed directories are made of: small
// ones (the directory is read 12 times under the race detector), plain
// JSON lines unless compressed is set (copied as they are).
var fuzzSources = []struct {
	path       []string
	compressed bool
}{
	{[]string{"local-1426533911241"}, false},
	{[]string{"local-1422981759269"}, false},
	{[]string{"local-1430917381535_1"}, false},
	{[]string{"application_1578436911597_0052"}, false},
	{[]string{"application_1628109047826_1317105"}, false},
	{[]string{"app-20180109111548-0000"}, false},
	{[]string{"application_1553914137147_0018"}, false},
	{[]string{"extra", "dr-elephant", "test", "resources", "spark_event_logs", "event_log_1"}, false},
	{[]string{"extra", "sparklens", "src", "test", "event-history-test-files", "local-1532512550423"}, false},
	{[]string{"extra", "spark-rapids-tools", "user_tools", "tests", "spark_rapids_tools_e2e", "resources", "event_logs", "streaming_eventlog.zstd"}, true},
	{[]string{"extra", "spark-rapids-tools", "spark-events-qualification", "aqeshuffle_eventlog.zstd"}, true},
	{[]string{"extra", "spark-rapids-tools", "spark-events-qualification", "multiple_attempts", "attempt_1_eventlog.zstd"}, true},
}

// appIDField is the App ID member of an ApplicationStart line.
var appIDField = regexp.MustCompile(`"App ID":"[^"]*"`)

// fuzzedLogDir writes a directory of n entries made from real logs as the
// seed decides, and returns the inputs to give the commands: the
// directory, sometimes its nested directory and one of its logs again.
func fuzzedLogDir(t *testing.T, seed uint64, n int) []string {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	root := t.TempDir()
	dir, nested := filepath.Join(root, "logs"), filepath.Join(root, "logs", "nested")
	if err := os.MkdirAll(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(dir, name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	source := func(compressed bool) []byte {
		for {
			s := fuzzSources[r.IntN(len(fuzzSources))]
			if s.compressed != compressed {
				continue
			}
			data, err := os.ReadFile(testkit.Events(t, s.path...))
			if err != nil {
				t.Fatal(err)
			}
			return data
		}
	}
	var ids, logs []string
	taken := map[string]bool{}
	// Each entry's application id is its own, or one taken before (two
	// logs of one attempt).
	newID := func(i int) string {
		if len(ids) > 0 && r.IntN(6) == 0 {
			return ids[r.IntN(len(ids))]
		}
		id := fmt.Sprintf("app-2026%02d%02d%06d-%04d", 1+seed%12, 1+i%28, seed%1_000_000, i)
		ids = append(ids, id)
		return id
	}
	// The first entry is an intact log, so that every command writes something.
	for i := range n {
		kind := r.IntN(12)
		if i == 0 {
			kind = 0
		}
		compressed := kind == 11
		data := source(compressed)
		id := newID(i)
		if !compressed {
			data = withAppID(data, id)
		}
		name := id
		if taken[name] { // a second log of the attempt
			name = fmt.Sprintf("%s_%d", id, i)
		}
		taken[name] = true
		ext := ""
		if compressed {
			ext = ".zstd"
		}
		switch kind {
		case 0, 1, 2: // intact
		case 3: // cut anywhere
			data = data[:r.IntN(len(data)+1)]
		case 4: // damaged bytes
			for range 1 + r.IntN(4) {
				data[r.IntN(len(data))] = byte(r.IntN(256))
			}
		case 5: // compressed here, sometimes cut
			if r.IntN(2) == 0 {
				data, ext = zstdBytes(t, data), ".zstd"
			} else {
				data, ext = gzipBytes(t, data), ".gz"
			}
			if r.IntN(3) == 0 {
				data = data[:r.IntN(len(data)+1)]
			}
		case 6: // damaged on more lines than a document lists
			lines := strings.SplitAfter(string(data), "\n")
			at := r.IntN(len(lines))
			lines[at] = strings.Repeat("not json\n", 1001+r.IntN(50)) + lines[at]
			data = []byte(strings.Join(lines, ""))
		case 7: // in the nested directory, not listed with the others
			logs = append(logs, write(nested, name+ext, data))
			continue
		case 8: // empty
			data = nil
		case 9: // unreadable: a link to nothing (root reads any file)
			if err := os.Symlink(filepath.Join(root, "missing"), filepath.Join(dir, name+ext)); err != nil {
				t.Fatal(err)
			}
			continue
		case 10: // a stray file beside the logs
			name, ext = fmt.Sprintf("notes-%d", i), ".txt"
			data = []byte("not a log\n")
		case 11: // a compressed real log as it is
		}
		logs = append(logs, write(dir, name+ext, data))
	}
	inputs := []string{dir}
	if r.IntN(2) == 0 {
		inputs = append(inputs, nested)
	}
	if len(logs) > 0 && r.IntN(2) == 0 {
		inputs = append(inputs, logs[r.IntN(len(logs))])
	}
	return inputs
}

// withAppID is a plain log with the App ID of its ApplicationStart set to
// id.
func withAppID(log []byte, id string) []byte {
	lines := bytes.SplitAfter(log, []byte("\n"))
	for i, l := range lines {
		if bytes.Contains(l, []byte(`"Event":"SparkListenerApplicationStart"`)) {
			lines[i] = appIDField.ReplaceAll(l, []byte(`"App ID":"`+id+`"`))
			break
		}
	}
	return bytes.Join(lines, nil)
}

func zstdBytes(t *testing.T, data []byte) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(data, nil)
}

func gzipBytes(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
