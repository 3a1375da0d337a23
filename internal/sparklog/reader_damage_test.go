package sparklog

import (
	"bytes"
	"compress/gzip"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// realLines returns the 88 lines of a real Spark 1.2 log, newline included.
func realLines(t testing.TB) [][]byte {
	t.Helper()
	data := readShared(t, "local-1422981759269")
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	if len(lines) != 88 {
		t.Fatalf("%d lines, README says 88", len(lines))
	}
	return lines
}

// zstdFrames compresses each group of `per` lines as its own frame, as Spark
// does at each flush, and returns the file and each frame's start offset.
func zstdFrames(t *testing.T, lines [][]byte, per int) ([]byte, []int) {
	t.Helper()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	var file []byte
	var starts []int
	for i := 0; i < len(lines); i += per {
		starts = append(starts, len(file))
		file = enc.EncodeAll(bytes.Join(lines[i:min(i+per, len(lines))], nil), file)
	}
	return file, starts
}

// eventTypes lists the "Event" of each line, for order checks.
func eventTypes(t *testing.T, lines [][]byte) []string {
	t.Helper()
	var out []string
	for _, l := range lines {
		ev, err := sparkevent.DecodeLine(bytes.TrimSpace(l))
		if err != nil {
			t.Fatalf("real line does not decode: %v", err)
		}
		out = append(out, ev.EventType())
	}
	return out
}

func recordedTypes(rec *recorder) []string {
	var out []string
	for _, ev := range rec.events {
		out = append(out, ev.EventType())
	}
	return out
}

func requireSameTypes(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("got %d events, want %d, or in another order", len(got), len(want))
	}
}

func readPath(t *testing.T, path string, opts Options) (Stats, *recorder) {
	t.Helper()
	return readLog(t, discoverOne(t, path), opts)
}

func TestMalformedLineInTheMiddle(t *testing.T) {
	lines := realLines(t)
	broken := append([][]byte{}, lines...)
	broken[9] = []byte(`{"Event":"SparkListenerTaskEnd","Stage ID":0,` + "\n")
	path := filepath.Join(t.TempDir(), "app-1")
	writeFile(t, path, bytes.Join(broken, nil))

	st, rec := readPath(t, path, Options{})
	if len(rec.problems) != 1 {
		t.Fatalf("problems %v, want 1", rec.problems)
	}
	p := rec.problems[0]
	wantOff := int64(len(bytes.Join(lines[:9], nil)))
	if p.Kind != ProblemMalformedJSON || p.Line != 10 || p.Offset != wantOff || p.File != path {
		t.Errorf("problem %+v, want malformed-json at line 10 offset %d", p, wantOff)
	}
	requireSameTypes(t, recordedTypes(rec), append(eventTypes(t, lines[:9]), eventTypes(t, lines[10:])...))
	if pos := rec.positions[9]; pos.Line != 11 || pos.Offset != wantOff+int64(len(broken[9])) {
		t.Errorf("event after the damage at %+v, want line 11", pos)
	}
	if st.Lines != 88 || st.Events != 87 {
		t.Errorf("stats %+v", st)
	}
}

func TestCorruptZstdFrameSkipped(t *testing.T) {
	lines := realLines(t)
	file, starts := zstdFrames(t, lines, 10)
	// Damage the middle of frame 3 (lines 21-30).
	for i := starts[2] + 20; i < starts[2]+60; i++ {
		file[i] ^= 0x5a
	}
	path := filepath.Join(t.TempDir(), "app-1.zstd")
	writeFile(t, path, file)

	st, rec := readPath(t, path, Options{})
	corrupt := rec.problemsOf(ProblemCorruptData)
	if len(corrupt) != 1 || len(rec.problems) != 1 {
		t.Fatalf("problems %v, want one corrupt-data", rec.problems)
	}
	if off := corrupt[0].Offset; off < int64(starts[2]) || off >= int64(starts[3]) {
		t.Errorf("damage reported at compressed offset %d, want within frame 3 [%d, %d)", off, starts[2], starts[3])
	}
	if corrupt[0].Line != 21 {
		t.Errorf("damage reported before line %d, want 21", corrupt[0].Line)
	}
	requireSameTypes(t, recordedTypes(rec), append(eventTypes(t, lines[:20]), eventTypes(t, lines[30:])...))
	if st.Events != 78 || !st.Finished {
		t.Errorf("stats %+v", st)
	}
}

