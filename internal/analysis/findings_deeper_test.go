package analysis

import (
	"fmt"
	"slices"
	"testing"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// stragglerStage is one stage on execs one-core executors: task 0 runs
// 10 s, then m tasks of 1 s run on the other slots in waves.
func stragglerStage(execs, m int) []string {
	tasks := []wiTask{{index: 0, launch: 0, finish: 10000, exec: "1"}}
	for i := range m {
		at := int64(i/(execs-1)) * 1000
		tasks = append(tasks, wiTask{index: i + 1, launch: at, finish: at + 1000, exec: fmt.Sprint(i%(execs-1) + 2)})
	}
	return wiLog(execs, 1, 10000, []wiStageRun{{id: 0, sub: 0, done: 10000, tasks: tasks}})
}

// retriedStage: stage 0's first attempt fails after its tasks ran
// lostMs in all (one of them ending in a fetch failure), its second
// attempt succeeds.
func retriedStage(lostMs int64) []string {
	half := lostMs / 2
	return wiLog(2, 1, 30000, []wiStageRun{
		{id: 0, attempt: 0, sub: 0, done: lostMs - half, failure: "FetchFailed(lost shuffle output)", tasks: []wiTask{
			{index: 0, launch: 0, finish: half, exec: "1"},
			{index: 1, launch: 0, finish: lostMs - half, exec: "2", reason: "FetchFailed"},
		}},
		{id: 0, attempt: 1, sub: 20000, done: 21000, tasks: []wiTask{
			{index: 0, launch: 20000, finish: 21000, exec: "1"}, {index: 1, launch: 20000, finish: 21000, exec: "2"},
		}},
	})
}

// withDriver adds spark.driver.memory (when not "") and one stage's
// executor metrics of the driver to a generated log.
func withDriver(lines []string, memory string, heap, minorGC, majorGC int64) []string {
	out := slices.Clone(lines[:3]) // LogStart, EnvironmentUpdate, ApplicationStart
	if memory != "" {
		out = append(out, fmt.Sprintf(`{"Event":"SparkListenerEnvironmentUpdate","JVM Information":{},"Spark Properties":{"spark.master":"yarn","spark.driver.memory":%q},"Hadoop Properties":{},"System Properties":{},"Classpath Entries":{}}`, memory))
	}
	out = append(out, lines[3:len(lines)-1]...)
	out = append(out, fmt.Sprintf(`{"Event":"SparkListenerStageExecutorMetrics","Executor ID":"driver","Stage ID":0,"Stage Attempt ID":0,"Executor Metrics":{"JVMHeapMemory":%d,"JVMOffHeapMemory":1000,"MinorGCCount":3,"MinorGCTime":%d,"MajorGCCount":1,"MajorGCTime":%d}}`, heap, minorGC, majorGC))
	return append(out, lines[len(lines)-1])
}

func TestDeeperFindings(t *testing.T) {
	oneSecond := wiLog(2, 1, 10000, []wiStageRun{{id: 0, sub: 0, done: 1000, tasks: waves(2, 2, 0, 1000, 0)}})
	cases := []struct {
		name  string
		kind  string
		lines []string
		want  int
	}{
		// 8 executors: 30 short tasks beside the straggler fit on 4
		// executors (3 slots × 10 waves) within 10%, 40 need 5.
		{"ideal 4 of 8 executors", KindExecutorCountOversized, stragglerStage(8, 30), 1},
		{"ideal 5 of 8 executors", KindExecutorCountOversized, stragglerStage(8, 40), 0},

		{"failed attempt lost 10 s", KindStageRetries, retriedStage(10000), 1},
		{"failed attempt lost 9.999 s", KindStageRetries, retriedStage(9999), 0},

		// 1g: 90% is 966367641.6 bytes. The wall time is 10 s: 10% is 1 s of GC.
		{"driver heap at 90% of 1g", KindDriverMemoryPressure, withDriver(oneSecond, "1g", 966367642, 10, 10), 1},
		{"driver heap just under 90% of 1g", KindDriverMemoryPressure, withDriver(oneSecond, "1g", 966367641, 10, 10), 0},
		{"driver heap without spark.driver.memory", KindDriverMemoryPressure, withDriver(oneSecond, "", 966367642, 10, 10), 0},
		{"driver GC 10% of the wall time", KindDriverMemoryPressure, withDriver(oneSecond, "", 1000, 600, 400), 1},
		{"driver GC 9.99% of the wall time", KindDriverMemoryPressure, withDriver(oneSecond, "1g", 1000, 600, 399), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := analyzeLines(t, c.lines, DefaultConfig())
			n, f := countKind(r, c.kind)
			if n != c.want {
				t.Fatalf("%d %s findings, want %d; what-if %+v; all findings: %+v", n, c.kind, c.want, r.WhatIf, r.Findings)
			}
			if n > 0 && (f.Advice == "" || len(f.Numbers) == 0) {
				t.Errorf("finding without numbers or advice: %+v", f)
			}
		})
	}
}

