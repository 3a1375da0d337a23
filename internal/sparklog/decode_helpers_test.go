package sparklog

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// Paths of the real logs, relative to shared/spark-events.
const (
	bigLog      = "extra/spark-rapids-tools/spark-events-qualification/nds_q88_photon_db_13_3.zstd"
	bigLogBytes = 142361502 // decompressed size, from the data README
	badLog      = "extra/spark-rapids-tools/spark-events-profiling/malformed_json_eventlog.zstd"
)

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

// logReader opens a log under shared/spark-events, decompressing zstd and
// gzip directly (not through the codec package, to test the decoder alone).
func logReader(t testing.TB, rel string) io.ReadCloser {
	t.Helper()
	f, err := os.Open(testkit.Events(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case strings.HasSuffix(rel, ".zstd"):
		zr, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1))
		if err != nil {
			t.Fatal(err)
		}
		return closers{zr.IOReadCloser(), f}
	case strings.HasSuffix(rel, ".gz"):
		gr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		return closers{gr, f}
	}
	return f
}

type closers struct {
	io.ReadCloser
	file *os.File
}

func (c closers) Close() error {
	c.ReadCloser.Close()
	return c.file.Close()
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

// bigLogFile decompresses the 142 MB Databricks log once into the system
// temporary directory and reuses it while its size is right.
func bigLogFile(t testing.TB) string {
	t.Helper()
	dst := filepath.Join(os.TempDir(), "sparkglance-bench-nds_q88_photon_db_13_3.json")
	if fi, err := os.Stat(dst); err == nil && fi.Size() == bigLogBytes {
		return dst
	}
	r := logReader(t, bigLog)
	defer r.Close()
	tmp, err := os.CreateTemp(os.TempDir(), "sparkglance-bench-*.partial")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(tmp.Name())
	n, err := io.Copy(tmp, r)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	if n != bigLogBytes {
		t.Fatalf("%s decompressed to %d bytes, want %d", bigLog, n, bigLogBytes)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		t.Fatal(err)
	}
	return dst
}
