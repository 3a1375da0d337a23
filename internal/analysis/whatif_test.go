package analysis

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/simulate"
)

// wiTask is one task attempt of a generated log.
type wiTask struct {
	index, attempt int
	launch, finish int64
	exec           string
	reason         string // "" = Success
}

// wiStageRun is one stage attempt of a generated log, with its real times.
type wiStageRun struct {
	id, attempt int
	parents     []int
	sub, done   int64
	failure     string
	tasks       []wiTask
}

// wiBase is the generated logs' time 0 (a timestamp of 0 means absent).
const wiBase = 1_000_000

// wiLife is one executor's life in a generated log: from added to
// removed (0: never removed), ms after wiBase.
type wiLife struct{ added, removed int64 }

// wiLog writes a log of jobs (each with its stage attempts) on execs
// executors of cores cores each, all alive from 0 to end; times are ms
// after wiBase.
func wiLog(execs, cores int, end int64, jobs ...[]wiStageRun) []string {
	return wiLogLives(make([]wiLife, execs), cores, end, jobs...)
}

// wiLogLives is wiLog with executors that come and go: executor i+1 lives
// lives[i].
func wiLogLives(lives []wiLife, cores int, end int64, jobs ...[]wiStageRun) []string {
	b := (&logb{}).appStart(wiBase, "yarn")
	info := func(s wiStageRun, extra string) string {
		ps := make([]string, len(s.parents))
		for i, p := range s.parents {
			ps[i] = fmt.Sprint(p)
		}
		return fmt.Sprintf(`{"Stage ID":%d,"Stage Attempt ID":%d,"Stage Name":"stage %d","Number of Tasks":%d,"RDD Info":[],"Parent IDs":[%s],"Details":""%s,"Accumulables":[],"Resource Profile Id":0}`,
			s.id, s.attempt, s.id, len(s.tasks), strings.Join(ps, ","), extra)
	}
	type line struct {
		at    int64
		order int
		text  string
	}
	var lines []line
	for i, l := range lives {
		id := fmt.Sprint(i + 1)
		lines = append(lines, line{l.added, 7, (&logb{}).execAdded(wiBase+l.added, id, cores).lines[0]})
		if l.removed > 0 {
			lines = append(lines, line{l.removed, 6, (&logb{}).execRemoved(wiBase+l.removed, id, "lost").lines[0]})
		}
	}
	var taskID int64
	for j, stages := range jobs {
		var infos, ids []string
		first, last := int64(1<<62), int64(0)
		for _, s := range stages {
			infos = append(infos, info(s, ""))
			ids = append(ids, fmt.Sprint(s.id))
			first, last = min(first, s.sub), max(last, s.done)
		}
		lines = append(lines, line{first, 0, fmt.Sprintf(`{"Event":"SparkListenerJobStart","Job ID":%d,"Submission Time":%d,"Stage Infos":[%s],"Stage IDs":[%s],"Properties":{}}`, j, wiBase+first, strings.Join(infos, ","), strings.Join(ids, ","))})
		for _, s := range stages {
			lines = append(lines, line{s.sub, 1, fmt.Sprintf(`{"Event":"SparkListenerStageSubmitted","Stage Info":%s,"Properties":{}}`, info(s, fmt.Sprintf(`,"Submission Time":%d`, wiBase+s.sub)))})
			extra := fmt.Sprintf(`,"Submission Time":%d,"Completion Time":%d`, wiBase+s.sub, wiBase+s.done)
			if s.failure != "" {
				extra += fmt.Sprintf(`,"Failure Reason":%q`, s.failure)
			}
			lines = append(lines, line{s.done, 4, fmt.Sprintf(`{"Event":"SparkListenerStageCompleted","Stage Info":%s}`, info(s, extra))})
			for _, t := range s.tasks {
				taskID++
				ti := func(finish int64) string {
					return fmt.Sprintf(`{"Task ID":%d,"Index":%d,"Attempt":%d,"Partition ID":%d,"Launch Time":%d,"Executor ID":%q,"Host":"h","Locality":"PROCESS_LOCAL","Speculative":false,"Getting Result Time":0,"Finish Time":%d,"Failed":%t,"Killed":false,"Accumulables":[]}`,
						taskID, t.index, t.attempt, t.index, wiBase+t.launch, t.exec, finish, finish > 0 && t.reason != "")
				}
				reason := `{"Reason":"Success"}`
				if t.reason == "FetchFailed" {
					reason = `{"Reason":"FetchFailed","Block Manager Address":{"Executor ID":"1","Host":"h","Port":1},"Shuffle ID":0,"Map ID":0,"Reduce ID":0,"Message":"lost"}`
				} else if t.reason != "" {
					reason = fmt.Sprintf(`{"Reason":%q}`, t.reason)
				}
				lines = append(lines,
					line{t.launch, 2, fmt.Sprintf(`{"Event":"SparkListenerTaskStart","Stage ID":%d,"Stage Attempt ID":%d,"Task Info":%s}`, s.id, s.attempt, ti(0))},
					line{t.finish, 3, fmt.Sprintf(`{"Event":"SparkListenerTaskEnd","Stage ID":%d,"Stage Attempt ID":%d,"Task Type":"ResultTask","Task End Reason":%s,"Task Info":%s,"Task Metrics":{"Executor Run Time":%d,"Executor CPU Time":0}}`,
						s.id, s.attempt, reason, ti(wiBase+t.finish), t.finish-t.launch)})
			}
		}
		lines = append(lines, line{last, 5, fmt.Sprintf(`{"Event":"SparkListenerJobEnd","Job ID":%d,"Completion Time":%d,"Job Result":{"Result":"JobSucceeded"}}`, j, wiBase+last)})
	}
	// Time order; at one instant ends before starts, as Spark logs them.
	sort.SliceStable(lines, func(i, j int) bool {
		if lines[i].at != lines[j].at {
			return lines[i].at < lines[j].at
		}
		return rank(lines[i].order) < rank(lines[j].order)
	})
	for _, l := range lines {
		b.lines = append(b.lines, l.text)
	}
	return b.appEnd(wiBase + end).lines
}

