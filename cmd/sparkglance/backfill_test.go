package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

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
