package analysis

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
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

// checkConservation checks both interval modes (fixed width, stage
// borders) on one read of the log: each event is added to an analysis of
// each mode, so the log is decoded once, not once per mode.
func checkConservation(t *testing.T, path string) {
	modes := []bool{false, true}
	apps := make([]*App, len(modes))
	for m, stageMode := range modes {
		cfg := DefaultConfig()
		cfg.StageBorders = stageMode
		apps[m] = New(cfg)
	}
	var s taskSums
	type life struct {
		cores    int
		from, to int64
		open     bool
	}
	var lives []life
	open := map[string]int{}
	rc := openLog(t, path)
	defer rc.Close()
	bad := eachEvent(t, rc, func(ev sparkevent.Event) {
		for _, a := range apps {
			a.Add(ev)
		}
		switch e := ev.(type) {
		case *sparkevent.TaskEnd:
			if e.Reason.Reason == "Resubmitted" || e.Task.LaunchTime <= 0 || e.Task.FinishTime-e.Task.LaunchTime > maxTaskSpanMs {
				return
			}
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
				lives[i].to, lives[i].open = e.Timestamp, false
			}
			open[e.ExecutorID] = len(lives)
			lives = append(lives, life{cores: e.TotalCores, from: e.Timestamp, open: true})
		case *sparkevent.ExecutorRemoved:
			if i, ok := open[e.ExecutorID]; ok {
				lives[i].to, lives[i].open = e.Timestamp, false
				delete(open, e.ExecutorID)
			}
		}
	})
	if bad > 0 && !strings.Contains(path, "malformed") {
		t.Errorf("%d lines failed to decode", bad)
	}
	for m, stageMode := range modes {
		r := apps[m].Report()
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