// rank orders events at one instant: task ends, stage completions, job
// ends and executor removals first, then executor additions, job starts,
// stage submissions and task starts.
func rank(order int) int { return [...]int{5, 6, 7, 0, 1, 2, 3, 4}[order] }

// waves places n tasks of durMs each on slots slots from start, in index
// order onto the earliest free slot: the schedule Spark itself runs.
func waves(n, slots int, start, durMs int64, first int) []wiTask {
	var ts []wiTask
	for i := range n {
		at := start + int64(i/slots)*durMs
		ts = append(ts, wiTask{index: first + i, launch: at, finish: at + durMs, exec: fmt.Sprint(i%slots/2 + 1)})
	}
	return ts
}

func predictions(w *WhatIf) map[int]int64 {
	m := map[int]int64{}
	for _, p := range w.Predictions {
		m[p.Executors] = p.WallMs
	}
	return m
}

func checkPredictions(t *testing.T, w *WhatIf, want map[int]int64) {
	t.Helper()
	got := predictions(w)
	for n, ms := range want {
		if got[n] != ms {
			t.Errorf("%d executors: predicted %d ms, want %d (all: %v)", n, got[n], ms, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("predicted for %v, want exactly %v", got, want)
	}
}

// On 4 executors × 2 cores (8 slots): N executors run ceil(40 / 2N) waves
// of 1 s.
func TestWhatIfOneStageOfEqualTasks(t *testing.T) {
	lines := wiLog(4, 2, 5000, []wiStageRun{{id: 0, sub: 0, done: 5000, tasks: waves(40, 8, 0, 1000, 0)}})
	r := analyzeLines(t, lines, DefaultConfig())
	w := r.WhatIf
	if w == nil {
		t.Fatal("no what-if")
	}
	if w.Executors != 4 || w.CoresPerExecutor != 2 || w.SlotsPerExecutor != 2 || w.WallMs != 5000 || w.DriverMs != 0 || w.ExecutorMs != 5000 {
		t.Errorf("today: %+v", w)
	}
	// ¼× = 1 (20 waves), ½× = 2 (10), 1× = 4 (5), 2× = 8 (3), 4× = 16 (2);
	// 3 executors already take 7 waves, so 4 is the ideal count.
	checkPredictions(t, w, map[int]int64{1: 20000, 2: 10000, 4: 5000, 8: 3000, 16: 2000})
	if w.IdealExecutors != 4 || w.CoreHoursSaved != 0 {
		t.Errorf("ideal %d executors saving %g core-hours, want 4 and 0", w.IdealExecutors, w.CoreHoursSaved)
	}
	if w.CriticalPath.WallMs != 1000 || w.CriticalPath.StageCount != 1 || w.CriticalPath.Stages[0].DurationMs != 1000 {
		t.Errorf("critical path %+v, want stage 0 of 1 s", w.CriticalPath)
	}
	if p := w.Predictions[0]; p.Factor != 0.25 || p.CoreHours != 2*20000/3.6e6 {
		t.Errorf("1 executor: %+v", p)
	}
}

// A chain 0 → 1 in job 0, then job 1's stage 2 submitted 2 s after job 0
// ended (the driver's time, kept): 8 × 1 s, 16 × 0.5 s, 1 × 3 s.
func TestWhatIfChainOfStages(t *testing.T) {
	lines := wiLog(4, 2, 9000,
		[]wiStageRun{
			{id: 0, sub: 0, done: 1000, tasks: waves(8, 8, 0, 1000, 0)},
			{id: 1, parents: []int{0}, sub: 1000, done: 2000, tasks: waves(16, 8, 1000, 500, 0)},
		},
		[]wiStageRun{{id: 2, sub: 4000, done: 7000, tasks: waves(1, 8, 4000, 3000, 0)}},
	)
	r := analyzeLines(t, lines, DefaultConfig())
	w := r.WhatIf
	if w.WallMs != 9000 || w.DriverMs != 4000 || w.ExecutorMs != 5000 {
		t.Errorf("wall %d driver %d executor %d, want 9000, 4000 (2 s between the jobs, 2 s after), 5000", w.WallMs, w.DriverMs, w.ExecutorMs)
	}
	// N=1 (2 slots): 4 s + 4 s + 3 s; N=2: 2 + 2 + 3; N=4: 1 + 1 + 3;
	// N≥8: 1 + 0.5 + 3; plus the driver's 4 s. N=3: 2 + 1.5 + 3 + 4 is
	// over 10% above 9 s, so 4 is the ideal.
	checkPredictions(t, w, map[int]int64{1: 15000, 2: 11000, 4: 9000, 8: 8500, 16: 8500})
	if w.IdealExecutors != 4 {
		t.Errorf("ideal %d, want 4", w.IdealExecutors)
	}
	cp := w.CriticalPath
	if cp.WallMs != 8500 || cp.ExecutorMs != 4500 || cp.StageCount != 3 ||
		fmt.Sprint(cp.Stages) != "[{0 0 1000} {1 0 500} {2 0 3000}]" {
		t.Errorf("critical path %+v, want stages 0, 1, 2 taking 4.5 s + the driver's 4 s", cp)
	}
}

// A straggler: task 0 runs 10 s, fifteen others 1 s each. It alone sets
// the wall time once a second executor takes the rest beside it.
func TestWhatIfStraggler(t *testing.T) {
	tasks := []wiTask{{index: 0, launch: 0, finish: 10000, exec: "1"}}
	for i := 1; i <= 15; i++ {
		at := int64((i-1)/7) * 1000
		tasks = append(tasks, wiTask{index: i, launch: at, finish: at + 1000, exec: fmt.Sprint((i-1)%7/2 + 1)})
	}
	r := analyzeLines(t, wiLog(4, 2, 10000, []wiStageRun{{id: 0, sub: 0, done: 10000, tasks: tasks}}), DefaultConfig())
	w := r.WhatIf
	// N=1: slot 1 runs tasks 1–10 beside the straggler, then 11–15 take
	// three waves on both slots: 13 s. N≥2: the straggler's 10 s.
	checkPredictions(t, w, map[int]int64{1: 13000, 2: 10000, 4: 10000, 8: 10000, 16: 10000})
	if w.IdealExecutors != 2 || w.CriticalPath.WallMs != 10000 {
		t.Errorf("ideal %d, critical path %d ms; want 2 and 10 s", w.IdealExecutors, w.CriticalPath.WallMs)
	}
	// 4 × 2 cores × 10 s less 2 × 2 cores × 10 s.
	if want := 4 * 10000 / 3.6e6 * 2; !near(w.CoreHoursSaved, want-want/2) {
		t.Errorf("core-hours saved %g, want %g", w.CoreHoursSaved, want/2)
	}
	if n, f := countKind(r, KindExecutorCountOversized); n != 1 || f.Numbers["idealExecutors"] != 2 || f.Numbers["executors"] != 4 {
		t.Errorf("%d executor_count_oversized findings: %+v", n, f)
	}
}

// Dynamic allocation: executor 1 (2 cores) from the start, executor 2 (2
// cores) from 2 s; 12 tasks of 1 s. The run took 2 waves on 2 slots, then
// 2 on 4: 4 s, which the replay at today's executors gives exactly (with
// the peak's 4 slots throughout it would be 3 s). N executors scale the
// timeline by N/2: N=1 has 1 slot, then 2 from 2 s: 2 + 5 s; N=4 has 4
// then 8: 2 + 1 s; N=8 has 8 slots: 2 waves.
func TestWhatIfExecutorsAdded(t *testing.T) {
	tasks := waves(4, 2, 0, 1000, 0)
	tasks = append(tasks, waves(8, 4, 2000, 1000, 4)...)
	lines := wiLogLives([]wiLife{{0, 0}, {2000, 0}}, 2, 4000, []wiStageRun{{id: 0, sub: 0, done: 4000, tasks: tasks}})
	w := analyzeLines(t, lines, DefaultConfig()).WhatIf
	if w.Executors != 2 || w.ExecutorMs != 4000 {
		t.Fatalf("today %d executors, %d ms of stages; want 2 and 4 s", w.Executors, w.ExecutorMs)
	}
	checkPredictions(t, w, map[int]int64{1: 7000, 2: 4000, 4: 3000, 8: 2000})
	if w.IdealExecutors != 2 || w.CoreHoursSaved != 0 {
		t.Errorf("ideal %d saving %g core-hours, want 2 and 0", w.IdealExecutors, w.CoreHoursSaved)
	}
	// The cores alive over each predicted run, scaled: today 2 cores for
	// 2 s and 4 for 2 s; N=1 half of 2 × 2 s + 4 × 5 s; N=4 twice 2 × 2 s
	// + 4 × 1 s.
	for n, coreMs := range map[int]float64{1: 12000, 2: 12000, 4: 16000} {
		for _, p := range w.Predictions {
			if p.Executors == n && !near(p.CoreHours, coreMs/3.6e6) {
				t.Errorf("%d executors: %g core-hours, want %g", n, p.CoreHours, coreMs/3.6e6)
			}
		}
	}
}

// A lost executor: executors 1 and 2 (2 cores each) from the start,
// executor 2 lost at 1 s; 8 tasks of 1 s. The run took 1 wave on 4 slots,
// then 2 on the 2 left: 3 s. N=1: 2 slots, then 1: 1 + 6 s; N=4: 8 then
// 4 slots: one wave.
func TestWhatIfExecutorLost(t *testing.T) {
	tasks := waves(4, 4, 0, 1000, 0)
	tasks = append(tasks, waves(4, 2, 1000, 1000, 4)...)
	lines := wiLogLives([]wiLife{{0, 0}, {0, 1000}}, 2, 3000, []wiStageRun{{id: 0, sub: 0, done: 3000, tasks: tasks}})
	w := analyzeLines(t, lines, DefaultConfig()).WhatIf
	checkPredictions(t, w, map[int]int64{1: 7000, 2: 3000, 4: 1000, 8: 1000})
	if w.Executors != 2 || w.IdealExecutors != 2 {
		t.Errorf("today %d executors, ideal %d; want 2 and 2", w.Executors, w.IdealExecutors)
	}
}

// A lost executor's replacement: executor 1 (1 core) runs task 0 from 0
// and is lost at 1 s; executor 2 (1 core) joins at 3 s and runs task 0's
// retry (1 s), then task 1 (1 s): 5 s. The replay runs task 0's attempts
// back to back on one slot with the 2 s no executor was alive between
// them, as the run took; with 2 slots task 1 runs beside it: 4 s.
func TestWhatIfRetryWaitsForReplacement(t *testing.T) {
	tasks := []wiTask{
		{index: 0, launch: 0, finish: 1000, exec: "1", reason: "ExecutorLostFailure"},
		{index: 0, attempt: 1, launch: 3000, finish: 4000, exec: "2"},
		{index: 1, launch: 4000, finish: 5000, exec: "2"},
	}
	lines := wiLogLives([]wiLife{{0, 1000}, {3000, 0}}, 1, 5000, []wiStageRun{{id: 0, sub: 0, done: 5000, tasks: tasks}})
	w := analyzeLines(t, lines, DefaultConfig()).WhatIf
	if w.Executors != 1 || w.ExecutorMs != 5000 {
		t.Fatalf("today %d executors, %d ms of stages; want 1 and 5 s", w.Executors, w.ExecutorMs)
	}
	checkPredictions(t, w, map[int]int64{1: 5000, 2: 4000, 4: 4000})
}

// A locality wait: one executor of 2 cores, 4 tasks of 1 s; tasks 2 and 3
// launched 500 ms after the first two freed their slots. The replay keeps
// that wait with each of them: 1 s + 1.5 s today, as the run took; with
// 4 slots or more all at once, the waited ones taking 1.5 s.
func TestWhatIfLaunchGapKept(t *testing.T) {
	tasks := waves(2, 2, 0, 1000, 0)
	tasks = append(tasks, waves(2, 2, 1500, 1000, 2)...)
	w := analyzeLines(t, wiLog(1, 2, 2500, []wiStageRun{{id: 0, sub: 0, done: 2500, tasks: tasks}}), DefaultConfig()).WhatIf
	checkPredictions(t, w, map[int]int64{1: 2500, 2: 1500, 4: 1500})
	if w.CriticalPath.WallMs != 1500 {
		t.Errorf("critical path %d ms, want the waited task's 1.5 s", w.CriticalPath.WallMs)
	}
}

// Executors excluded for a stage: 4 executors of 1 core, one stage of 12
// tasks of 1 s; after the first wave, at 1 s, stage 0.0 excludes executor
// 3 (logged under both of Spark 3.1's names) and node host-4 (executor
// 4's): the other 8 tasks take 4 waves on executors 1 and 2, 5 s in all.
// The replay caps the stage at the slots of its allowed executors, scaled
// like the executors alive: N=4 is 4 slots, then 2: 1 + 4 s, as the run
// took (3 s without the cap); N=1 1 slot throughout: 12 s; N=2 2 slots,
// then 1: 1 + 10 s; N=8 8, then 4: 1 + 1 s; N=16 16: one wave. N=3 (3,
// then 2 slots: 1 + 5 s) is over 10% above 5 s: 4 is the ideal. The
// excluded executors' idle slots are no launch wait of the tasks.
func TestWhatIfExecutorsExcludedForStage(t *testing.T) {
	tasks := waves(4, 4, 0, 1000, 0)
	for i := range 8 {
		at := 1000 + int64(i/2)*1000
		tasks = append(tasks, wiTask{index: 4 + i, launch: at, finish: at + 1000, exec: fmt.Sprint(i%2 + 1)})
	}
	for i := range 4 {
		tasks[i].exec = fmt.Sprint(i + 1)
	}
	lines := wiLog(4, 1, 5000, []wiStageRun{{id: 0, sub: 0, done: 5000, tasks: tasks}})
	at := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, `"Index":4,`) })
	if at < 0 {
		t.Fatal("no launch of task 4")
	}
	const pkg = `{"Event":"org.apache.spark.scheduler.SparkListener`
	excl := []string{
		fmt.Sprintf(pkg+`ExecutorBlacklistedForStage","time":%d,"executorId":"3","taskFailures":1,"stageId":0,"stageAttemptId":0}`, wiBase+1000),
		fmt.Sprintf(pkg+`ExecutorExcludedForStage","time":%d,"executorId":"3","taskFailures":1,"stageId":0,"stageAttemptId":0}`, wiBase+1000),
		fmt.Sprintf(pkg+`NodeExcludedForStage","time":%d,"hostId":"host-4","executorFailures":1,"stageId":0,"stageAttemptId":0}`, wiBase+1000),
		// Another stage's exclusions do not cap this one.
		fmt.Sprintf(pkg+`ExecutorExcludedForStage","time":%d,"executorId":"1","taskFailures":1,"stageId":7,"stageAttemptId":0}`, wiBase+1000),
	}
	lines = slices.Insert(lines, at, excl...)
	w := analyzeLines(t, lines, DefaultConfig()).WhatIf
	if w.Executors != 4 || w.ExecutorMs != 5000 {
		t.Fatalf("today %d executors, %d ms of stages; want 4 and 5 s", w.Executors, w.ExecutorMs)
	}
	checkPredictions(t, w, map[int]int64{1: 12000, 2: 11000, 4: 5000, 8: 2000, 16: 1000})
	if w.IdealExecutors != 4 || w.CriticalPath.WallMs != 1000 {
		t.Errorf("ideal %d, critical path %d ms; want 4 and 1 s", w.IdealExecutors, w.CriticalPath.WallMs)
	}
}

