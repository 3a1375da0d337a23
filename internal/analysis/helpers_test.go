package analysis

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// openLog opens a real log, decompressing zstd, gzip and zip (first member).
func openLog(t testing.TB, path string) io.ReadCloser {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case strings.HasSuffix(path, ".zstd") || strings.HasSuffix(path, ".zst"):
		d, err := zstd.NewReader(f)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return struct {
			io.Reader
			io.Closer
		}{d, closerFunc(func() error { d.Close(); return f.Close() })}
	case strings.HasSuffix(path, ".gz"):
		g, err := gzip.NewReader(f)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return struct {
			io.Reader
			io.Closer
		}{g, f}
	case strings.HasSuffix(path, ".zip"):
		f.Close()
		z, err := zip.OpenReader(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		m, err := z.File[0].Open()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return struct {
			io.Reader
			io.Closer
		}{m, closerFunc(func() error { m.Close(); return z.Close() })}
	}
	return f
}

type closerFunc func() error

func (c closerFunc) Close() error { return c() }

// eachEvent decodes a log line by line; it returns the number of lines
// that failed to decode.
func eachEvent(t testing.TB, r io.Reader, fn func(sparkevent.Event)) (bad int) {
	t.Helper()
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		line = bytes.TrimRight(line, "\r\n")
		if len(bytes.TrimSpace(line)) > 0 {
			ev, derr := sparkevent.DecodeLine(line)
			if derr != nil {
				bad++
			} else {
				fn(ev)
			}
		}
		if err == io.EOF {
			return bad
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// analyzePath analyses one log file with cfg.
func analyzePath(t testing.TB, path string, cfg Config) Report {
	t.Helper()
	rc := openLog(t, path)
	defer rc.Close()
	a := New(cfg)
	eachEvent(t, rc, a.Add)
	return a.Report()
}

// analyzeLines analyses hand-built JSON lines.
func analyzeLines(t testing.TB, lines []string, cfg Config) Report {
	t.Helper()
	a := New(cfg)
	for i, l := range lines {
		ev, err := sparkevent.DecodeLine([]byte(l))
		if err != nil {
			t.Fatalf("line %d: %v\n%s", i+1, err, l)
		}
		a.Add(ev)
	}
	return a.Report()
}

// realLogs lists every file under spark-events (recursively) except READMEs
// and empty marker files.
func realLogs(t testing.TB, root string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() || info.Size() == 0 || strings.HasSuffix(p, ".md") {
			return nil
		}
		out = append(out, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// ---- hand-built logs in Spark's JSON shape (copied from real lines) ----

type logb struct{ lines []string }

func (b *logb) add(format string, args ...any) *logb {
	b.lines = append(b.lines, fmt.Sprintf(format, args...))
	return b
}

func (b *logb) appStart(ts int64, master string) *logb {
	b.add(`{"Event":"SparkListenerLogStart","Spark Version":"3.3.0"}`)
	b.add(`{"Event":"SparkListenerEnvironmentUpdate","JVM Information":{"Java Version":"11"},"Spark Properties":{"spark.master":%q,"spark.app.name":"t"},"Hadoop Properties":{},"System Properties":{},"Classpath Entries":{}}`, master)
	b.add(`{"Event":"SparkListenerApplicationStart","App Name":"t","App ID":"app-test","Timestamp":%d,"User":"u"}`, ts)
	return b
}

func (b *logb) appEnd(ts int64) *logb {
	return b.add(`{"Event":"SparkListenerApplicationEnd","Timestamp":%d}`, ts)
}

func (b *logb) execAdded(ts int64, id string, cores int) *logb {
	return b.add(`{"Event":"SparkListenerExecutorAdded","Timestamp":%d,"Executor ID":%q,"Executor Info":{"Host":"host-%s","Total Cores":%d,"Log Urls":{},"Attributes":{},"Resources":{},"Resource Profile Id":0}}`, ts, id, id, cores)
}

func (b *logb) execRemoved(ts int64, id, reason string) *logb {
	return b.add(`{"Event":"SparkListenerExecutorRemoved","Timestamp":%d,"Executor ID":%q,"Removed Reason":%q}`, ts, id, reason)
}

func (b *logb) blockManager(ts int64, id string) *logb {
	return b.add(`{"Event":"SparkListenerBlockManagerAdded","Block Manager ID":{"Executor ID":%q,"Host":"localhost","Port":4040},"Maximum Memory":1000,"Timestamp":%d}`, id, ts)
}

func stageInfo(id, attempt, numTasks int, extra string) string {
	return fmt.Sprintf(`{"Stage ID":%d,"Stage Attempt ID":%d,"Stage Name":"stage %d","Number of Tasks":%d,"RDD Info":[],"Parent IDs":[],"Details":""%s,"Accumulables":[],"Resource Profile Id":0}`, id, attempt, id, numTasks, extra)
}

func (b *logb) jobStart(job int, ts int64, stages ...[3]int) *logb {
	var infos, ids []string
	for _, s := range stages {
		infos = append(infos, stageInfo(s[0], s[1], s[2], ""))
		ids = append(ids, fmt.Sprint(s[0]))
	}
	return b.add(`{"Event":"SparkListenerJobStart","Job ID":%d,"Submission Time":%d,"Stage Infos":[%s],"Stage IDs":[%s],"Properties":{}}`,
		job, ts, strings.Join(infos, ","), strings.Join(ids, ","))
}

func (b *logb) jobEnd(job int, ts int64) *logb {
	return b.add(`{"Event":"SparkListenerJobEnd","Job ID":%d,"Completion Time":%d,"Job Result":{"Result":"JobSucceeded"}}`, job, ts)
}

func (b *logb) stageSubmitted(id, attempt, numTasks int, ts int64) *logb {
	return b.add(`{"Event":"SparkListenerStageSubmitted","Stage Info":%s,"Properties":{}}`, stageInfo(id, attempt, numTasks, fmt.Sprintf(`,"Submission Time":%d`, ts)))
}

func (b *logb) stageCompleted(id, attempt, numTasks int, sub, done int64, failure string) *logb {
	extra := fmt.Sprintf(`,"Submission Time":%d,"Completion Time":%d`, sub, done)
	if failure != "" {
		extra += fmt.Sprintf(`,"Failure Reason":%q`, failure)
	}
	return b.add(`{"Event":"SparkListenerStageCompleted","Stage Info":%s}`, stageInfo(id, attempt, numTasks, extra))
}

// tk is one task attempt of a hand-built log.
type tk struct {
	stage, attempt                     int
	id                                 int64
	exec                               string
	launch, finish                     int64
	reason                             string // "" = Success
	noMetrics                          bool
	noCPU                              bool // old log: no Executor CPU Time key
	cpuNs, deserCPUNs, writeNs         int64
	runMs, gcMs, fetchWaitMs, resSerMs int64
	memSpill, diskSpill                int64
}

func taskInfo(t tk, finish int64) string {
	failed := t.reason != "" && t.reason != "Success" && t.reason != "TaskKilled"
	killed := t.reason == "TaskKilled"
	if finish == 0 {
		failed, killed = false, false
	}
	return fmt.Sprintf(`{"Task ID":%d,"Index":%d,"Attempt":0,"Partition ID":%d,"Launch Time":%d,"Executor ID":%q,"Host":"host-%s","Locality":"PROCESS_LOCAL","Speculative":false,"Getting Result Time":0,"Finish Time":%d,"Failed":%t,"Killed":%t,"Accumulables":[]}`,
		t.id, t.id, t.id, t.launch, t.exec, t.exec, finish, failed, killed)
}

func taskStartLine(t tk) string {
	return fmt.Sprintf(`{"Event":"SparkListenerTaskStart","Stage ID":%d,"Stage Attempt ID":%d,"Task Info":%s}`, t.stage, t.attempt, taskInfo(t, 0))
}

func taskEndLine(t tk) string {
	reason := `{"Reason":"Success"}`
	switch t.reason {
	case "", "Success":
	case "TaskKilled":
		reason = `{"Reason":"TaskKilled","Kill Reason":"another attempt succeeded","Accumulator Updates":[]}`
	case "ExceptionFailure":
		reason = `{"Reason":"ExceptionFailure","Class Name":"java.lang.RuntimeException","Description":"boom","Stack Trace":[],"Full Stack Trace":"","Accumulator Updates":[]}`
	default:
		reason = fmt.Sprintf(`{"Reason":%q}`, t.reason)
	}
	metrics := ""
	if !t.noMetrics {
		cpu := fmt.Sprintf(`"Executor CPU Time":%d,`, t.cpuNs)
		if t.noCPU {
			cpu = ""
		}
		metrics = fmt.Sprintf(`,"Task Metrics":{"Executor Deserialize Time":0,"Executor Deserialize CPU Time":%d,"Executor Run Time":%d,%s"Peak Execution Memory":0,"Result Size":100,"JVM GC Time":%d,"Result Serialization Time":%d,"Memory Bytes Spilled":%d,"Disk Bytes Spilled":%d,"Shuffle Read Metrics":{"Remote Blocks Fetched":0,"Local Blocks Fetched":0,"Fetch Wait Time":%d,"Remote Bytes Read":0,"Remote Bytes Read To Disk":0,"Local Bytes Read":0,"Total Records Read":0},"Shuffle Write Metrics":{"Shuffle Bytes Written":0,"Shuffle Write Time":%d,"Shuffle Records Written":0},"Input Metrics":{"Bytes Read":0,"Records Read":0},"Output Metrics":{"Bytes Written":0,"Records Written":0},"Updated Blocks":[]}`,
			t.deserCPUNs, t.runMs, cpu, t.gcMs, t.resSerMs, t.memSpill, t.diskSpill, t.fetchWaitMs, t.writeNs)
	}
	return fmt.Sprintf(`{"Event":"SparkListenerTaskEnd","Stage ID":%d,"Stage Attempt ID":%d,"Task Type":"ResultTask","Task End Reason":%s,"Task Info":%s%s}`,
		t.stage, t.attempt, reason, taskInfo(t, t.finish), metrics)
}

// tasks appends TaskStart and TaskEnd lines in time order (ends first on ties).
func (b *logb) tasks(ts ...tk) *logb {
	type ev struct {
		at   int64
		end  bool
		line string
	}
	var evs []ev
	for _, t := range ts {
		evs = append(evs, ev{t.launch, false, taskStartLine(t)}, ev{t.finish, true, taskEndLine(t)})
	}
	sort.SliceStable(evs, func(i, j int) bool {
		if evs[i].at != evs[j].at {
			return evs[i].at < evs[j].at
		}
		return evs[i].end && !evs[j].end
	})
	for _, e := range evs {
		b.lines = append(b.lines, e.line)
	}
	return b
}

func mustDecode(t testing.TB, line string) sparkevent.Event {
	t.Helper()
	ev, err := sparkevent.DecodeLine([]byte(line))
	if err != nil {
		t.Fatalf("%v\n%s", err, line)
	}
	return ev
}