func TestGzipChecksumMismatch(t *testing.T) {
	lines := realLines(t)
	var file bytes.Buffer
	var member2 int
	for i, part := range [][][]byte{lines[:44], lines[44:]} {
		if i == 1 {
			member2 = file.Len()
		}
		zw := gzip.NewWriter(&file)
		zw.Write(bytes.Join(part, nil))
		zw.Close()
	}
	data := file.Bytes()
	data[member2-8] ^= 0xff // CRC-32 of member 1
	path := filepath.Join(t.TempDir(), "eventlog-2021-06-15--15-00.gz")
	writeFile(t, path, data)

	st, rec := readPath(t, path, Options{})
	corrupt := rec.problemsOf(ProblemCorruptData)
	if len(corrupt) != 1 || len(rec.problems) != 1 {
		t.Fatalf("problems %v, want one corrupt-data", rec.problems)
	}
	if corrupt[0].Offset >= int64(member2) {
		t.Errorf("damage reported at compressed offset %d, want inside member 1 [0, %d)", corrupt[0].Offset, member2)
	}
	if !strings.Contains(strings.ToLower(corrupt[0].Reason), "checksum") {
		t.Errorf("reason %q does not name the checksum", corrupt[0].Reason)
	}
	// Member 2 is intact and must be read whatever happened to member 1.
	got := recordedTypes(rec)
	want2 := eventTypes(t, lines[44:])
	if len(got) < len(want2) || strings.Join(got[len(got)-len(want2):], ",") != strings.Join(want2, ",") {
		t.Errorf("the 44 events after the damage were not all delivered (%d events)", len(got))
	}
	t.Logf("%d events, problem %v", st.Events, corrupt[0])
}

func TestCodecNameProblems(t *testing.T) {
	lines := realLines(t)
	plain := bytes.Join(lines, nil)
	zstdFile, _ := zstdFrames(t, lines, 30)
	junk := make([]byte, 4096)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range junk {
		junk[i] = byte(rng.Uint32())
	}
	junk[0] = 0x01 // no magic by chance
	for _, tc := range []struct {
		name   string
		data   []byte
		kind   ProblemKind
		events int64
	}{
		{"app-1.bz2", plain, ProblemUnknownCodec, 88},     // unknown suffix, content is plain
		{"app-1.lz4", zstdFile, ProblemCodecMismatch, 88}, // name lies, magic wins
		{"app-1.zstd", junk, ProblemCodecMismatch, 0},     // nothing to read it with
		{"app-1", junk, ProblemNotEventLog, 0},            // binary junk
		{"app-1.snappy", nil, ProblemEmptyFile, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.name)
			writeFile(t, path, tc.data)
			st, rec := readPath(t, path, Options{})
			if len(rec.problems) != 1 || rec.problems[0].Kind != tc.kind || rec.problems[0].File != path {
				t.Errorf("problems %v, want one %s", rec.problems, tc.kind)
			}
			if st.Events != tc.events || !st.Finished {
				t.Errorf("%d events (finished %v), want %d", st.Events, st.Finished, tc.events)
			}
		})
	}
}

// TestNotAnEventLog: a file that is not an event log yields one problem.
// Text is rejected from its first bytes; JSON lines that are not Spark
// events after a few lines, instead of a problem per line.
func TestNotAnEventLog(t *testing.T) {
	var text, jsonLines bytes.Buffer
	for i := range 1000 {
		text.WriteString("just some text, line " + strings.Repeat("x", i%7) + "\n")
		jsonLines.WriteString(`{"level":"info","msg":"not a Spark event"}` + "\n")
	}
	for _, tc := range []struct {
		name  string
		data  []byte
		lines int64
	}{
		{"notes", text.Bytes(), 0},
		{"other.json-lines", jsonLines.Bytes(), notLogAfter},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "notes")
			writeFile(t, path, tc.data)
			st, rec := readPath(t, path, Options{})
			if len(rec.problems) != 1 || rec.problems[0].Kind != ProblemNotEventLog {
				t.Fatalf("problems %v, want one not-event-log", rec.problems)
			}
			if tc.lines > 0 && rec.problems[0].Line != 1 {
				t.Errorf("problem %+v, want it at line 1", rec.problems[0])
			}
			if st.Lines != tc.lines || st.Events != 0 || !st.Finished {
				t.Errorf("read %d lines, want to stop after %d", st.Lines, tc.lines)
			}
		})
	}
}

