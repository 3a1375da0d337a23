package sparklog

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent/eventtest"

	"github.com/sparkglance/sparkglance/internal/sparklog/codec"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// readItem is one thing a Handler got: an event with its position, or a
// problem.
type readItem struct {
	pos     Position
	ev      sparkevent.Event
	problem *Problem
}

// streamRead reads log like Read, sending what the handler gets to out
// (closed at the end) instead of keeping it, so two reads of a big log
// are compared item by item in bounded memory.
func streamRead(ctx context.Context, log Log, opts Options, out chan<- readItem, used *int64) (Stats, error) {
	defer close(out)
	send := func(it readItem) error {
		select {
		case out <- it:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	h := HandlerFuncs{
		OnEvent: func(pos Position, ev sparkevent.Event) error { return send(readItem{pos: pos, ev: ev}) },
		OnProblem: func(p Problem) {
			_ = send(readItem{problem: &p}) // a cancelled comparison drops the rest
		},
	}
	opts.ctx = ctx
	fo := NewFollower(log, h, opts)
	_, err := fo.Poll()
	if fo.linesAhead > 0 && opts.workers == 1 {
		return fo.Stats(), fmt.Errorf("%d lines decoded ahead on the sequential path", fo.linesAhead)
	}
	*used = fo.linesAhead
	return fo.Stats(), err
}

// compareReads reads log sequentially and with opts, and fails on the
// first difference in events, positions, problems or stats. It returns how
// many lines the parallel read took decoded ahead.
func compareReads(t *testing.T, log Log, opts Options) (ahead int64, st Stats) {
	t.Helper()
	seqOpts := opts
	seqOpts.workers = 1
	return compareReadsWith(t, log, seqOpts, opts, nil)
}

// compareReadsWith is compareReads with the sequential read's options
// given, and want, if set, making of each of its events the one the other
// read must give.
func compareReadsWith(t *testing.T, log Log, seqOpts, opts Options, want func(sparkevent.Event)) (ahead int64, st Stats) {
	t.Helper()
	aheads, stats := compareReadsWithAll(t, log, seqOpts, []Options{opts}, want)
	return aheads[0], stats[0]
}

// compareReadsWithAll is compareReadsWith against several reads at once,
// each with its options, all compared with one sequential read (made of
// its events by want once, for all of them).
func compareReadsWithAll(t *testing.T, log Log, seqOpts Options, opts []Options, want func(sparkevent.Event)) (aheads []int64, stats []Stats) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		st  Stats
		err error
	}
	seqCh, seqRes := make(chan readItem, 64), make(chan result, 1)
	var seqAhead int64
	go func() { st, err := streamRead(ctx, log, seqOpts, seqCh, &seqAhead); seqRes <- result{st, err} }()
	aheads, stats = make([]int64, len(opts)), make([]Stats, len(opts))
	parChs, parRes := make([]chan readItem, len(opts)), make([]chan result, len(opts))
	for i, o := range opts {
		parChs[i], parRes[i] = make(chan readItem, 64), make(chan result, 1)
		go func() { st, err := streamRead(ctx, log, o, parChs[i], &aheads[i]); parRes[i] <- result{st, err} }()
	}
	which := func(i int) string {
		if len(opts) == 1 {
			return ""
		}
		return fmt.Sprintf(" (read %d of %d, %d workers)", i+1, len(opts), opts[i].workers)
	}
	bs, boks := make([]readItem, len(opts)), make([]bool, len(opts))
	n := 0
compare:
	for {
		a, aok := <-seqCh
		ended := !aok
		for i, ch := range parChs {
			bs[i], boks[i] = <-ch
			ended = ended || !boks[i]
		}
		if ended {
			for i := range opts {
				if aok != boks[i] {
					t.Errorf("%s: sequential read ended: %v, parallel: %v, after %d items%s", log.Path, !aok, !boks[i], n, which(i))
				}
			}
			break
		}
		if want != nil && a.ev != nil {
			want(a.ev)
		}
		for i := range opts {
			if d := diffItems(a, bs[i]); d != "" {
				t.Errorf("%s: item %d differs%s: %s", log.Path, n, which(i), d)
				break compare
			}
		}
		n++
	}
	cancel()
	for range seqCh {
	}
	for _, ch := range parChs {
		for range ch {
		}
	}
	s := <-seqRes
	ps := make([]result, len(opts))
	for i := range opts {
		ps[i] = <-parRes[i]
	}
	if t.Failed() {
		return aheads, stats
	}
	for i, p := range ps {
		if fmt.Sprint(s.err) != fmt.Sprint(p.err) {
			t.Errorf("%s: errors differ%s: sequential %v, parallel %v", log.Path, which(i), s.err, p.err)
		}
		if !reflect.DeepEqual(s.st, p.st) {
			t.Errorf("%s: stats differ%s:\nsequential %+v\nparallel   %+v", log.Path, which(i), s.st, p.st)
		}
		stats[i] = p.st
	}
	return aheads, stats
}

