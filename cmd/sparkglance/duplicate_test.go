package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// Two logs claiming one application attempt (a copy under another name)
// are both listed, but the second is a duplicate-app problem naming the
// first, and the status says "read with problems"; distinct attempts of
// one application are no duplicates.
func TestAnalyzeReportsDuplicateAttempt(t *testing.T) {
	data, err := os.ReadFile(testkit.Events(t, "local-1422981780767"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	first, second := filepath.Join(dir, "local-1422981780767"), filepath.Join(dir, "local-1422981780767-copy")
	for _, p := range []string{first, second} {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, mode := range [][]string{nil, {"--json"}} {
		out, stderr, err := runAnalyzeStderr(t, append(mode, dir)...)
		if got := exitStatus(err); got != exitPartial {
			t.Errorf("%v: exit %d (%v), want %d", mode, got, err, exitPartial)
		}
		want := second + ": duplicate-app: application \"local-1422981780767\" was already read from " + first
		if !strings.Contains(stderr, want) {
			t.Errorf("%v: stderr does not report the duplicate (want %q):\n%s", mode, want, stderr)
		}
		if n := strings.Count(out, "local-1422981780767-copy"); n == 0 {
			t.Errorf("%v: the second log is not listed", mode)
		}
	}

	// Attempts 1 and 2 of one application (the shared set has both).
	attempts := t.TempDir()
	for _, name := range []string{"local-1430917381535_1", "local-1430917381535_2"} {
		src := testkit.Events(t, name)
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(attempts, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, stderr, err := runAnalyzeStderr(t, attempts)
	if strings.Contains(stderr, "duplicate-app") || exitStatus(err) != exitOK {
		t.Errorf("two attempts of one application: exit %d, stderr:\n%s", exitStatus(err), stderr)
	}
}