// TestLineTooLong streams a 100 MB line (zstd, so the file is small) between
// real events: reported once, skipped with bounded memory, nothing else lost.
func TestLineTooLong(t *testing.T) {
	lines := realLines(t)
	path := filepath.Join(t.TempDir(), "app-1.zstd")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		t.Fatal(err)
	}
	write := func(b []byte) {
		if _, err := enc.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range lines[:5] {
		write(l)
	}
	const longLen = 100 << 20
	write([]byte(`{"Event":"Padding","pad":"`))
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	for range longLen / len(chunk) {
		write(chunk)
	}
	write([]byte("\"}\n"))
	for _, l := range lines[5:] {
		write(l)
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	for _, tc := range []struct {
		maxLine  int
		maxAlloc uint64
	}{
		{0, 400 << 20},      // default 64 MiB buffer: grows once, never to 100 MB
		{1 << 20, 64 << 20}, // a small bound keeps memory small
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		st, rec := readPath(t, path, Options{MaxLineBytes: tc.maxLine})
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > tc.maxAlloc {
			t.Errorf("max line %d: allocated %d MiB reading a 100 MiB line", tc.maxLine, alloc>>20)
		}
		wantOff := int64(len(bytes.Join(lines[:5], nil)))
		if len(rec.problems) != 1 || rec.problems[0].Kind != ProblemLineTooLong || rec.problems[0].Line != 6 || rec.problems[0].Offset != wantOff {
			t.Errorf("problems %v, want one line-too-long at line 6 offset %d", rec.problems, wantOff)
		}
		requireSameTypes(t, recordedTypes(rec), eventTypes(t, lines))
		if pos := rec.positions[5]; pos.Line != 7 {
			t.Errorf("event after the long line at line %d, want 7", pos.Line)
		}
		if st.Lines != 88 {
			t.Errorf("%d lines, want 88 (the long one is counted as skipped, not as a line)", st.Lines)
		}
	}
}

// TestTruncatedTail: a cut last line is damage in a finished file and
// merely "not written yet" in a live one.
func TestTruncatedTail(t *testing.T) {
	lines := realLines(t)
	cut := len(lines[87]) / 2
	plain := append(bytes.Join(lines[:87], nil), lines[87][:cut]...)
	zstdFile, starts := zstdFrames(t, lines, 10)
	zstdCut := zstdFile[:starts[8]+(len(zstdFile)-starts[8])/2] // inside the last frame

	for _, tc := range []struct {
		name    string
		data    []byte
		kind    ProblemKind
		events  int
		line    int64
		offset  int64
		pending int64
	}{
		{"app-1", plain, ProblemTruncatedLine, 87, 88, int64(len(plain) - cut), 0},
		{"app-1.inprogress", plain, "", 87, 0, 0, int64(cut)},
		{"app-1.zstd", zstdCut, ProblemTruncatedData, 80, 81, int64(starts[8]), 0},
		{"app-1.zstd.inprogress", zstdCut, "", 80, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.name)
			writeFile(t, path, tc.data)
			st, rec := readPath(t, path, Options{})
			requireSameTypes(t, recordedTypes(rec), eventTypes(t, lines[:tc.events]))
			if tc.kind == "" {
				if len(rec.problems) != 0 || st.Finished || st.Pending != tc.pending {
					t.Errorf("live: problems %v, finished %v, pending %d (want %d)", rec.problems, st.Finished, st.Pending, tc.pending)
				}
				return
			}
			if len(rec.problems) != 1 {
				t.Fatalf("problems %v, want one %s", rec.problems, tc.kind)
			}
			if p := rec.problems[0]; p.Kind != tc.kind || p.Line != tc.line || p.Offset != tc.offset {
				t.Errorf("problem %+v, want %s at line %d offset %d", p, tc.kind, tc.line, tc.offset)
			}
			if !st.Finished {
				t.Errorf("finished log not finished")
			}
		})
	}
}

// TestRollingGapReported: a missing events file is reported before any
// event, and both remaining files are read.
func TestRollingGapReported(t *testing.T) {
	lines := realLines(t)
	dir := filepath.Join(t.TempDir(), "eventlog_v2_local-1422981759269")
	writeFile(t, filepath.Join(dir, "events_1_local-1422981759269"), bytes.Join(lines[:40], nil))
	writeFile(t, filepath.Join(dir, "events_3_local-1422981759269"), bytes.Join(lines[40:], nil))
	writeFile(t, filepath.Join(dir, "appstatus_local-1422981759269"), nil)
	st, rec := readPath(t, dir, Options{})
	if len(rec.problems) != 1 || rec.problems[0].Kind != ProblemMissingFile || !strings.Contains(rec.problems[0].Reason, "index 2 missing") {
		t.Errorf("problems %v, want index 2 missing", rec.problems)
	}
	requireSameTypes(t, recordedTypes(rec), eventTypes(t, lines))
	if st.Files != 2 || !st.Finished || rec.positions[40].Line != 1 {
		t.Errorf("stats %+v, position %+v", st, rec.positions[40])
	}
}