func diffItems(a, b readItem) string {
	switch {
	case (a.problem == nil) != (b.problem == nil):
		return fmt.Sprintf("sequential %s, parallel %s", describeItem(a), describeItem(b))
	case a.problem != nil:
		if *a.problem != *b.problem {
			return fmt.Sprintf("problem %v vs %v", *a.problem, *b.problem)
		}
	case a.pos != b.pos:
		return fmt.Sprintf("position %+v vs %+v", a.pos, b.pos)
	case !reflect.DeepEqual(a.ev, b.ev):
		// DeepEqual finds NaN unequal to itself (a streaming batch's rate
		// Spark could not compute); firstDiff takes two NaNs as the same.
		if d := eventtest.FirstDiff(a.ev.EventType(), reflect.ValueOf(a.ev), reflect.ValueOf(b.ev)); d != "" {
			return fmt.Sprintf("event at %+v: %s", a.pos, d)
		}
	}
	return ""
}

func describeItem(it readItem) string {
	if it.problem != nil {
		return "problem " + it.problem.String()
	}
	return fmt.Sprintf("event %s at %+v", it.ev.EventType(), it.pos)
}

// sharedLogs lists every log in ../shared/spark-events, main set and
// extra/ (compressed, rolling, Databricks, zip), as Discover finds them.
func sharedLogs(t *testing.T) []Log {
	t.Helper()
	root := testkit.Events(t)
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p == root {
				return nil
			}
			if _, err := os.Stat(filepath.Join(p, databricksCurrent)); err == nil || isRollingDirName(d.Name()) {
				paths = append(paths, p)
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() != "README.md" {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	var logs []Log
	for _, p := range paths {
		found, err := DiscoverGiven(p)
		if err != nil {
			t.Fatalf("discover %s: %v", p, err)
		}
		logs = append(logs, found...)
	}
	if len(logs) < 45 {
		t.Fatalf("found %d shared logs; expected the main set and extra/", len(logs))
	}
	return logs
}

// bigCompressed is the stored size above which a compressed log (tens of
// MB decoded) is compared only by the e2e test: under the race detector
// each takes from half a minute to minutes.
const bigCompressed = 800_000

// isBigLog tells the logs left to the e2e test.
func isBigLog(t *testing.T, log Log) bool {
	var stored int64
	for _, f := range log.Files {
		info, err := os.Stat(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if f.Codec != codec.Plain {
			stored += info.Size()
		}
	}
	return stored > bigCompressed
}

// TestParallelReadMatchesSequential: decoding on several goroutines gives
// the same events, positions, problems and stats, in the same order, as
// decoding on one, for every real log but the biggest (see the e2e test).
func TestParallelReadMatchesSequential(t *testing.T) {
	compareSharedLogs(t, func(big bool) bool { return !big })
}

// compareSharedLogs compares the two paths on the shared logs keep
// selects. Chunks are small and of an odd size so that many lines
// straddle chunk borders.
func compareSharedLogs(t *testing.T, keep func(big bool) bool) {
	compared := 0
	for _, log := range sharedLogs(t) {
		if !keep(isBigLog(t, log)) {
			continue
		}
		compared++
		rel, _ := filepath.Rel(testkit.Events(t), log.Path)
		t.Run(rel, func(t *testing.T) {
			t.Parallel()
			opts := Options{workers: 3, chunkBytes: 100_003}
			ahead, st := compareReads(t, log, opts)
			if ahead == 0 && st.BytesOut > 3*int64(opts.chunkBytes) && !t.Failed() {
				t.Errorf("no line was decoded ahead: the parallel path was not taken")
			}
		})
	}
	if compared == 0 {
		t.Fatal("no log compared")
	}
}

// damagedFiles writes small logs with every kind of damage the line loop
// handles and returns their paths.
func damagedFiles(t *testing.T) []string {
	t.Helper()
	lines := realLines(t)
	dir := t.TempDir()
	var paths []string
	write := func(name string, data []byte) {
		p := filepath.Join(dir, name)
		writeFile(t, p, data)
		paths = append(paths, p)
	}
	// Plain: a malformed line, blank lines, a CRLF line, a last line
	// without its newline and cut short.
	mixed := append([][]byte{}, lines...)
	mixed[9] = []byte(`{"Event":"SparkListenerTaskEnd","Stage ID":0,` + "\n")
	mixed[20] = []byte("\n  \n")
	mixed[30] = append(bytes.TrimSuffix(lines[30], []byte("\n")), "\r\n"...)
	last := lines[len(lines)-1]
	mixed[len(mixed)-1] = last[:len(last)/2]
	write("app-mixed", bytes.Join(mixed, nil))
	// zstd: a damaged frame in the middle, and a file cut inside a frame.
	file, starts := zstdFrames(t, lines, 10)
	corrupt := append([]byte(nil), file...)
	for i := starts[2] + 20; i < starts[2]+60; i++ {
		corrupt[i] ^= 0x5a
	}
	write("app-corrupt.zstd", corrupt)
	write("app-cut.zstd", file[:starts[5]+40])
	// gzip: a checksum mismatch in the first of two members.
	var gz bytes.Buffer
	var member2 int
	for i, part := range [][][]byte{lines[:44], lines[44:]} {
		if i == 1 {
			member2 = gz.Len()
		}
		zw := gzip.NewWriter(&gz)
		if _, err := zw.Write(bytes.Join(part, nil)); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	gzData := gz.Bytes()
	gzData[member2-8] ^= 0xff
	write("eventlog-2021-06-15--15-00.gz", gzData)
	// Not event logs: JSON that is not Spark's, and binary data.
	write("app-notlog", []byte("{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n"+string(lines[0])))
	write("app-binary", append([]byte("{\"Event\":\"x\"}\n\x00\x01"), lines[1]...))
	return paths
}

// TestParallelReadDamagedFiles covers damage on the parallel path: corrupt
// and cut compressed data, malformed, blank, over-long and cut lines, files
// that are not logs; with chunks from 1 byte up, and a line limit that
// many lines exceed.
func TestParallelReadDamagedFiles(t *testing.T) {
	var ahead int64
	for _, f := range damagedFiles(t) {
		log := discoverOne(t, f)
		for _, chunk := range []int{1, 7, 4096} {
			for _, maxLine := range []int{0, 300} {
				t.Run(fmt.Sprintf("%s/chunk=%d/max=%d", filepath.Base(f), chunk, maxLine), func(t *testing.T) {
					n, _ := compareReads(t, log, Options{workers: 2, chunkBytes: chunk, MaxLineBytes: maxLine})
					ahead += n
				})
			}
		}
	}
	if ahead == 0 {
		t.Error("no line was decoded ahead: the parallel path was not taken")
	}
}

// TestParallelReadResumesFinishedLog: a live log read in part, then
// renamed to its final name, is finished on the parallel path from where
// the live reads stopped (mid-line here), and the whole equals one
// sequential read of the finished file.
func TestParallelReadResumesFinishedLog(t *testing.T) {
	data := bytes.Join(realLines(t), nil)
	dir := t.TempDir()
	for _, cut := range []int{1, len(data) / 3, len(data) - 5} {
		live := filepath.Join(dir, fmt.Sprintf("app-%d.inprogress", cut))
		writeFile(t, live, data[:cut])
		rec := &recorder{}
		fo := NewFollower(discoverOne(t, live), rec, Options{workers: 2, chunkBytes: 997})
		if _, err := fo.Poll(); err != nil {
			t.Fatal(err)
		}
		mustAppend(t, live, string(data[cut:]))
		final := strings.TrimSuffix(live, inProgressSuffix)
		if err := os.Rename(live, final); err != nil {
			t.Fatal(err)
		}
		if _, err := fo.Poll(); err != nil {
			t.Fatal(err)
		}
		if !fo.Finished() {
			t.Fatalf("cut %d: not finished after the final poll", cut)
		}
		_, want := readLog(t, discoverOne(t, final), Options{workers: 1})
		// Events read before the rename name the live file.
		for i := range rec.positions {
			rec.positions[i].File = final
		}
		if !reflect.DeepEqual(rec.events, want.events) || !reflect.DeepEqual(rec.positions, want.positions) ||
			!reflect.DeepEqual(rec.problems, want.problems) {
			t.Errorf("cut %d: %d events, %d problems; one read: %d events, %d problems",
				cut, len(rec.events), len(rec.problems), len(want.events), len(want.problems))
		}
	}
}

// FuzzParallelRead: whatever a file holds, reading it with lines decoded
// ahead in chunks of any size gives what reading it on one goroutine does.
func FuzzParallelRead(f *testing.F) {
	lines := realLines(f)
	f.Add(bytes.Join(lines[:12], nil), uint16(7), uint16(0))
	f.Add(bytes.Join(lines[:5], nil), uint16(1), uint16(200))
	f.Add([]byte("{\"Event\":\"x\"}\n\n\r\n{\"Event\":1}\n{\"Event\":\"SparkListenerJobEnd\",\"Job ID\":3}"), uint16(3), uint16(5))
	f.Add([]byte("garbage\n{}\n[]\n"+string(lines[0])), uint16(64), uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, chunk, maxLine uint16) {
		path := filepath.Join(t.TempDir(), "app-1")
		writeFile(t, path, data)
		log := Log{Path: path, Layout: LayoutFile, Files: []LogFile{{Path: path, Codec: codec.Plain}}}
		compareReads(t, log, Options{workers: 2, chunkBytes: 1 + int(chunk%2048), MaxLineBytes: int(maxLine % 1024)})
	})
}

// TestParallelReadHandsLinesInPlace: on the parallel path the line loop
// takes a chunk's complete lines where the chunk holds them; only a line
// straddling two chunks goes through the line buffer.
func TestParallelReadHandsLinesInPlace(t *testing.T) {
	lines := realLines(t)
	var data []byte
	for range 50 { // 4,400 lines, ~1.5 MB: many chunks of 64 KiB
		data = append(data, bytes.Join(lines, nil)...)
	}
	path := filepath.Join(t.TempDir(), "app-1")
	writeFile(t, path, data)
	log := Log{Path: path, Layout: LayoutFile, Files: []LogFile{{Path: path, Codec: codec.Plain}}}
	for _, workers := range []int{1, 2} {
		var events int64
		h := HandlerFuncs{OnEvent: func(Position, sparkevent.Event) error { events++; return nil }}
		fo := NewFollower(log, h, Options{workers: workers, chunkBytes: 64 << 10})
		if _, err := fo.Poll(); err != nil {
			t.Fatal(err)
		}
		if events != int64(50*len(lines)) {
			t.Fatalf("workers %d: %d events, want %d", workers, events, 50*len(lines))
		}
		if workers == 1 {
			if fo.linesInPlace != 0 {
				t.Errorf("one goroutine: %d lines handled in place", fo.linesInPlace)
			}
			continue
		}
		chunks := int64(len(data)/(64<<10) + 1)
		if fo.linesInPlace < events-2*chunks-int64(len(lines)) || fo.linesInPlace > fo.linesAhead {
			t.Errorf("%d of %d lines handled in place (%d decoded ahead, %d chunks): want all but about one per chunk",
				fo.linesInPlace, events, fo.linesAhead, chunks)
		}
	}
}
