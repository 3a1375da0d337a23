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
	b.update(sparklog.Progress{Done: 1, Total: 2})
	b.finish(sparklog.Log{})
	b.done()
}

// Drawn, the bar counts the logs already read plus the current one's bytes,
// and redraws only when the percentage moves.
func TestProgressBarDrawing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stderr")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	b := &progressBar{w: out, total: 200 << 20, lastPct: -1}
	b.update(sparklog.Progress{Done: 50 << 20})
	b.update(sparklog.Progress{Done: 50<<20 + 1}) // same percentage: no redraw
	b.finished = 100 << 20                        // a first log of 100 MB was read
	b.update(sparklog.Progress{Done: 100 << 20})
	b.done()
	out.Close()
	data, _ := os.ReadFile(path)
	got := string(data)
	if n := strings.Count(got, "\r["); n != 2 {
		t.Errorf("%d redraws, want 2: %q", n, got)
	}
	for _, want := range []string{" 25%  50/200 MB", "100%  200/200 MB", "\r\033[K"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q: %q", want, got)
		}
	}
}
