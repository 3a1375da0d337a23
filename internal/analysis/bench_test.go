package analysis

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// generateApp streams a realistic application into add: executors × cores
// slots, stages run one after another, each stage's tasks list-scheduled
// on the slots with durations of 0.2–5 s (a few stragglers), events in time
// order. It returns the number of tasks.
func generateApp(stages, tasksPerStage, executors, cores int, add func(sparkevent.Event)) int {
	rng := rand.New(rand.NewPCG(1, 2))
	t0 := int64(1_700_000_000_000)
	add(&sparkevent.LogStart{SparkVersion: "3.5.1"})
	add(&sparkevent.EnvironmentUpdate{SparkProperties: map[string]string{"spark.master": "yarn"}})
	add(&sparkevent.ApplicationStart{AppName: "generated", AppID: "application_1_0001", Timestamp: t0})
	ids := make([]string, executors)
	for i := range ids {
		ids[i] = fmt.Sprint(i + 1)
		add(&sparkevent.ExecutorAdded{Timestamp: t0 + 1000, ExecutorID: ids[i], Host: "host" + ids[i], TotalCores: cores})
	}
	type ev struct {
		at  int64
		end bool
		idx int
	}
	slots := make([]int64, executors*cores)
	now := t0 + 2000
	taskID := int64(0)
	evs := make([]ev, 0, 2*tasksPerStage)
	launch := make([]int64, tasksPerStage)
	finish := make([]int64, tasksPerStage)
	slotOf := make([]int, tasksPerStage)
	for s := range stages {
		info := sparkevent.StageInfo{StageID: s, Name: fmt.Sprintf("stage %d", s), NumTasks: tasksPerStage, SubmissionTime: now}
		add(&sparkevent.JobStart{JobID: s, SubmissionTime: now, StageInfos: []sparkevent.StageInfo{info}})
		add(&sparkevent.StageSubmitted{Stage: info})
		for i := range slots {
			slots[i] = now
		}
		evs = evs[:0]
		for i := range tasksPerStage {
			k := i % len(slots)
			d := 200 + rng.Int64N(4800)
			if rng.IntN(1000) == 0 {
				d *= 10 // straggler
			}
			launch[i], finish[i], slotOf[i] = slots[k], slots[k]+d, k
			slots[k] = finish[i] + 5
			evs = append(evs, ev{launch[i], false, i}, ev{finish[i], true, i})
		}
		slices.SortFunc(evs, func(x, y ev) int { return cmp.Compare(x.at, y.at) })
		base := taskID
		for _, e := range evs {
			ti := sparkevent.TaskInfo{TaskID: base + int64(e.idx), Index: e.idx, LaunchTime: launch[e.idx], ExecutorID: ids[slotOf[e.idx]/cores]}
			if !e.end {
				add(&sparkevent.TaskStart{StageID: s, Task: ti})
				continue
			}
			ti.FinishTime = finish[e.idx]
			d := finish[e.idx] - launch[e.idx]
			add(&sparkevent.TaskEnd{StageID: s, Reason: sparkevent.TaskEndReason{Reason: "Success"}, Task: ti, Metrics: &sparkevent.TaskMetrics{
				ExecutorRunTime: d - 20, ExecutorCPUTime: d * 700_000, HasExecutorCPUTime: true, ExecutorDeserializeCPUTime: 5_000_000,
				JVMGCTime: d / 20, ResultSerializationTime: 1, MemoryBytesSpilled: int64(rng.IntN(2)) << 20,
				ShuffleRead:  sparkevent.ShuffleReadMetrics{FetchWaitTime: d / 50, LocalBytesRead: 1 << 20},
				ShuffleWrite: sparkevent.ShuffleWriteMetrics{BytesWritten: 1 << 20, WriteTime: 3_000_000},
			}})
		}
		taskID += int64(tasksPerStage)
		now = slices.Max(slots) + 100
		info.CompletionTime = now
		add(&sparkevent.StageCompleted{Stage: info})
		add(&sparkevent.JobEnd{JobID: s, CompletionTime: now, Result: "JobSucceeded"})
	}
	add(&sparkevent.ApplicationEnd{Timestamp: now + 1000})
	return int(taskID)
}

// BenchmarkAnalyze1MTasks streams a generated 1M-task application (200
// stages × 5000 tasks on 50 executors × 8 cores) into Add and reports the
// heap in use afterwards, with the App still alive.
func BenchmarkAnalyze1MTasks(b *testing.B) {
	for b.Loop() {
		a := New(DefaultConfig())
		n := generateApp(200, 5000, 50, 8, a.Add)
		r := a.Report()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heapMB")
		b.ReportMetric(float64(n), "tasks")
		b.ReportMetric(float64(len(r.Intervals)), "intervals")
		runtime.KeepAlive(a)
	}
}

