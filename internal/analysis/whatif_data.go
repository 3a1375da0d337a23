package analysis

import (
	"math"
	"slices"
	"strings"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// whatIfMaxBuckets bounds the task durations kept per stage attempt for the
// what-if replay, like the exact duration quantiles: a stage with more
// tasks keeps the sums of runs of consecutive task indices instead (a slot
// runs such a run back to back whenever there are far more tasks than
// slots, which is when a stage has this many).
const whatIfMaxBuckets = 1 << 14

// deeper is what the what-if replay, the critical path and the findings
// about retries and the driver need beyond Spark's own aggregates.
type deeper struct {
	stages  map[stageKey]*wiStage
	stageJ  map[int]int   // stage id → the job that last listed it
	parents map[int][]int // stage id → its parent stage ids
	version int64         // changes whenever the replay's input changes

	driverMemory    int64 // spark.driver.memory in bytes, 0 when not set
	driverHeapPeak  int64 // largest JVMHeapMemory the driver reported
	driverGCPeakMs  int64 // largest MinorGCTime + MajorGCTime the driver reported (cumulative)
	driverMetrics   bool  // the driver reported executor metrics at all
	driverGCMetrics bool  // …including GC times

	// freeMs is how long, up to freeAt, some task slot was free: a stage
	// that waited for its first task while slots were free waited for the
	// scheduler, not for other stages' tasks.
	freeMs, freeAt int64
	// slots caches the task slots of the executors alive, recounted after
	// an executor event or a new core estimate (local[*]).
	slots         int
	slotsStale    bool
	slotsForLocal int
	// freeSince is when each slot free now became free, oldest first, at
	// most the slots alive less the tasks running (fewer when some free
	// slot's start is not known: then it counts as free for longest).
	freeSince []int64
	// noSlotMs is how long, up to noSlotAt, no executor was alive once
	// one had joined (all lost, the replacements still starting); it is
	// noted at every executor event, so it is exact at any instant.
	noSlotMs, noSlotAt int64

	cache wiCache
}

// wiStage is one stage attempt as the replay sees it.
type wiStage struct {
	job                     int
	submission, completion  int64
	firstLaunch, lastFinish int64
	numTasks                int
	failed                  bool
	width                   int      // consecutive task indices summed per bucket
	buckets                 []uint32 // task durations (ms) by task index, Success and failures alike
	tasks                   int64    // task attempts counted
	taskMs                  int64    // their summed durations
	fetchFailed             int      // task ends with reason FetchFailed
	// freeAtSubmission and freeAtLaunch are deeper.freeMs when it was
	// submitted and when its first task started.
	freeAtSubmission, freeAtLaunch int64
	launched                       bool
	firstStart                     int64 // its first task's launch, from its first TaskStart
	// failedAt is, per task index whose last attempt failed, deeper.noSlotMs
	// at that failure: its retry adds the time no executor was alive since.
	failedAt map[int]int64
	// excluded is the executors and nodes excluded for it, each from its
	// time on; excludedFrom the earliest of those times.
	excluded     []wiExclusion
	excludedFrom int64
}

// wiExclusion is an executor (exec) or every executor of a host (host)
// excluded for a stage attempt from t on.
type wiExclusion struct {
	t          int64
	exec, host string
}

func (d *deeper) init() {
	if d.stages == nil {
		d.stages = map[stageKey]*wiStage{}
		d.stageJ = map[int]int{}
		d.parents = map[int][]int{}
	}
}

func (a *App) wiStage(k stageKey) *wiStage {
	a.deep.init()
	s := a.deep.stages[k]
	if s == nil {
		s = &wiStage{job: -1, firstLaunch: math.MaxInt64}
		if j, ok := a.deep.stageJ[k.id]; ok {
			s.job = j
		}
		a.deep.stages[k] = s
	}
	return s
}

func (a *App) noteStageInfo(info *sparkevent.StageInfo) {
	a.deep.init()
	if len(info.ParentIDs) > 0 {
		a.deep.parents[info.StageID] = info.ParentIDs
	}
}

// observeDeeper folds an event into the what-if and finding inputs. It
// keeps only per-stage-attempt numbers and bounded task buckets.
func (a *App) observeDeeper(ev sparkevent.Event) {
	d := &a.deep
	switch e := ev.(type) {
	case *sparkevent.ExecutorAdded:
		a.noteNoSlots(e.Timestamp) // before the App applies it: the count until now
		d.slotsStale = true        // counted at the next task event, after the App has applied this one
	case *sparkevent.ExecutorRemoved:
		a.noteNoSlots(e.Timestamp)
		d.slotsStale = true
	case *sparkevent.EnvironmentUpdate:
		d.slotsStale = true
	case *sparkevent.ApplicationStart:
		a.noteFreeSlots(e.Timestamp)
	case *sparkevent.JobStart:
		a.noteFreeSlots(e.SubmissionTime)
	case *sparkevent.StageSubmitted: // old logs have no time here: freeMs is then as of the last event before
		a.noteFreeSlots(e.Stage.SubmissionTime)
	case *sparkevent.TaskStart:
		a.noteFreeSlots(e.Task.LaunchTime)
		s := a.wiStage(stageKey{e.StageID, e.StageAttemptID})
		if !s.launched {
			s.launched, s.freeAtLaunch, s.firstStart = true, d.freeMs, e.Task.LaunchTime
		}
		a.noteLaunchGap(s, &e.Task)
		a.noteRetryWait(s, &e.Task)
	case *sparkevent.TaskEnd:
		a.noteFreeSlots(e.Task.FinishTime)
		if _, ok := a.running.get(e.Task.TaskID); ok && a.plausible(e.Task.FinishTime) {
			d.freeSince = append(d.freeSince, e.Task.FinishTime)
			d.trimFreeSince(a.running.len() - 1)
		}
	}
	switch e := ev.(type) {
	case *sparkevent.ExecutorAdded:
		// Its slots are free from now on; the oldest free slots are
		// dropped when the tasks running leave fewer.
		if e.ExecutorID != "driver" && a.plausible(e.Timestamp) {
			for range min(max(e.TotalCores/max(a.cpusPerTask, 1), 0), 1024) {
				d.freeSince = append(d.freeSince, e.Timestamp)
			}
		}
	case *sparkevent.EnvironmentUpdate:
		if b, ok := parseJVMSize(e.SparkProperties["spark.driver.memory"]); ok {
			d.driverMemory = b
		}
	case *sparkevent.JobStart:
		d.init()
		for i := range e.StageInfos {
			if info := &e.StageInfos[i]; len(info.ParentIDs) > 0 {
				d.parents[info.StageID] = info.ParentIDs
			}
			d.stageJ[e.StageInfos[i].StageID] = e.JobID
		}
		for _, id := range e.StageIDs {
			d.stageJ[id] = e.JobID
		}
	case *sparkevent.StageSubmitted:
		a.noteStageInfo(&e.Stage)
		s := a.wiStage(stageKey{e.Stage.StageID, e.Stage.AttemptID})
		s.submission, s.numTasks = e.Stage.SubmissionTime, e.Stage.NumTasks
		s.freeAtSubmission = d.freeMs
		if j, ok := d.stageJ[e.Stage.StageID]; ok {
			s.job = j
		}
		d.version++
	case *sparkevent.StageCompleted:
		a.noteStageInfo(&e.Stage)
		s := a.wiStage(stageKey{e.Stage.StageID, e.Stage.AttemptID})
		if s.submission == 0 {
			s.submission = e.Stage.SubmissionTime
		}
		s.completion = e.Stage.CompletionTime
		s.failed = e.Stage.FailureReason != ""
		if s.numTasks == 0 {
			s.numTasks = e.Stage.NumTasks
		}
		d.version++
	case *sparkevent.TaskEnd:
		a.wiTaskEnd(e)
	case *sparkevent.ExecutorExcludedForStage:
		a.noteExclusion(stageKey{e.StageID, e.StageAttemptID}, wiExclusion{t: e.Time, exec: e.ExecutorID})
	case *sparkevent.NodeExcludedForStage:
		a.noteExclusion(stageKey{e.StageID, e.StageAttemptID}, wiExclusion{t: e.Time, host: e.Host})
	case *sparkevent.StageExecutorMetrics:
		if e.ExecutorID == "driver" {
			d.noteDriverMetrics(e.Metrics)
		}
	}
}

// noteExclusion records an executor or node excluded for a stage attempt.
// Spark 3.1+ writes each exclusion under two names: one is kept. At most
// 1024 per stage attempt, more than any cluster's executors and hosts.
func (a *App) noteExclusion(k stageKey, x wiExclusion) {
	if x.t <= 0 || !a.plausible(x.t) {
		return
	}
	s := a.wiStage(k)
	if slices.Contains(s.excluded, x) || len(s.excluded) >= 1024 {
		return
	}
	if len(s.excluded) == 0 || x.t < s.excludedFrom {
		s.excludedFrom = x.t
	}
	s.excluded = append(s.excluded, x)
	a.deep.version++
}

// noteFreeSlots adds the time since the last task or stage event to
// freeMs if, in between, fewer tasks ran than there were slots. Waiting
// for executors to start is not waiting for other stages' tasks.
func (a *App) noteFreeSlots(t int64) {
	d := &a.deep
	if t <= 0 || !a.plausible(t) {
		return
	}
	if local, _, _ := a.localDriverSoFar(false); d.slotsStale || d.slotsForLocal != local {
		d.slots = a.availableCoresNow() / max(a.cpusPerTask, 1)
		d.slotsStale, d.slotsForLocal = false, local
	}
	// No task running counts as free even with no slot known yet (local[*]
	// before its first task, executors still starting).
	if n := a.running.len(); t > d.freeAt && d.freeAt > 0 && (n == 0 || n < d.slots) {
		d.freeMs += t - d.freeAt
	}
	d.freeAt = max(d.freeAt, t)
}

// noteNoSlots adds the time since the last executor event (or task
// failure or retry) to noSlotMs if no executor was alive in between.
func (a *App) noteNoSlots(t int64) {
	d := &a.deep
	if t <= 0 || !a.plausible(t) {
		return
	}
	if d.noSlotAt > 0 && t > d.noSlotAt && a.availableCoresNow() == 0 {
		d.noSlotMs += t - d.noSlotAt
	}
	if a.lifetimes.len() > 0 { // counted from the first executor on
		d.noSlotAt = max(d.noSlotAt, t)
	}
}

// noteLaunchGap adds to a task's duration how long the slot it took had
// been free since its stage's first launch: while a stage has tasks left
// to launch, a free slot waits only for the scheduler (locality waits,
// the driver launching very short tasks one by one), a cost the replay
// keeps with the task. A retry or speculative copy waited for the
// attempt before it, not for a slot, and adds none.
func (a *App) noteLaunchGap(s *wiStage, t *sparkevent.TaskInfo) {
	d := &a.deep
	free := d.slots - a.running.len() // this task is not running yet
	if free <= 0 || t.LaunchTime <= 0 || !a.plausible(t.LaunchTime) {
		return
	}
	d.trimFreeSince(a.running.len())
	since := int64(math.MinInt64) // a free slot whose start is unknown: free for longest
	if len(d.freeSince) >= free {
		since, d.freeSince = d.freeSince[0], d.freeSince[1:]
	}
	// Once executors are excluded for the stage, a free slot may be one
	// it cannot use: the replay caps the stage's tasks instead.
	if t.Attempt > 0 || t.Speculative || (len(s.excluded) > 0 && s.excludedFrom <= t.LaunchTime) {
		return
	}
	if gap := t.LaunchTime - max(since, s.firstStart); gap > 0 && gap <= maxTaskSpanMs {
		s.addDuration(t.Index, gap)
		d.version++
	}
}

// noteRetryWait adds to a retried task the time no executor was alive
// between its failed attempt's end and its launch: the replay runs the
// attempts of an index back to back on one slot, and without this would
// skip the wait for a lost executor's replacement.
func (a *App) noteRetryWait(s *wiStage, t *sparkevent.TaskInfo) {
	at, ok := s.failedAt[t.Index]
	if !ok {
		return
	}
	delete(s.failedAt, t.Index)
	a.noteNoSlots(t.LaunchTime)
	if wait := a.deep.noSlotMs - at; wait > 0 && wait <= maxTaskSpanMs {
		s.addDuration(t.Index, wait)
		a.deep.version++
	}
}

// trimFreeSince keeps the free slots' times to the slots alive less
// running tasks, dropping the oldest: an executor removed idle was free
// for longest.
func (d *deeper) trimFreeSince(running int) {
	if n := len(d.freeSince) - max(d.slots-running, 0); n > 0 {
		d.freeSince = d.freeSince[n:]
	}
}

func (a *App) wiTaskEnd(e *sparkevent.TaskEnd) {
	t := &e.Task
	if t.ExecutorID == "driver" {
		a.deep.noteDriverMetrics(e.ExecutorMetrics)
	}
	// A Resubmitted end repeats a task that already ended; a killed
	// attempt ran beside the one that counted (speculation) or was cut
	// short with its stage.
	switch e.Reason.Reason {
	case "Resubmitted", "TaskKilled":
		return
	}
	if t.LaunchTime <= 0 || t.FinishTime < t.LaunchTime || t.FinishTime-t.LaunchTime > maxTaskSpanMs {
		return
	}
	s := a.wiStage(stageKey{e.StageID, e.StageAttemptID})
	dur := t.FinishTime - t.LaunchTime
	s.firstLaunch = min(s.firstLaunch, t.LaunchTime)
	s.lastFinish = max(s.lastFinish, t.FinishTime)
	s.tasks++
	s.taskMs += dur
	if e.Reason.Reason == "FetchFailed" {
		s.fetchFailed++
	}
	if r := e.Reason.Reason; r != "" && r != "Success" && !t.Speculative && len(s.failedAt) < whatIfMaxBuckets {
		a.noteNoSlots(t.FinishTime)
		if s.failedAt == nil {
			s.failedAt = map[int]int64{}
		}
		s.failedAt[t.Index] = a.deep.noSlotMs
	}
	s.addDuration(t.Index, dur)
	a.deep.version++
}

// addDuration adds a task attempt's duration to the bucket of its index:
// retries of an index run after the attempt that failed, so they add up.
func (s *wiStage) addDuration(index int, dur int64) {
	if s.buckets == nil {
		n := s.numTasks
		if n <= 0 {
			n = 1 // unknown task count: grow with the indices seen
		}
		s.width = (n + whatIfMaxBuckets - 1) / whatIfMaxBuckets
		s.buckets = make([]uint32, min(n, whatIfMaxBuckets))
	}
	b := max(index, 0) / s.width
	if b >= len(s.buckets) {
		if s.numTasks > 0 || b >= whatIfMaxBuckets {
			b %= len(s.buckets)
		} else {
			s.buckets = append(s.buckets, make([]uint32, b+1-len(s.buckets))...)
		}
	}
	s.buckets[b] = uint32(min(int64(s.buckets[b])+dur, math.MaxUint32))
}

func (d *deeper) noteDriverMetrics(m []sparkevent.NamedValue) {
	if len(m) == 0 {
		return
	}
	d.driverMetrics = true
	var gc int64
	hasGC := false
	for _, v := range m {
		switch v.Name {
		case "JVMHeapMemory":
			d.driverHeapPeak = max(d.driverHeapPeak, v.Value)
		case "MinorGCTime", "MajorGCTime":
			gc += max(v.Value, 0)
			hasGC = true
		}
	}
	if hasGC {
		d.driverGCMetrics = true
		d.driverGCPeakMs = max(d.driverGCPeakMs, gc)
	}
}

// parseJVMSize reads a JVM memory size as Spark's spark.driver.memory takes
// it: a number with an optional k, m, g or t suffix (any case, optional
// trailing b); a bare number means MiB.
func parseJVMSize(s string) (int64, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimSuffix(s, "b")
	if s == "" {
		return 0, false
	}
	mult := int64(1 << 20)
	switch s[len(s)-1] {
	case 'k':
		mult = 1 << 10
	case 'm':
		mult = 1 << 20
	case 'g':
		mult = 1 << 30
	case 't':
		mult = 1 << 40
	}
	if s[len(s)-1] < '0' || s[len(s)-1] > '9' {
		s = s[:len(s)-1]
	}
	var n int64
	for _, c := range s {
		if c < '0' || c > '9' || n > math.MaxInt64/(10*mult) {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if n <= 0 {
		return 0, false
	}
	return n * mult, true
}
