package simulate

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// WriteFile writes what Write writes, and a path it cannot create is
// named in the error.
func TestWriteFile(t *testing.T) {
	cfg := DefaultConfig()
	path := filepath.Join(t.TempDir(), cfg.AppID)
	if err := WriteFile(path, cfg); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if _, err := Write(&want, cfg); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) || len(got) == 0 {
		t.Errorf("the file holds %d bytes, Write writes %d", len(got), want.Len())
	}
	missing := filepath.Join(t.TempDir(), "no-such-dir", "app")
	if err := WriteFile(missing, cfg); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("WriteFile into a missing directory: %v, want an error naming %s", err, missing)
	}
}
