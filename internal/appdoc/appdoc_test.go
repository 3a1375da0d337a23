package appdoc

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/simulate"
	"github.com/sparkglance/sparkglance/internal/sparklog"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

func discoverOne(t *testing.T, path string) sparklog.Log {
	t.Helper()
	logs, err := sparklog.Discover(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 1 {
		t.Fatalf("%s: %d logs, want 1", path, len(logs))
	}
	return logs[0]
}

// The counts are those of ../shared/spark-events/README.md for this log.
func TestReadRealLog(t *testing.T) {
	path := testkit.Events(t, "app-20200706201101-0003")
	var progressed bool
	doc, err := Read(context.Background(), discoverOne(t, path), analysis.DefaultConfig(),
		func(sparklog.Progress) { progressed = true })
	if err != nil {
		t.Fatal(err)
	}
	if doc.Log != path || doc.AppID != "app-20200706201101-0003" {
		t.Errorf("log %q app %q", doc.Log, doc.AppID)
	}
	if doc.Lines != 124 || doc.Events[sparkevent.TypeTaskEnd] != 48 {
		t.Errorf("lines %d task ends %d, want 124 and 48", doc.Lines, doc.Events[sparkevent.TypeTaskEnd])
	}
	if len(doc.Problems) != 0 || !progressed {
		t.Errorf("problems %v, progress reported %v", doc.Problems, progressed)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(b, &fields); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"appId", "log", "lines", "events", "problems", "intervals", "stages", "executors"} {
		if _, ok := fields[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if _, ok := fields["problemsOmitted"]; ok {
		t.Error("problemsOmitted present although nothing was omitted")
	}
}

func TestReadStopsWhenContextEnds(t *testing.T) {
	path := testkit.Events(t, "app-20200706201101-0003")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Read(ctx, discoverOne(t, path), analysis.DefaultConfig(), nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// Cancelled in the middle of one big log, reading stops there instead of
// at the log's end.
func TestReadStopsInsideOneLog(t *testing.T) {
	// ~20 MB of plain JSON lines: several progress reports (one per 4 MiB).
	path := filepath.Join(t.TempDir(), "app-big")
	cfg := simulate.DefaultConfig()
	cfg.Repeat = 20
	if err := simulate.WriteFile(path, cfg); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var last sparklog.Progress
	_, err := Read(ctx, discoverOne(t, path), analysis.DefaultConfig(), func(p sparklog.Progress) {
		cancel() // at the first report, about 4 MiB in
		last = p
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if last.Total == 0 || last.Done > last.Total/2 {
		t.Errorf("read %d of %d bytes after the cancellation at the first progress report", last.Done, last.Total)
	}
}