// Two independent stages submitted together (jobs 0 and 1 at once):
// 8 × 2 s and 8 × 1 s. Job 0's stage takes the slots first.
func TestWhatIfParallelStages(t *testing.T) {
	lines := wiLog(4, 2, 3000,
		[]wiStageRun{{id: 0, sub: 0, done: 2000, tasks: waves(8, 8, 0, 2000, 0)}},
		[]wiStageRun{{id: 1, sub: 0, done: 3000, tasks: waves(8, 8, 2000, 1000, 0)}},
	)
	r := analyzeLines(t, lines, DefaultConfig())
	w := r.WhatIf
	// N=1: 8 + 4 s; N=2: 4 + 2; N=4: 2 + 1; N≥8: both at once, 2 s.
	// N=3: stage 1 waits for 2 s, then 4 of its tasks wait for another
	// 1 s: 4 s, over 10% above 3 s.
	checkPredictions(t, w, map[int]int64{1: 12000, 2: 6000, 4: 3000, 8: 2000, 16: 2000})
	if w.DriverMs != 0 || w.IdealExecutors != 4 || w.CriticalPath.WallMs != 2000 {
		t.Errorf("driver %d ms, ideal %d, critical path %d ms; want 0, 4, 2 s", w.DriverMs, w.IdealExecutors, w.CriticalPath.WallMs)
	}
}

