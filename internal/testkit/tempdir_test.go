package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCheckEmpty(t *testing.T) {
	dir := t.TempDir()
	if got := checkEmpty(dir, 0); got != 0 {
		t.Errorf("empty dir: %d, want 0", got)
	}
	if got := checkEmpty(dir, 3); got != 3 {
		t.Errorf("empty dir keeps the tests' status: %d, want 3", got)
	}
	if err := os.Mkdir(filepath.Join(dir, "leaked"), 0o755); err != nil {
		t.Fatal(err)
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	saved := os.Stderr
	os.Stderr = devnull
	got := checkEmpty(dir, 0)
	os.Stderr = saved
	if got != 1 {
		t.Errorf("a leaked directory: %d, want 1", got)
	}
}
