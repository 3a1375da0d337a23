package sparklog

import (
	"archive/zip"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeZip writes a zip holding the given members.
func writeZip(t testing.TB, path string, members map[string][]byte) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, data := range members {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// fakeDirEntry is a listing entry for a directory that cannot be listed
// when opened (gone, or not readable by this user).
type fakeDirEntry struct{ name string }

func (e fakeDirEntry) Name() string               { return e.name }
func (e fakeDirEntry) IsDir() bool                { return true }
func (e fakeDirEntry) Type() fs.FileMode          { return fs.ModeDir }
func (e fakeDirEntry) Info() (fs.FileInfo, error) { return nil, fs.ErrNotExist }

// TestDiscoverKeepsGoodEntries: a truncated zip, a rolling directory that
// cannot be listed, a named pipe and a link leading outside each become one
// problem naming the entry, and the good logs beside them are still found.
func TestDiscoverKeepsGoodEntries(t *testing.T) {
	lines := realLines(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "app-1"), bytes.Join(lines, nil))
	writeFile(t, filepath.Join(dir, "app-2"), bytes.Join(lines, nil))

	good := filepath.Join(t.TempDir(), "whole.zip")
	writeZip(t, good, map[string][]byte{"app-3": bytes.Join(lines, nil)})
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "broken.zip"), data[:len(data)/2])

	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "pipe"), filepath.Join(dir, "link-to-pipe")); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "secret")
	writeFile(t, outside, bytes.Join(lines, nil))
	if err := os.Symlink(outside, filepath.Join(dir, "link-outside")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "app-2"), filepath.Join(dir, "link-inside")); err != nil {
		t.Fatal(err)
	}

	wantProblem := map[string]ProblemKind{
		"broken.zip":   ProblemUnreadable,
		"pipe":         ProblemNotRegular,
		"link-to-pipe": ProblemNotRegular,
		"link-outside": ProblemExternalLink,
	}
	check := func(t *testing.T, logs []Log, wantRead []string) {
		t.Helper()
		var read []string
		problems := map[string]ProblemKind{}
		for _, l := range logs {
			done := make(chan struct{})
			var st Stats
			var rec *recorder
			go func() { // a blocked open must fail the test, not hang it
				defer close(done)
				rec = &recorder{}
				st, err = Read(l, rec, Options{})
			}()
			select {
			case <-done:
			case <-time.After(time.Minute):
				t.Fatalf("reading %s did not return", l.Path)
			}
			if err != nil {
				t.Fatalf("%s: %v", l.Path, err)
			}
			if st.Events > 0 {
				read = append(read, filepath.Base(l.Path))
			}
			for _, p := range rec.problems {
				if p.File != l.Path || p.Reason == "" {
					t.Errorf("problem %+v does not name %s and a reason", p, l.Path)
				}
				problems[filepath.Base(l.Path)] = p.Kind
			}
		}
		if strings.Join(read, " ") != strings.Join(wantRead, " ") {
			t.Errorf("logs with events: %v, want %v", read, wantRead)
		}
		for name, kind := range wantProblem {
			if kind == ProblemExternalLink && len(wantRead) == 4 {
				continue
			}
			if problems[name] != kind {
				t.Errorf("%s: problem %q, want %q (all: %v)", name, problems[name], kind, problems)
			}
		}
	}

	logs, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	check(t, logs, []string{"app-1", "app-2", "link-inside"})

	logs, err = DiscoverWith(dir, DiscoverOptions{FollowExternalLinks: true})
	if err != nil {
		t.Fatal(err)
	}
	check(t, logs, []string{"app-1", "app-2", "link-inside", "link-outside"})

	// A rolling directory whose listing fails (gone since, or 0770 and not
	// ours) is a problem of its own too.
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	entries = append(entries, fakeDirEntry{"eventlog_v2_app-4"})
	logs = discoverLogDir(dir, dir, entries, DiscoverOptions{})
	var found bool
	for _, l := range logs {
		if l.Path == filepath.Join(dir, "eventlog_v2_app-4") {
			found = len(l.Problems) == 1 && l.Problems[0].Kind == ProblemUnreadable && strings.Contains(l.Problems[0].Reason, "no such file")
		}
	}
	if !found || len(logs) != 8 {
		t.Errorf("unlistable rolling directory: %d logs, its problem found %v: %+v", len(logs), found, logs)
	}
}

// TestExplicitPathNeverOpensAPipe: a path naming a FIFO (or a link to one)
// is refused by Discover; a link to a regular file is followed, since the
// user named it.
func TestExplicitPathNeverOpensAPipe(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "app-1")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "app-link")
	if err := os.Symlink(pipe, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{pipe, link} {
		if _, err := Discover(p); err == nil || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("Discover(%s) = %v, want a named-pipe error", p, err)
		}
	}
	// A log laid out before its file became a pipe: the open is refused at once.
	st, err := Read(singleFileLog(pipe), &recorder{}, Options{})
	if err == nil || !strings.Contains(err.Error(), "named pipe") || st.Events != 0 {
		t.Errorf("reading a pipe: %v", err)
	}

	target := filepath.Join(t.TempDir(), "app-2")
	writeFile(t, target, bytes.Join(realLines(t), nil))
	if err := os.Symlink(target, filepath.Join(dir, "named")); err != nil {
		t.Fatal(err)
	}
	st, _ = readPath(t, filepath.Join(dir, "named"), Options{})
	if st.Events != 88 {
		t.Errorf("explicit link: %d events, want 88", st.Events)
	}
}

// TestRollingEventsFileThatIsAPipe: an events file that is a FIFO is never
// opened; it is reported and the others are read.
func TestRollingEventsFileThatIsAPipe(t *testing.T) {
	lines := realLines(t)
	dir := filepath.Join(t.TempDir(), "eventlog_v2_app-1")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "events_1_app-1"), bytes.Join(lines[:40], nil))
	if err := syscall.Mkfifo(filepath.Join(dir, "events_2_app-1"), 0o600); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "events_3_app-1"), bytes.Join(lines[40:], nil))
	writeFile(t, filepath.Join(dir, "appstatus_app-1"), nil)
	st, rec := readPath(t, dir, Options{})
	if st.Events != 88 || len(rec.problemsOf(ProblemNotRegular)) != 1 || len(rec.problemsOf(ProblemMissingFile)) != 1 {
		t.Errorf("%d events, problems %v", st.Events, rec.problems)
	}
}

// TestNotALogIsNotQuoted: the problem for a file that is not an event log
// names it and says why, but quotes none of its bytes.
func TestNotALogIsNotQuoted(t *testing.T) {
	const secret = "hunter2-password"
	for name, data := range map[string]string{
		"notes":     secret + " is what the text says\n" + strings.Repeat(secret+"\n", 10),
		"app.json":  strings.Repeat(`{"password":"`+secret+`"}`+"\n", 10),
		"junk.lz4":  "\x00\x01" + secret,
		"binary":    "{" + secret + "\x00\x01\x02",
		"x.snappy":  secret,
		"broken":    `{"Event":"` + secret + "\n" + secret + "\n" + secret + "\n",
		"cut.short": `{"` + secret,
	} {
		path := filepath.Join(t.TempDir(), name)
		writeFile(t, path, []byte(data))
		_, rec := readPath(t, path, Options{})
		if len(rec.problems) == 0 {
			t.Errorf("%s: no problem", name)
		}
		for _, p := range rec.problems {
			if strings.Contains(p.String(), "hunter") || p.File != path {
				t.Errorf("%s: problem %q quotes the file or names another", name, p)
			}
		}
	}
}