// With fewer executors than today the ideal count is found by search: on
// 16 executors a stage of 16 tasks runs in one wave, and so it does on 8
// executors of 2 slots, the fewest within 10%.
func TestWhatIfIdealBelowTheFactors(t *testing.T) {
	r := analyzeLines(t, wiLog(16, 2, 1000, []wiStageRun{{id: 0, sub: 0, done: 1000, tasks: waves(16, 32, 0, 1000, 0)}}), DefaultConfig())
	w := r.WhatIf
	checkPredictions(t, w, map[int]int64{4: 2000, 8: 1000, 16: 1000, 32: 1000, 64: 1000})
	if w.IdealExecutors != 8 {
		t.Errorf("ideal %d, want 8", w.IdealExecutors)
	}
}

func TestWhatIfAbsentWithoutTasks(t *testing.T) {
	r := analyzeLines(t, (&logb{}).appStart(0, "yarn").execAdded(0, "1", 4).appEnd(1000).lines, DefaultConfig())
	if r.WhatIf != nil {
		t.Errorf("what-if without a stage: %+v", r.WhatIf)
	}
}

func TestParseJVMSize(t *testing.T) {
	for in, want := range map[string]int64{"2g": 2 << 30, "2048M": 2 << 30, "512m": 512 << 20, "1024": 1 << 30, "4G": 4 << 30, "100k": 100 << 10, "1t": 1 << 40, "3gb": 3 << 30} {
		if got, ok := parseJVMSize(in); !ok || got != want {
			t.Errorf("parseJVMSize(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "g", "-1g", "1.5g", "lots", "99999999999999999999g"} {
		if got, ok := parseJVMSize(in); ok {
			t.Errorf("parseJVMSize(%q) = %d, want an error", in, got)
		}
	}
}

// The text report of the chain: driver versus stage time, the critical
// path with its stages, one row per executor count.
func TestWriteTextWhatIf(t *testing.T) {
	lines := wiLog(4, 2, 9000,
		[]wiStageRun{
			{id: 0, sub: 0, done: 1000, tasks: waves(8, 8, 0, 1000, 0)},
			{id: 1, parents: []int{0}, sub: 1000, done: 2000, tasks: waves(16, 8, 1000, 500, 0)},
		},
		[]wiStageRun{{id: 2, sub: 4000, done: 7000, tasks: waves(1, 8, 4000, 3000, 0)}},
	)
	var out strings.Builder
	if err := WriteText(&out, analyzeLines(t, lines, DefaultConfig())); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"What if (the tasks replayed on other executor counts; today 4 executors × 2 cores at most)\n",
		"  wall 9.0s = driver 4.0s (no stage running) + stages 5.0s\n",
		"critical path 8.5s (the wall time with unlimited executors; stages 4.5s of it), 3 stage attempts: 0.0 1.0s, 1.0 500ms, 2.0 3.0s\n",
		// 1 executor: 15 s × 2 cores; 4: 9 s × 8 cores.
		"         1        15s      +67%        0.01\n",
		"         4=      9.0s       +0%        0.02\n",
		"ideal: 4 executors, the fewest predicted within 10% of today's wall time, saving 0 core-hours\n",
		"  (each count replays the executors the run had over time, scaled to that peak)\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in\n%s", want, out.String())
		}
	}
	// A hand-built report with an empty what-if prints without panicking.
	out.Reset()
	if err := WriteText(&out, Report{WhatIf: &WhatIf{Predictions: []Prediction{{}}}}); err != nil || !strings.Contains(out.String(), "What if") {
		t.Errorf("%v\n%s", err, out.String())
	}
}

