package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alecthomas/kingpin/v2"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// backfill writes the file only when it holds an application, and then
// ends it with OpenMetrics' # EOF.
func TestBackfillCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "history.om")
	if code := realMain([]string{"backfill", t.TempDir(), "-o", out}); code != 1 {
		t.Errorf("backfill of an empty directory: exit %d, want 1", code)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("backfill of an empty directory left %s (%v)", out, err)
	}
	if code := realMain([]string{"backfill", testkit.Events(t, "local-1642039451826"), "-o", out}); code != 0 {
		t.Fatalf("backfill of a real log: exit %d", code)
	}
	b, err := os.ReadFile(out)
	if err != nil || !bytes.HasSuffix(b, []byte("# EOF\n")) || !bytes.Contains(b, []byte(`spark_app_settled_task_seconds_total{app_id="local-1642039451826"`)) {
		t.Errorf("backfill output (%v):\n%.1000s", err, b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the output directory, want only %s", len(entries), out)
	}
}

// The README's Databricks log has no ApplicationEnd: backfill says how to
// write it (the live exporter would not show a 2024 log), and
// --include-unfinished does.
func TestBackfillUnfinishedDatabricksLog(t *testing.T) {
	q88 := testkit.Events(t, "extra", "spark-rapids-tools", "spark-events-qualification", "nds_q88_photon_db_13_3.zstd")
	out := filepath.Join(t.TempDir(), "history.om")
	_, stderr, code := runBinary(t, "backfill", q88, "-o", out)
	if code != 1 || !strings.Contains(stderr, "nothing written (--include-unfinished writes") {
		t.Errorf("backfill of an unfinished log: exit %d, stderr:\n%s\nwant 1 and the --include-unfinished advice", code, stderr)
	}
	_, stderr, code = runBinary(t, "backfill", "--include-unfinished", q88, "-o", out)
	if code != 0 || !strings.Contains(stderr, "1 applications (1 of them unfinished, up to their last event)") {
		t.Fatalf("backfill --include-unfinished: exit %d, stderr:\n%s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil || !bytes.Contains(b, []byte(`spark_app_info{app_id="app-20240919162642-0000"`)) || !bytes.HasSuffix(b, []byte("# EOF\n")) {
		t.Errorf("backfill --include-unfinished output (%v):\n%.1000s", err, b)
	}
}

// Ctrl-C stops backfill with status 130 and leaves no file. (main's
// signal.NotifyContext catches the signal, so a command that does not look
// at its context cannot be interrupted at all: backfill could not.)
func TestBackfillInterrupted(t *testing.T) {
	app := kingpin.New("sparkglance", "")
	c := newBackfillCommand(app.Command("backfill", ""))
	var errOut bytes.Buffer
	c.errOut = &errOut
	dir := t.TempDir()
	out := filepath.Join(dir, "history.om")
	log := testkit.Events(t, "local-1642039451826")
	if _, err := app.Parse([]string{"backfill", log, "-o", out}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := c.run(ctx)
	if got := exitStatus(err); got != exitInterrupted || !strings.Contains(err.Error(), "interrupted while reading "+log) {
		t.Errorf("exit %d (%v), want %d naming %s", got, err, exitInterrupted, log)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("%d files left in the output directory, want none", len(entries))
	}
}
