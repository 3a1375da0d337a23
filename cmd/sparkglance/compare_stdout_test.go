package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// compare -o - writes the page to stdout (no file named "-"); without -o
// and --json it writes text.
func TestCompareOutputs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs")
	if code := quiet(t, func() int { return realMain([]string{"simulate", "--workload-runs", "4", "--out", dir}) }); code != 0 {
		t.Fatalf("simulate exit %d", code)
	}
	base, nw := filepath.Join(dir, "app-20261130090000-0001"), filepath.Join(dir, "app-20261201090000-0002")
	t.Chdir(t.TempDir())
	stdout := captureStdout(t)
	code := quiet(t, func() int { return realMain([]string{"compare", "-o", "-", base, nw}) })
	page := stdout()
	if code != 0 || !strings.HasPrefix(strings.ToLower(page), "<!doctype html>") || !strings.Contains(page, `"comparison":`) ||
		!strings.Contains(page, "app-20261201090000-0002") || !strings.HasSuffix(strings.TrimSpace(page), "</html>") {
		t.Errorf("compare -o -: exit %d, not the page on stdout:\n%.300s", code, page)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Error(`compare -o - wrote a file named "-"`)
	}
	stdout = captureStdout(t)
	code = quiet(t, func() int { return realMain([]string{"compare", base, nw}) })
	text := stdout()
	if code != 0 || !strings.HasPrefix(text, "workload nightly sales rollup <date>\nbase  app-20261130090000-0001") || strings.Contains(text, "<html") {
		t.Errorf("compare: exit %d, not the text:\n%.300s", code, text)
	}
}
