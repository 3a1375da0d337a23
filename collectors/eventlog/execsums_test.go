package eventlog

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/sparkglance/sparkglance/internal/sparklog"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// The per-executor series of the collector say what `analyze --json`'s
// executors say, on every real log and on a 90-day streaming log whose
// receiver task runs the whole 90 days (issues 24.3 and 25.1: the
// collector summed tasks itself and dropped tasks over 31 days, which the
// analysis keeps up to a year). Spark's executor summaries count GC time,
// input and shuffle bytes of every task; the driver's GC time is its JVM's
// peak instead, so it is compared on bytes only.
func TestExecutorSeriesMatchAnalyzeJSON(t *testing.T) {
	logs := append(realLogPaths(t), writeStreaming90d(t))
	compared := 0
	for _, path := range logs {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			found, err := sparklog.Discover(path)
			if err != nil || len(found) != 1 {
				t.Skipf("%d logs (%v): one application per case", len(found), err)
			}
			r := referenceReport(t, path, 10*time.Second)
			// Only appId and the executors are read back: the efficiency
			// chart's bars (777,600 of them on the 90-day log) are left out
			// of the round trip, which cost most of this test under -race.
			r.Intervals = nil
			js, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				AppID     string `json:"appId"`
				Executors []struct {
					ID                string  `json:"id"`
					TotalGCTime       float64 `json:"totalGCTime"`
					TotalInputBytes   float64 `json:"totalInputBytes"`
					TotalShuffleRead  float64 `json:"totalShuffleRead"`
					TotalShuffleWrite float64 `json:"totalShuffleWrite"`
				} `json:"executors"`
			}
			if err := json.Unmarshal(js, &doc); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := os.Symlink(path, filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
			w := startWatcher(t, testConfig(dir))
			waitReady(t, w)
			mfs := gather(t, w)
			for _, ex := range doc.Executors {
				got := func(metric string, kv ...string) float64 {
					return executorSeries(t, mfs, metric, doc.AppID, ex.ID, kv...)
				}
				checks := []struct {
					what      string
					got, want float64
				}{
					{"input bytes", got("spark_executor_input_bytes_total"), ex.TotalInputBytes},
					{"shuffle read bytes", got("spark_executor_shuffle_read_bytes_total"), ex.TotalShuffleRead},
					{"shuffle write bytes", got("spark_executor_shuffle_write_bytes_total"), ex.TotalShuffleWrite},
				}
				if ex.ID != "driver" {
					checks = append(checks, struct {
						what      string
						got, want float64
					}{"gc seconds", got("spark_executor_task_time_seconds_total", "category", "gc"), ex.TotalGCTime / 1e3})
				}
				for _, c := range checks {
					if !near(c.got, c.want) {
						t.Errorf("executor %s: %s: series %v, analyze --json %v", ex.ID, c.what, c.got, c.want)
					}
				}
			}
			compared++
		})
	}
	if compared < 30 {
		t.Errorf("compared %d logs, want every real log (at least 30) and the streaming one", compared)
	}
}

// executorSeries is the value of one executor's series (0 when absent:
// an executor without tasks has none).
func executorSeries(t *testing.T, mfs map[string]*dto.MetricFamily, metric, app, exec string, kv ...string) float64 {
	t.Helper()
	labels := map[string]string{"app_id": app, "executor_id": exec}
	for i := 0; i+1 < len(kv); i += 2 {
		labels[kv[i]] = kv[i+1]
	}
	v, _ := series(mfs, metric, labels)
	return v
}

