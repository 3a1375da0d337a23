package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// writeManyExecutorsLog writes, zstd-compressed, one application with n
// single-core executors added one a millisecond and one task on each (the
// log of issue 24.11; docs/performance.md, "Many executors").
func writeManyExecutorsLog(tb testing.TB, path string, n int) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	enc, err := zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(enc, 1<<20)
	const t0 = int64(1_700_000_000_000)
	fmt.Fprintln(w, `{"Event":"SparkListenerLogStart","Spark Version":"3.5.1"}`)
	fmt.Fprintf(w, `{"Event":"SparkListenerApplicationStart","App Name":"many","App ID":"app-many","Timestamp":%d,"User":"u"}`+"\n", t0)
	for i := range n {
		fmt.Fprintf(w, `{"Event":"SparkListenerExecutorAdded","Timestamp":%d,"Executor ID":"%d","Executor Info":{"Host":"h%d","Total Cores":1,"Log Urls":{}}}`+"\n", t0+1000+int64(i), i+1, i%1000)
	}
	submitted := t0 + 2000 + int64(n)
	stage := fmt.Sprintf(`{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":%d,"Submission Time":%d}`, n, submitted)
	fmt.Fprintf(w, `{"Event":"SparkListenerJobStart","Job ID":0,"Submission Time":%d,"Stage Infos":[%s],"Stage IDs":[0]}`+"\n", submitted, stage)
	fmt.Fprintf(w, `{"Event":"SparkListenerStageSubmitted","Stage Info":%s}`+"\n", stage)
	task := func(i int, launch, finish int64) string {
		return fmt.Sprintf(`{"Task ID":%d,"Index":%d,"Attempt":0,"Launch Time":%d,"Executor ID":"%d","Host":"h","Locality":"PROCESS_LOCAL","Speculative":false,"Getting Result Time":0,"Finish Time":%d,"Failed":false,"Killed":false}`, i, i, launch, i+1, finish)
	}
	for i := range n {
		fmt.Fprintf(w, `{"Event":"SparkListenerTaskStart","Stage ID":0,"Stage Attempt ID":0,"Task Info":%s}`+"\n", task(i, t0+3000+int64(n)+int64(i/1000), 0))
	}
	for i := range n {
		launch := t0 + 3000 + int64(n) + int64(i/1000)
		fmt.Fprintf(w, `{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task Type":"ResultTask","Task End Reason":{"Reason":"Success"},"Task Info":%s,"Task Metrics":{"Executor Run Time":900,"Executor CPU Time":800000000,"JVM GC Time":10,"Memory Bytes Spilled":%d}}`+"\n", task(i, launch, launch+1000), (i%7)<<20)
	}
	end := t0 + 3000 + int64(n) + int64(n/1000) + 2000
	fmt.Fprintf(w, `{"Event":"SparkListenerStageCompleted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":%d,"Submission Time":%d,"Completion Time":%d}}`+"\n", n, submitted, end)
	fmt.Fprintf(w, `{"Event":"SparkListenerJobEnd","Job ID":0,"Completion Time":%d,"Job Result":{"Result":"JobSucceeded"}}`+"\n", end)
	fmt.Fprintf(w, `{"Event":"SparkListenerApplicationEnd","Timestamp":%d}`+"\n", end+1000)
	for _, err := range []error{w.Flush(), enc.Close(), f.Close()} {
		if err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkAnalyzeManyExecutors runs the built binary's `analyze --json`
// and `analyze` over one application with 10,000, 100,000 and 1,000,000
// executors (writeManyExecutorsLog; 1M: 10 MB stored, 950 MB of JSON
// lines, 1.6 GB of JSON out), output discarded, and reports per run the
// wall time, the CPU time (user+sys: the figure that counts on a shared
// machine) and the peak RSS. Issue 24.11's goal: 1M executors in under
// 10 s.
func BenchmarkAnalyzeManyExecutors(b *testing.B) {
	bin, err := buildBinary()
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		path := filepath.Join(dir, fmt.Sprintf("app-many-%d.zstd", n))
		written := false
		for _, mode := range []string{"json", "text"} {
			b.Run(fmt.Sprintf("executors-%d/%s", n, mode), func(b *testing.B) {
				if !written {
					writeManyExecutorsLog(b, path, n)
					written = true
				}
				args := []string{"analyze", path}
				if mode == "json" {
					args = []string{"analyze", "--json", path}
				}
				benchBinary(b, bin, args...)
			})
		}
	}
}
