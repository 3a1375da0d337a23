package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog"
)

// The bar is drawn only on a terminal and only for big inputs, so piped
// output and CI logs stay clean.
func TestProgressBarOnlyForBigInputsOnATerminal(t *testing.T) {
	out, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if b := newProgressBar(out, nil); b != nil {
		t.Error("a bar on a file that is not a terminal")
	}
	b := (*progressBar)(nil) // what newProgressBar returns then: every method is a no-op
	b.update(0, sparklog.Progress{Done: 1, Total: 2})
	if b.ForLog(0) != nil {
		t.Error("a progress callback without a bar")
	}
	b.Finish(0, sparklog.Log{})
	b.Done()
}

// Drawn, the bar counts the logs already read plus the bytes of those being
// read (several at once with --parallel), and redraws only when the
// percentage moves.
func TestProgressBarDrawing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stderr")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	b := &progressBar{w: out, total: 200 << 20, lastPct: -1}
	b.update(0, sparklog.Progress{Done: 50 << 20})
	b.update(0, sparklog.Progress{Done: 50<<20 + 1}) // same percentage: no redraw
	b.ForLog(1)(sparklog.Progress{Done: 50 << 20})   // a second log read at the same time
	b.Finish(0, sparklog.Log{})                      // the first one's file is gone: counts 0
	b.finished += 100 << 20                          // as if it were 100 MB
	b.update(1, sparklog.Progress{Done: 100 << 20})
	b.Done()
	out.Close()
	data, _ := os.ReadFile(path)
	got := string(data)
	if n := strings.Count(got, "\r["); n != 3 {
		t.Errorf("%d redraws, want 3: %q", n, got)
	}
	for _, want := range []string{" 25%  50/200 MB", " 50%  100/200 MB", "100%  200/200 MB", "\r\033[K"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q: %q", want, got)
		}
	}
}
