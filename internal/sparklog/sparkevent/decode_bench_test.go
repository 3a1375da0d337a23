package sparkevent

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"runtime"
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent/eventtest"
)

// BenchmarkDecodeLine decodes the 142 MB real Databricks log line by line,
// streaming it from a decompressed copy in the temp directory. It also
// reports the live heap after 10 MB and after the whole log, which must not
// grow with the log's size.
func BenchmarkDecodeLine(b *testing.B) {
	path := eventtest.BigLogFile(b)
	b.SetBytes(eventtest.BigLogBytes)
	b.ReportAllocs()
	var heap10, heapAll float64
	for i := 0; i < b.N; i++ {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		br := bufio.NewReaderSize(f, 4<<20)
		var read int64
		measured := i > 0
		for {
			line, err := br.ReadSlice('\n')
			if err == bufio.ErrBufferFull {
				b.Fatalf("line longer than the 4 MiB buffer at offset %d", read)
			}
			read += int64(len(line))
			if len(line) > 1 {
				if _, derr := DecodeLine(bytes.TrimSuffix(line, []byte("\n"))); derr != nil {
					b.Fatalf("offset %d: %v", read, derr)
				}
			}
			if !measured && read >= 10<<20 {
				heap10 = eventtest.LiveHeapMB(b)
				measured = true
			}
			if err == io.EOF {
				if i == 0 { // measured like heap10, with the reader still live
					heapAll = eventtest.LiveHeapMB(b)
				}
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		runtime.KeepAlive(br)
		f.Close()
	}
	b.ReportMetric(heap10, "heapMB@10MB")
	b.ReportMetric(heapAll, "heapMB@142MB")
}

// BenchmarkDecodeLineByType decodes one real line of each kind, so a
// regression in one decoder shows.
func BenchmarkDecodeLineByType(b *testing.B) {
	for _, c := range benchLines(b) {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.line)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := DecodeLine(c.line); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecodeLineValidateOnly measures what validating an untyped line
// costs: it skips the 142 MB log's lines as if all were *Other.
func BenchmarkDecodeLineValidateOnly(b *testing.B) {
	path := eventtest.BigLogFile(b)
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var s scanner
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rest := data
		for len(rest) > 0 {
			line := rest
			if j := bytes.IndexByte(rest, '\n'); j >= 0 {
				line, rest = rest[:j], rest[j+1:]
			} else {
				rest = nil
			}
			s.reset(line)
			s.skipValue()
			if s.err != nil {
				b.Fatal(s.err)
			}
		}
	}
}

type benchLine struct {
	name string
	line []byte
}

// benchLines picks real lines: the largest TaskEnd of the Databricks log,
// an old Spark 1.2 TaskEnd, a SQL plan update and an untyped line.
func benchLines(b *testing.B) []benchLine {
	f, err := os.Open(eventtest.BigLogFile(b))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var taskEnd, sqlUpdate, taskStart, other []byte
	eachLine(b, f, func(_ int, line []byte) {
		switch {
		case bytes.HasPrefix(line, []byte(`{"Event":"SparkListenerTaskEnd"`)) && len(line) > len(taskEnd):
			taskEnd = bytes.Clone(line)
		case bytes.HasPrefix(line, []byte(`{"Event":"SparkListenerTaskStart"`)) && taskStart == nil:
			taskStart = bytes.Clone(line)
		case bytes.HasPrefix(line, []byte(`{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLAdaptiveExecutionUpdate"`)) && sqlUpdate == nil:
			sqlUpdate = bytes.Clone(line)
		case bytes.HasPrefix(line, []byte(`{"Event":"DBCEventLoggingListenerMetadata"`)) && other == nil:
			other = bytes.Clone(line)
		}
	})
	old := firstLineOfType(b, "local-1422981759269", TypeTaskEnd)
	return []benchLine{
		{"TaskEnd-databricks", taskEnd},
		{"TaskEnd-spark1.2", old},
		{"TaskStart", taskStart},
		{"SQLAdaptiveExecutionUpdate", sqlUpdate},
		{"Other", other},
	}
}

// firstLineOfType returns the first line of a log with the given type.
func firstLineOfType(t testing.TB, rel, typ string) []byte {
	t.Helper()
	r := eventtest.LogReader(t, rel)
	defer r.Close()
	var found []byte
	prefix := []byte(`{"Event":"` + typ + `"`)
	eachLine(t, r, func(_ int, line []byte) {
		if found == nil && bytes.HasPrefix(line, prefix) {
			found = bytes.Clone(line)
		}
	})
	if found == nil {
		t.Fatalf("%s has no %s line", rel, typ)
	}
	return found
}