// realLogPaths lists every real log: the main set's files, the files of
// extra/ and its eventlog_v2_* directories.
func realLogPaths(t *testing.T) []string {
	t.Helper()
	root := filepath.Dir(testkit.Events(t, "README.md"))
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), "eventlog_v2_") {
				out = append(out, p)
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".md") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// writeStreaming90d writes a 90-day streaming log: a receiver task on
// executor 1 for the whole 90 days (with GC time and input), and a
// one-task batch every 30 minutes on executor 2.
func writeStreaming90d(t *testing.T) string {
	t.Helper()
	const day = 24 * 3600 * 1000
	t0 := int64(1_700_000_000_000)
	end := t0 + 90*day
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	task := func(stage, id int, exec string, launch, finish, gcMs, inBytes int64) {
		info := fmt.Sprintf(`{"Task ID":%d,"Index":0,"Attempt":0,"Launch Time":%d,"Executor ID":"%s","Host":"h%s","Locality":"PROCESS_LOCAL","Speculative":false,"Getting Result Time":0,"Finish Time":%%d,"Failed":false,"Killed":false}`, id, launch, exec, exec)
		line(`{"Event":"SparkListenerTaskStart","Stage ID":%d,"Stage Attempt ID":0,"Task Info":%s}`, stage, fmt.Sprintf(info, 0))
		line(`{"Event":"SparkListenerTaskEnd","Stage ID":%d,"Stage Attempt ID":0,"Task Type":"ResultTask","Task End Reason":{"Reason":"Success"},"Task Info":%s,"Task Metrics":{"Executor Run Time":%d,"Executor CPU Time":%d,"JVM GC Time":%d,"Input Metrics":{"Bytes Read":%d,"Records Read":1}}}`,
			stage, fmt.Sprintf(info, finish), finish-launch, (finish-launch)*100_000, gcMs, inBytes)
	}
	stage := func(id int, sub, done int64) string {
		return fmt.Sprintf(`{"Stage ID":%d,"Stage Attempt ID":0,"Stage Name":"batch %d","Number of Tasks":1,"Submission Time":%d,"Completion Time":%d}`, id, id, sub, done)
	}
	line(`{"Event":"SparkListenerLogStart","Spark Version":"3.5.1"}`)
	line(`{"Event":"SparkListenerApplicationStart","App Name":"streaming-90d","App ID":"app-streaming-90d","Timestamp":%d,"User":"u"}`, t0)
	for _, id := range []string{"1", "2"} {
		line(`{"Event":"SparkListenerExecutorAdded","Timestamp":%d,"Executor ID":"%s","Executor Info":{"Host":"h%s","Total Cores":2,"Log Urls":{}}}`, t0, id, id)
	}
	// The receiver's job: one stage, one task for the application's life.
	line(`{"Event":"SparkListenerJobStart","Job ID":0,"Submission Time":%d,"Stage Infos":[%s],"Stage IDs":[0]}`, t0+500, stage(0, t0+500, 0))
	line(`{"Event":"SparkListenerStageSubmitted","Stage Info":%s}`, stage(0, t0+500, 0))
	line(`{"Event":"SparkListenerTaskStart","Stage ID":0,"Stage Attempt ID":0,"Task Info":{"Task ID":0,"Index":0,"Attempt":0,"Launch Time":%d,"Executor ID":"1","Host":"h1","Locality":"PROCESS_LOCAL","Speculative":false,"Getting Result Time":0,"Finish Time":0,"Failed":false,"Killed":false}}`, t0+1000)
	id := 1
	for at := t0 + 30*60*1000; at+60_000 < end; at += 30 * 60 * 1000 {
		line(`{"Event":"SparkListenerJobStart","Job ID":%d,"Submission Time":%d,"Stage Infos":[%s],"Stage IDs":[%d]}`, id, at, stage(id, at, 0), id)
		line(`{"Event":"SparkListenerStageSubmitted","Stage Info":%s}`, stage(id, at, 0))
		task(id, id, "2", at+10, at+2010, 20, 1000)
		line(`{"Event":"SparkListenerStageCompleted","Stage Info":%s}`, stage(id, at, at+2100))
		line(`{"Event":"SparkListenerJobEnd","Job ID":%d,"Completion Time":%d,"Job Result":{"Result":"JobSucceeded"}}`, id, at+2100)
		id++
	}
	// The receiver ends with the application: 90 days of GC and input.
	line(`{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task Type":"ResultTask","Task End Reason":{"Reason":"Success"},"Task Info":{"Task ID":0,"Index":0,"Attempt":0,"Launch Time":%d,"Executor ID":"1","Host":"h1","Locality":"PROCESS_LOCAL","Speculative":false,"Getting Result Time":0,"Finish Time":%d,"Failed":false,"Killed":false},"Task Metrics":{"Executor Run Time":%d,"Executor CPU Time":%d,"JVM GC Time":%d,"Input Metrics":{"Bytes Read":%d,"Records Read":1}}}`,
		t0+1000, end-1000, end-2000-t0, int64(3600_000)*1e6, int64(7200_000), int64(5)<<30)
	line(`{"Event":"SparkListenerStageCompleted","Stage Info":%s}`, stage(0, t0+500, end-900))
	line(`{"Event":"SparkListenerJobEnd","Job ID":0,"Completion Time":%d,"Job Result":{"Result":"JobSucceeded"}}`, end-900)
	line(`{"Event":"SparkListenerApplicationEnd","Timestamp":%d}`, end)
	path := filepath.Join(t.TempDir(), "app-streaming-90d")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