// A running application's what-if is replayed again once 5 s of its log
// time have passed (not at every snapshot), and at once when it ends.
func TestWhatIfLiveThrottle(t *testing.T) {
	lines := wiLog(4, 2, 200000,
		[]wiStageRun{{id: 0, sub: 0, done: 1000, tasks: waves(8, 8, 0, 1000, 0)}},
		[]wiStageRun{{id: 1, sub: 3000, done: 4000, tasks: waves(8, 8, 3000, 1000, 0)}},
		[]wiStageRun{{id: 2, sub: 30000, done: 31000, tasks: waves(8, 8, 30000, 1000, 0)}},
	)
	a := New(DefaultConfig())
	stagesAt := map[int64]int{} // log time (after wiBase) → critical-path stage attempts then
	for _, l := range lines {
		ev := mustDecode(t, l)
		a.Add(ev)
		if strings.Contains(l, `"SparkListenerJobEnd"`) {
			r := a.Report()
			stagesAt[r.LastEventTime-wiBase] = r.WhatIf.CriticalPath.StageCount
			if r.WhatIf.AsOf > r.LastEventTime || r.LastEventTime-r.WhatIf.AsOf >= whatIfLiveMinMs {
				t.Errorf("at %d the what-if is as of %d", r.LastEventTime, r.WhatIf.AsOf)
			}
		}
	}
	// At 4 s the replay of 1 s is less than 5 s old: still one stage.
	// At 31 s it is 30 s old: replayed, three stages.
	if want := map[int64]int{1000: 1, 4000: 1, 31000: 3}; fmt.Sprint(stagesAt) != fmt.Sprint(want) {
		t.Errorf("critical-path stages by log time %v, want %v", stagesAt, want)
	}
	if w := a.Report().WhatIf; w.AsOf != wiBase+200000 || w.CriticalPath.StageCount != 3 || w.WallMs != 200000 {
		t.Errorf("after the end: %+v", w)
	}
	// A big application's what-if waits longer, in proportion to what its
	// replay holds: its cost stays a small share of the log time.
	if small, big := whatIfLiveEvery(1000), whatIfLiveEvery(1_000_000); small != whatIfLiveMinMs || big != 50_000 {
		t.Errorf("replayed again after %d ms (1,000 tasks), %d ms (1,000,000 tasks)", small, big)
	}
}

