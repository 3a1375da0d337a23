package analysis

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// taskSums are computed here straight from the events, independently of
// the timeline code.
type taskSums struct {
	cpu, serde, shuffle, gc, task float64
}

func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))+1e-12
}

// TestRealLogs analyses every real log (plain, zstd, gzip, zip) without
// panicking, and checks conservation: each category summed over intervals
// equals the sum over tasks, and available core time equals Σ cores ×
// executor lifetime.
func TestRealLogs(t *testing.T) {
	root := testkit.Events(t)
	logs := realLogs(t, root)
	if len(logs) < 40 {
		t.Fatalf("only %d logs under %s", len(logs), root)
	}
	for _, path := range logs {
		name, _ := filepath.Rel(root, path)
		if testing.Short() && strings.Contains(name, "nds_q88") {
			continue
		}
		t.Run(name, func(t *testing.T) { checkConservation(t, path) })
	}
}

// executorLife is an executor's cores and life, from the events.
type executorLife struct {
	cores    int
	from, to int64
	open     bool
}

// realLogRun is one read of a real log: the reports of both interval
// modes and what TestRealLogs and TestWhatIfRealLogsReplayToday check
// them against, all taken from the same events.
type realLogRun struct {
	reports [2]Report // fixed-width intervals (DefaultConfig), stage borders
	bad     int       // lines that failed to decode
	sums    taskSums
	lives   []executorLife
	whatIf  whatIfEvents
}

// realLogRuns holds each real log's run once read: decoding is most of
// those tests' time under -race, so a log is decoded once per test binary,
// by whichever of them needs it first, not once per test and mode.
var realLogRuns = struct {
	sync.Mutex
	m map[string]*realLogRun
}{m: map[string]*realLogRun{}}

// readRealLog reads the log at path once, adding each event to an analysis
// of each interval mode and to the independent sums; a read that failed
// the test is not kept.
func readRealLog(t *testing.T, path string) *realLogRun {
	t.Helper()
	realLogRuns.Lock()
	run := realLogRuns.m[path]
	realLogRuns.Unlock()
	if run != nil {
		return run
	}
	run = &realLogRun{whatIf: whatIfEvents{spans: map[stageKey]*launches{}}}
	var apps [2]*App
	for m := range apps {
		cfg := DefaultConfig()
		cfg.StageBorders = m == 1
		apps[m] = New(cfg)
	}
	open := map[string]int{}
	rc := openLog(t, path)
	defer rc.Close()
	run.bad = eachEvent(t, rc, func(ev sparkevent.Event) {
		for _, a := range apps {
			a.Add(ev)
		}
		run.whatIf.add(ev)
		switch e := ev.(type) {
		case *sparkevent.TaskEnd:
			if e.Reason.Reason == "Resubmitted" || e.Task.LaunchTime <= 0 || e.Task.FinishTime-e.Task.LaunchTime > maxTaskSpanMs {
				return
			}
			s := &run.sums
			if e.Task.FinishTime > e.Task.LaunchTime {
				s.task += float64(e.Task.FinishTime-e.Task.LaunchTime) / 1e3
			}
			if m := e.Metrics; m != nil {
				s.cpu += float64(m.ExecutorCPUTime) / 1e9
				s.serde += float64(m.ExecutorDeserializeCPUTime)/1e9 + float64(m.ResultSerializationTime)/1e3
				s.shuffle += float64(m.ShuffleRead.FetchWaitTime)/1e3 + float64(m.ShuffleWrite.WriteTime)/1e9
				s.gc += float64(m.JVMGCTime) / 1e3
			}
		case *sparkevent.ExecutorAdded:
			if i, ok := open[e.ExecutorID]; ok {
				run.lives[i].to, run.lives[i].open = e.Timestamp, false
			}
			open[e.ExecutorID] = len(run.lives)
			run.lives = append(run.lives, executorLife{cores: e.TotalCores, from: e.Timestamp, open: true})
		case *sparkevent.ExecutorRemoved:
			if i, ok := open[e.ExecutorID]; ok {
				run.lives[i].to, run.lives[i].open = e.Timestamp, false
				delete(open, e.ExecutorID)
			}
		}
	})
	for m, a := range apps {
		run.reports[m] = a.Report()
	}
	if !t.Failed() {
		realLogRuns.Lock()
		realLogRuns.m[path] = run
		realLogRuns.Unlock()
	}
	return run
}

// checkConservation checks both interval modes (fixed width, stage
// borders) of one read of the log.
func checkConservation(t *testing.T, path string) {
	run := readRealLog(t, path)
	s, lives := run.sums, run.lives
	if run.bad > 0 && !strings.Contains(path, "malformed") {
		t.Errorf("%d lines failed to decode", run.bad)
	}
	modes := []bool{false, true}
	for m, stageMode := range modes {
		r := run.reports[m]
		if _, err := json.Marshal(r); err != nil {
			t.Fatalf("marshal: %v", err)
		}
		var got taskSums
		var avail float64
		for i, iv := range r.Intervals {
			got.cpu += iv.CPUSeconds
			got.serde += iv.SerdeSeconds
			got.shuffle += iv.ShuffleSeconds
			got.gc += iv.GCSeconds
			got.task += iv.TaskSeconds
			avail += iv.AvailableCoreSeconds
			if iv.End < iv.Start || (i > 0 && iv.Start != r.Intervals[i-1].End) {
				t.Errorf("interval %d [%d, %d) does not follow [%d, %d)", i, iv.Start, iv.End, r.Intervals[i-1].Start, r.Intervals[i-1].End)
				break
			}
		}
		for _, c := range [][3]any{{"cpu", got.cpu, s.cpu}, {"serde", got.serde, s.serde}, {"shuffle", got.shuffle, s.shuffle}, {"gc", got.gc, s.gc}, {"task", got.task, s.task}} {
			if !near(c[1].(float64), c[2].(float64)) {
				t.Errorf("stages=%v %s: Σ intervals %.12g, Σ tasks %.12g", stageMode, c[0], c[1], c[2])
			}
		}
		var want float64
		for _, l := range lives {
			if l.open {
				l.to = max(r.End, l.from)
			}
			want += float64(l.cores) * float64(l.to-l.from) / 1e3
		}
		if r.LocalCores > 0 {
			want += float64(r.LocalCores) * float64(r.End-r.Start) / 1e3
		}
		if !near(avail, want) {
			t.Errorf("stages=%v available core seconds: Σ intervals %.12g, Σ cores × life %.12g", stageMode, avail, want)
		}
	}
}