func TestStageRetriesNumbers(t *testing.T) {
	r := analyzeLines(t, retriedStage(12000), DefaultConfig())
	want := []StageRetries{{StageID: 0, Attempts: 2, FailedAttempts: 1, LastAttemptID: 1, FetchFailures: 1, LostTaskMs: 12000}}
	if !slices.Equal(r.StageRetries, want) {
		t.Errorf("stage retries %+v, want %+v", r.StageRetries, want)
	}
	_, f := countKind(r, KindStageRetries)
	if f.StageID == nil || *f.StageID != 0 || *f.StageAttemptID != 1 || f.Numbers["lostTaskSeconds"] != 12 || f.Numbers["fetchFailures"] != 1 {
		t.Errorf("%+v", f)
	}
}

func TestDriverMemoryNumbers(t *testing.T) {
	oneSecond := wiLog(2, 1, 10000, []wiStageRun{{id: 0, sub: 0, done: 1000, tasks: waves(2, 2, 0, 1000, 0)}})
	r := analyzeLines(t, withDriver(oneSecond, "2048M", 2<<30, 1500, 500), DefaultConfig())
	if d := r.Driver; d == nil || *d != (DriverMemory{HeapPeakBytes: 2 << 30, HeapMaxBytes: 2 << 30, GCTimeMs: 2000, HasGCTime: true}) {
		t.Fatalf("driver %+v", r.Driver)
	}
	_, f := countKind(r, KindDriverMemoryPressure)
	if f.ExecutorID != "driver" || f.Numbers["heapShare"] != 1 || f.Numbers["gcShare"] != 0.2 {
		t.Errorf("%+v", f)
	}
}

// Retries and the driver on real logs: in tasks_executors_fail, stage
// 238's only attempt fails with two fetch failures (the one real log with
// any); application_1553914137147_0018 carries the driver's executor
// metrics and spark.driver.memory 2g.
func TestDeeperFindingsOnRealLogs(t *testing.T) {
	r := analyzePath(t, testkit.Events(t, "extra/spark-rapids-tools/spark-events-profiling/tasks_executors_fail_compressed_eventlog.zstd"), DefaultConfig())
	if len(r.StageRetries) != 1 {
		t.Fatalf("stage retries %+v, want stage 238 alone", r.StageRetries)
	}
	if sr := r.StageRetries[0]; sr.StageID != 238 || sr.Attempts != 1 || sr.FailedAttempts != 1 || sr.FetchFailures != 2 || sr.LostTaskMs <= 0 {
		t.Errorf("%+v", sr)
	}
	r = analyzePath(t, testkit.Events(t, "application_1553914137147_0018"), DefaultConfig())
	if d := r.Driver; d == nil || d.HeapPeakBytes <= 0 || d.HeapMaxBytes != 2<<30 || !d.HasGCTime || d.GCTimeMs <= 0 {
		t.Errorf("driver of application_1553914137147_0018: %+v", r.Driver)
	}
}
