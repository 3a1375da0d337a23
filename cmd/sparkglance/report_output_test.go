package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// A report written into a directory that already holds pages keeps them
// in its index: two runs give the index one run over both logs gives.
// Other HTML files are not listed; a damaged page is named and left out.
func TestReportIntoExistingDirectoryIndexesEveryPage(t *testing.T) {
	a, b := testkit.Events(t, "local-1422981780767"), testkit.Events(t, "local-1642039451826")
	both, twice := t.TempDir(), t.TempDir()
	if _, stderr, code := runBinary(t, "report", a, b, "-o", both); code != 0 {
		t.Fatalf("report of both logs: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := runBinary(t, "report", a, "-o", twice); code != 0 {
		t.Fatalf("report of the first log: exit %d\n%s", code, stderr)
	}
	if err := os.WriteFile(filepath.Join(twice, "notes.html"), []byte("<html><body>my notes</body></html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runBinary(t, "report", b, "-o", twice)
	if code != 0 || !strings.Contains(stderr, "1 page and index.html in "+twice+" (the index also lists the 1 page already there)") {
		t.Fatalf("report of the second log into the same directory: exit %d\n%s", code, stderr)
	}
	want, err := os.ReadFile(filepath.Join(both, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(twice, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the index after two runs differs from the index of one run over both logs:\n%s\nwant:\n%s", got, want)
	}
	if bytes.Contains(got, []byte("notes.html")) {
		t.Error("the index links notes.html, which is not a glance page")
	}

	// A truncated page (a disk that filled up under an older version) is
	// named, and the others are still listed.
	page := filepath.Join(twice, "local-1422981780767.html")
	full, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	cut := bytes.Index(full, []byte(`id="glance-doc"`)) + 200 // inside the embedded document
	if err := os.WriteFile(filepath.Join(twice, "damaged.html"), full[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = runBinary(t, "report", b, "-o", twice)
	if code != 0 || !strings.Contains(stderr, filepath.Join(twice, "damaged.html")+": not in the index") {
		t.Errorf("report beside a damaged page: exit %d, stderr:\n%s\nwant the damaged page named", code, stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(twice, "index.html")); !bytes.Equal(got, want) {
		t.Errorf("the index beside a damaged page differs from the index of both logs:\n%s", got)
	}
}

// `report LOG -o FILE.html` says what it wrote; when the file cannot be
// written whole (here the file-size limit, which fails a write as a full
// disk does) it leaves no truncated page under the name, and an earlier
// page there stays as it was.
func TestReportSingleFileIsWholeOrAbsent(t *testing.T) {
	bin := binary(t)
	log := testkit.Events(t, "local-1642039451826")
	dir := t.TempDir()
	out := filepath.Join(dir, "app.html")
	_, stderr, code := runBinary(t, "report", log, "-o", out)
	if code != 0 || !strings.Contains(stderr, out+" written") {
		t.Fatalf("report -o %s: exit %d, stderr:\n%s\nwant 0 and the file named", out, code, stderr)
	}
	page, err := os.ReadFile(out)
	if err != nil || !bytes.HasSuffix(bytes.TrimSpace(page), []byte("</html>")) {
		t.Fatalf("the page (%v) does not end with </html>", err)
	}
	if len(page) < 2*64<<10 {
		t.Fatalf("the page is %d bytes, too small for a 64 KiB file-size limit to cut it", len(page))
	}

	for _, previous := range []string{"", "an earlier page"} {
		os.Remove(out)
		if previous != "" {
			if err := os.WriteFile(out, []byte(previous), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		// ulimit -f counts 512-byte blocks in dash and 1024 in bash: 64
		// is at most 64 KiB either way.
		cmd := exec.Command("sh", "-c", `ulimit -f 64 && exec "$0" report "$1" -o "$2"`, bin, log, out)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Fatalf("report under a 64-block file-size limit: %v, stderr:\n%s\nwant exit 1", err, stderr.String())
		}
		if !strings.Contains(stderr.String(), out) {
			t.Errorf("the error does not name %s:\n%s", out, stderr.String())
		}
		got, err := os.ReadFile(out)
		switch {
		case previous == "" && !errors.Is(err, os.ErrNotExist):
			t.Errorf("a failed write left %s (%d bytes, %v)", out, len(got), err)
		case previous != "" && string(got) != previous:
			t.Errorf("a failed write changed %s: %d bytes (%v), want the earlier page", out, len(got), err)
		}
		wantFiles := 0 // no temporary file left; the earlier page if any
		if previous != "" {
			wantFiles = 1
		}
		if entries, _ := os.ReadDir(dir); len(entries) != wantFiles {
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			t.Errorf("files left in the directory: %v", names)
		}
	}
}
