package sparkevent

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// badLog is a real log with a damaged line, relative to shared/spark-events.
const badLog = "extra/spark-rapids-tools/spark-events-profiling/malformed_json_eventlog.zstd"

// plainLogs lists every uncompressed log under shared/spark-events (the
// top level and extra/), relative to that directory.
func plainLogs(t testing.TB) []string {
	t.Helper()
	return findLogs(t, func(name string) bool {
		switch {
		case name == "README.md", strings.HasPrefix(name, "appstatus_"):
			return false
		case strings.HasSuffix(name, ".zstd"), strings.HasSuffix(name, ".gz"), strings.HasSuffix(name, ".zip"):
			return false
		}
		return true
	})
}

// zstdLogs lists the zstd-compressed logs.
func zstdLogs(t testing.TB) []string {
	t.Helper()
	return findLogs(t, func(name string) bool { return strings.HasSuffix(name, ".zstd") })
}

func findLogs(t testing.TB, keep func(name string) bool) []string {
	t.Helper()
	root := testkit.Events(t)
	var out []string
	err := filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || !keep(e.Name()) {
			return err
		}
		rel, err := filepath.Rel(root, p)
		out = append(out, rel)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// eachLine calls fn with every non-blank line of r (the slice is reused)
// and its 1-based number.
func eachLine(t testing.TB, r io.Reader, fn func(n int, line []byte)) {
	t.Helper()
	br := bufio.NewReaderSize(r, 1<<20)
	var long []byte
	n := 0
	for {
		chunk, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, chunk...)
			continue
		}
		line := chunk
		if long != nil {
			line = append(long, chunk...)
			long = long[:0:0]
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) > 0 || err == nil {
			n++
		}
		if len(bytes.TrimSpace(line)) > 0 {
			fn(n, line)
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}