// The demo application followed as serve does, a snapshot every second of
// its log: the what-if is never more than 5 s of log time behind it (it
// was a minute: at 60 s it showed the first 9 s), and executor_count_oversized
// is never raised from the first tasks of a running stage (it was at 9 s:
// 7 tasks ended, 31 running, "2 executors of 8 would do"): not before a
// stage completed and the stages ran for a minute.
func TestWhatIfLiveFollowsTheDemo(t *testing.T) {
	cfg := simulate.DefaultConfig()
	var buf bytes.Buffer
	if _, err := simulate.Write(&buf, cfg); err != nil {
		t.Fatal(err)
	}
	a := New(DefaultConfig())
	start := cfg.Start.UnixMilli()
	next, snapshots := start, 0
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		ev := mustDecode(t, sc.Text())
		a.Add(ev)
		if a.lastTime < next {
			continue
		}
		next = a.lastTime + 1000
		r := a.Report()
		if !r.Live || r.WhatIf == nil {
			continue
		}
		snapshots++
		at := time.Duration(r.LastEventTime-start) * time.Millisecond
		if r.LastEventTime-r.WhatIf.AsOf >= whatIfLiveMinMs {
			t.Errorf("at %v the what-if is as of %v", at, time.Duration(r.WhatIf.AsOf-start)*time.Millisecond)
		}
		completed := false
		for _, s := range r.Stages {
			completed = completed || s.Status == StatusComplete
		}
		for _, f := range r.Findings {
			if f.Kind == KindExecutorCountOversized && (!completed || r.WhatIf.ExecutorMs < 60_000) {
				t.Errorf("at %v (stages ran %v, one completed: %v): %s %v", at, time.Duration(r.WhatIf.ExecutorMs)*time.Millisecond, completed, f.Kind, f.Numbers)
			}
		}
	}
	if snapshots < 50 {
		t.Errorf("only %d snapshots of the running demo", snapshots)
	}
}

// ReportContext stops with the context's error once it is done, and what
// it abandons leaves no trace: the next report is that of a fresh App.
func TestReportContextStopsAndKeepsNoPartialWhatIf(t *testing.T) {
	fill := func(a *App) { generateApp(20, 200, 4, 2, a.Add) }
	a := New(DefaultConfig())
	fill(a)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := a.ReportContext(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("ReportContext with a cancelled context: %v, want context.Canceled", err)
	}
	w := a.whatIf(ctx, &Report{Start: 0, End: 1 << 40, LastEventTime: 1 << 40})
	if w != nil {
		t.Errorf("what-if under a cancelled context: %+v, want nil", w)
	}
	fresh := New(DefaultConfig())
	fill(fresh)
	got, want := a.Report(), fresh.Report()
	if !reflect.DeepEqual(got.WhatIf, want.WhatIf) || len(got.Intervals) != len(want.Intervals) {
		t.Errorf("report after a cancelled one differs from a fresh one:\n got %+v\nwant %+v", got.WhatIf, want.WhatIf)
	}
}