// TestGeneratedSmoke is the benchmark's smoke version: 20k tasks, with the
// generator's sums checked against the report.
func TestGeneratedSmoke(t *testing.T) {
	a := New(DefaultConfig())
	n := generateApp(4, 5000, 10, 8, a.Add)
	r := a.Report()
	if r.Totals.Tasks != int64(n) || len(r.Stages) != 4 || r.Stages[3].NumCompleteTasks != 5000 {
		t.Fatalf("tasks %d/%d stages %d", r.Totals.Tasks, n, len(r.Stages))
	}
	var cpu float64
	for _, iv := range r.Intervals {
		cpu += iv.CPUSeconds
		if iv.Efficiency > 1 {
			t.Errorf("efficiency %.3f > 1 at %d", iv.Efficiency, iv.Start)
		}
	}
	if !near(cpu, r.Totals.CPUSeconds) {
		t.Errorf("cpu %.9g vs %.9g", cpu, r.Totals.CPUSeconds)
	}
	if q := r.Stages[0].TaskDurations; q == nil || q.Min < 200 || q.Median < 2000 || q.Median > 3200 {
		t.Errorf("stage 0 durations %+v", q)
	}
}

// BenchmarkAnalyzeReal measures decoding alone and decoding plus analysis
// over the largest real log (142 MB decoded, held in memory so the codec
// is not measured). Compare the two ns/op for the analysis overhead.
func BenchmarkAnalyzeReal(b *testing.B) {
	path := testkit.Events(b, "extra/spark-rapids-tools/spark-events-qualification/nds_q88_photon_db_13_3.zstd")
	rc := openLog(b, path)
	data, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, analyse bool) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			d := sparkevent.NewDecoder()
			var a *App
			if analyse {
				a = New(DefaultConfig())
			}
			rest := data
			for len(rest) > 0 {
				line := rest
				if i := bytes.IndexByte(rest, '\n'); i >= 0 {
					line, rest = rest[:i], rest[i+1:]
				} else {
					rest = nil
				}
				if len(line) == 0 {
					continue
				}
				ev, err := d.Decode(line)
				if err != nil || a == nil {
					continue
				}
				a.Add(ev)
			}
			if a != nil {
				_ = a.Report()
			}
		}
	}
	b.Run("decode", func(b *testing.B) { run(b, false) })
	b.Run("decode+analyze", func(b *testing.B) { run(b, true) })
}

const dayMs = 24 * 3600 * 1000

// generateStreaming streams a streaming-style application into add: one
// micro-batch every batchMs for days, each a job of one stage with four
// short tasks on two executors, events in time order. It returns the
// number of tasks.
func generateStreaming(days int, batchMs int64, add func(sparkevent.Event)) int {
	t0 := int64(1_700_000_000_000)
	add(&sparkevent.LogStart{SparkVersion: "3.5.1"})
	add(&sparkevent.EnvironmentUpdate{SparkProperties: map[string]string{"spark.master": "yarn"}})
	add(&sparkevent.ApplicationStart{AppName: "streaming", AppID: "application_1_0002", Timestamp: t0})
	for _, id := range []string{"1", "2"} {
		add(&sparkevent.ExecutorAdded{Timestamp: t0, ExecutorID: id, Host: "host" + id, TotalCores: 2})
	}
	const tasksPerBatch = 4
	end := t0 + int64(days)*dayMs
	taskID := int64(0)
	batch := 0
	for now := t0 + 1000; now+batchMs <= end; now += batchMs {
		info := sparkevent.StageInfo{StageID: batch, Name: "foreachBatch at Stream.scala:42", NumTasks: tasksPerBatch, SubmissionTime: now}
		add(&sparkevent.JobStart{JobID: batch, SubmissionTime: now, StageInfos: []sparkevent.StageInfo{info}})
		add(&sparkevent.StageSubmitted{Stage: info})
		for i := range tasksPerBatch {
			add(&sparkevent.TaskStart{StageID: batch, Task: sparkevent.TaskInfo{TaskID: taskID + int64(i), Index: i, LaunchTime: now + 10, ExecutorID: []string{"1", "2"}[i%2]}})
		}
		for i := range tasksPerBatch {
			d := int64(200 + 50*i)
			add(&sparkevent.TaskEnd{StageID: batch, Reason: sparkevent.TaskEndReason{Reason: "Success"},
				Task:    sparkevent.TaskInfo{TaskID: taskID + int64(i), Index: i, LaunchTime: now + 10, FinishTime: now + 10 + d, ExecutorID: []string{"1", "2"}[i%2]},
				Metrics: &sparkevent.TaskMetrics{ExecutorRunTime: d, ExecutorCPUTime: d * 800_000, HasExecutorCPUTime: true, JVMGCTime: d / 50}})
		}
		taskID += tasksPerBatch
		info.CompletionTime = now + 500
		add(&sparkevent.StageCompleted{Stage: info})
		add(&sparkevent.JobEnd{JobID: batch, CompletionTime: now + 500, Result: "JobSucceeded"})
		batch++
	}
	add(&sparkevent.ApplicationEnd{Timestamp: end})
	return int(taskID)
}

