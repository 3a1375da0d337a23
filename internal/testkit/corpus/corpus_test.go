package corpus

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog"
)

const shared = "../../../../shared/spark-events"

// Every copy decodes to its original's text with the id replaced, and no
// two copies of logs with a readable id claim one application attempt.
func TestBuildCopiesUnderDistinctIDs(t *testing.T) {
	ins, err := inputs(shared)
	if err != nil {
		t.Skip("no shared corpus:", err)
	}
	n := len(ins) + 2
	dst := t.TempDir()
	paths, err := Build(dst, shared, n)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != n {
		t.Fatalf("%d logs written, want %d", len(paths), n)
	}
	attempts := map[string]string{}
	byID := 0
	for i, p := range paths {
		in := ins[i%len(ins)]
		if in.kind != single {
			continue
		}
		orig, ok, err := decode(in.path)
		if err != nil {
			t.Fatal(err)
		}
		cp, _, err := decode(p)
		if err != nil {
			t.Fatal(err)
		}
		app := findApp(orig.text)
		if !ok || app.ID == "" {
			if !bytes.Equal(orig.text, cp.text) {
				t.Errorf("%s: copied as is, but its bytes differ from %s", p, in.path)
			}
			continue
		}
		byID++
		got := findApp(cp.text)
		if !strings.HasPrefix(got.ID, app.ID) || got.ID == app.ID || got.Attempt != app.Attempt {
			t.Errorf("%s: application %+v, copy of %+v", p, got, app)
		}
		want := bytes.ReplaceAll(orig.text, []byte(app.ID), []byte(got.ID))
		if !bytes.Equal(cp.text, want) || cp.codec != orig.codec {
			t.Errorf("%s (%s): not %s (%s) with its id replaced", p, cp.codec, in.path, orig.codec)
		}
		key := got.ID + "/" + got.Attempt
		if prev, dup := attempts[key]; dup {
			t.Errorf("%s and %s both hold attempt %s", prev, p, key)
		}
		attempts[key] = p
	}
	if byID < len(ins) {
		t.Errorf("only %d of %d copies had their id replaced", byID, n)
	}
	// The directory is one a History Server would read: a log per copy.
	logs, err := sparklog.Discover(dst)
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != n {
		t.Errorf("Discover finds %d logs in the corpus, want %d", len(logs), n)
	}
	entries, _ := os.ReadDir(dst)
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), "eventlog_v2_") {
			t.Errorf("%s: a directory Spark would not read", filepath.Join(dst, e.Name()))
		}
	}
}

func TestBuildOneLogManyTimes(t *testing.T) {
	src := filepath.Join(shared, "app-20161115172038-0000")
	if _, err := os.Stat(src); err != nil {
		t.Skip("no shared corpus:", err)
	}
	paths, err := Build(t.TempDir(), src, 5)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, p := range paths {
		d, _, err := decode(p)
		if err != nil {
			t.Fatal(err)
		}
		id := findApp(d.text).ID
		if seen[id] || !strings.HasPrefix(id, "app-20161115172038-0000") {
			t.Errorf("%s: id %q repeated or not derived from the original", p, id)
		}
		seen[id] = true
	}
}
