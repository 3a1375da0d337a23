package appdoc

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// ReadAll tells apart, in the order of the inputs whatever the number of
// workers: an input that cannot be listed, a directory without logs, a
// README beside logs (named, not counted), an empty log (unreadable), a
// copy of an earlier log (read, with a duplicate-app problem); and a Sink
// gets the documents in the same order ReadAll would return them.
func TestReadAllSortsOutInputs(t *testing.T) {
	data, err := os.ReadFile(testkit.Events(t, "local-1426533911241"))
	if err != nil {
		t.Fatal(err)
	}
	dir, empty := t.TempDir(), t.TempDir()
	files := map[string][]byte{"local-1426533911241": data, "local-1426533911241-copy": data, "README.txt": []byte("logs\n"), "local-0": nil}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	missing := filepath.Join(dir, "missing")
	inputs := []string{missing, dir, empty}
	want := []string{ // the inputs that cannot be listed first, as they are listed before any log is read
		"stat " + missing + ": no such file or directory",
		empty + ": empty directory, no event log in it",
		filepath.Join(dir, "README.txt") + ": not a Spark event log: it starts neither with JSON nor with a known compression format; skipped",
		filepath.Join(dir, "local-0") + ": holds no Spark event: the file is empty",
		filepath.Join(dir, "local-1426533911241-copy") + ": duplicate-app: application \"local-1426533911241\", attempt \"1\" was already read from " +
			filepath.Join(dir, "local-1426533911241") + ": two logs claim the same application attempt; both are listed",
	}
	wantLogs := []string{filepath.Join(dir, "local-1426533911241"), filepath.Join(dir, "local-1426533911241-copy")}
	for _, parallel := range []int{1, 4} {
		var warned []string
		opt := Options{Analysis: analysis.DefaultConfig(), Parallel: parallel, Warn: func(msg string) { warned = append(warned, msg) }}
		sum, err := ReadAll(context.Background(), inputs, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(warned, want) {
			t.Errorf("parallel %d: messages\n%q\nwant\n%q", parallel, warned, want)
		}
		var logs []string
		for _, d := range sum.Docs {
			logs = append(logs, d.Log)
		}
		if !slices.Equal(logs, wantLogs) || sum.Apps != 2 || sum.Problems != 1 || sum.Unreadable != 3 || sum.Interrupted != "" {
			t.Errorf("parallel %d: docs of %q, summary %+v; want docs of %q, 2 apps, 1 problem, 3 unreadable", parallel, logs, sum, wantLogs)
		}

		var emitted []string
		opt.Sink = &Sink{
			Prepare: func(d Doc) (any, error) { return d.Log, nil },
			Emit:    func(v any) error { emitted = append(emitted, v.(string)); return nil },
		}
		warned = nil
		sum, err = ReadAll(context.Background(), inputs, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(emitted, wantLogs) || len(sum.Docs) != 0 || sum.Apps != 2 || !slices.Equal(warned, want) {
			t.Errorf("parallel %d, sink: emitted %q (%d docs kept), messages %q", parallel, emitted, len(sum.Docs), warned)
		}
	}
}

// An interruption before reading names the log it stopped at.
func TestReadAllInterrupted(t *testing.T) {
	path := testkit.Events(t, "local-1426533911241")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sum, err := ReadAll(ctx, []string{path}, Options{Analysis: analysis.DefaultConfig()})
	if err != nil || sum.Interrupted != path || sum.Apps != 0 {
		t.Errorf("summary %+v (%v), want interrupted at %s", sum, err, path)
	}
}