// BenchmarkLongRunning analyses long applications at the default 10 s
// intervals, past the timeline's 200,000-interval (23-day) window: a
// streaming-style log (a micro-batch every 30 s) and a single task that
// runs the whole time, as a streaming receiver does.
func BenchmarkLongRunning(b *testing.B) {
	for _, days := range []int{24, 30, 90} {
		b.Run(fmt.Sprintf("streaming-%dd", days), func(b *testing.B) {
			for b.Loop() {
				a := New(DefaultConfig())
				n := generateStreaming(days, 30_000, a.Add)
				r := a.Report()
				b.ReportMetric(float64(n), "tasks")
				b.ReportMetric(float64(len(r.Intervals)), "intervals")
			}
		})
		b.Run(fmt.Sprintf("single-task-%dd", days), func(b *testing.B) {
			t0 := int64(1_700_000_000_000)
			for b.Loop() {
				a := New(DefaultConfig())
				a.Add(&sparkevent.ApplicationStart{AppID: "app", Timestamp: t0})
				a.Add(&sparkevent.ExecutorAdded{Timestamp: t0, ExecutorID: "1", TotalCores: 1})
				a.Add(&sparkevent.TaskStart{Task: sparkevent.TaskInfo{TaskID: 1, ExecutorID: "1", LaunchTime: t0}})
				a.Add(&sparkevent.TaskEnd{Reason: sparkevent.TaskEndReason{Reason: "Success"},
					Task:    sparkevent.TaskInfo{TaskID: 1, ExecutorID: "1", LaunchTime: t0, FinishTime: t0 + int64(days)*dayMs},
					Metrics: &sparkevent.TaskMetrics{ExecutorCPUTime: int64(days) * dayMs * 1e6, HasExecutorCPUTime: true}})
				a.Add(&sparkevent.ApplicationEnd{Timestamp: t0 + int64(days)*dayMs})
				r := a.Report()
				b.ReportMetric(float64(len(r.Intervals)), "intervals")
			}
		})
	}
}

// generateManyExecutors streams an application with n single-core
// executors, added one a millisecond, and one task on each (as the log of
// issue 24.11): every executor event then comes at a new time, when the
// analysis counts the cores available.
func generateManyExecutors(n int, add func(sparkevent.Event)) {
	t0 := int64(1_700_000_000_000)
	add(&sparkevent.ApplicationStart{AppName: "many", AppID: "app-many", Timestamp: t0})
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprint(i + 1)
		add(&sparkevent.ExecutorAdded{Timestamp: t0 + 1000 + int64(i), ExecutorID: ids[i], Host: "h", TotalCores: 1})
	}
	start := t0 + 2000 + int64(n)
	info := sparkevent.StageInfo{NumTasks: n, SubmissionTime: start}
	add(&sparkevent.JobStart{SubmissionTime: start, StageInfos: []sparkevent.StageInfo{info}})
	add(&sparkevent.StageSubmitted{Stage: info})
	for i := range n {
		add(&sparkevent.TaskStart{Task: sparkevent.TaskInfo{TaskID: int64(i), Index: i, LaunchTime: start + 1000 + int64(i/1000), ExecutorID: ids[i]}})
	}
	for i := range n {
		launch := start + 1000 + int64(i/1000)
		add(&sparkevent.TaskEnd{Reason: sparkevent.TaskEndReason{Reason: "Success"},
			Task:    sparkevent.TaskInfo{TaskID: int64(i), Index: i, LaunchTime: launch, FinishTime: launch + 1000, ExecutorID: ids[i]},
			Metrics: &sparkevent.TaskMetrics{ExecutorRunTime: 900, ExecutorCPUTime: 8e8, HasExecutorCPUTime: true, JVMGCTime: 10, MemoryBytesSpilled: int64(i%7) << 20}})
	}
	end := start + 3000 + int64(n/1000)
	info.CompletionTime = end
	add(&sparkevent.StageCompleted{Stage: info})
	add(&sparkevent.JobEnd{CompletionTime: end, Result: "JobSucceeded"})
	add(&sparkevent.ApplicationEnd{Timestamp: end + 1000})
}

// BenchmarkManyExecutors analyses one application with many single-core
// executors, one task each (issue 24.11: the cost per event must not grow
// with the executors open), and 1M tasks on 5,000 executors against one.
func BenchmarkManyExecutors(b *testing.B) {
	for _, n := range []int{10_000, 30_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("executors-%d", n), func(b *testing.B) {
			for b.Loop() {
				a := New(DefaultConfig())
				generateManyExecutors(n, a.Add)
				_ = a.Report()
			}
		})
	}
	for _, execs := range []int{1, 5000} {
		b.Run(fmt.Sprintf("1M-tasks-on-%d", execs), func(b *testing.B) {
			for b.Loop() {
				a := New(DefaultConfig())
				generateApp(1, 1_000_000, execs, 1, a.Add)
				_ = a.Report()
			}
		})
	}
}
