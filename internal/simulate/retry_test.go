package simulate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/sparklog"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// logEvent is the part of an event line the retry checks read.
type logEvent struct {
	Event          string
	StageID        *int `json:"Stage ID"`
	StageAttemptID int  `json:"Stage Attempt ID"`
	StageInfo      *struct {
		StageID       int    `json:"Stage ID"`
		AttemptID     int    `json:"Stage Attempt ID"`
		NumTasks      int    `json:"Number of Tasks"`
		Completion    int64  `json:"Completion Time"`
		FailureReason string `json:"Failure Reason"`
	} `json:"Stage Info"`
	Reason *struct {
		Reason string
		BMAddr *struct {
			ExecutorID string `json:"Executor ID"`
		} `json:"Block Manager Address"`
		Shuffle *int   `json:"Shuffle ID"`
		MapID   *int64 `json:"Map ID"`
		MapIdx  *int   `json:"Map Index"`
		Reduce  *int   `json:"Reduce ID"`
		Message string
	} `json:"Task End Reason"`
	Task *struct {
		TaskID     int64  `json:"Task ID"`
		Partition  int    `json:"Partition ID"`
		Launch     int64  `json:"Launch Time"`
		Finish     int64  `json:"Finish Time"`
		ExecutorID string `json:"Executor ID"`
		Failed     bool
	} `json:"Task Info"`
	Metrics json.RawMessage `json:"Task Metrics"`
}

func parseLog(t *testing.T, data []byte) []logEvent {
	t.Helper()
	var evs []logEvent
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		var ev logEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// The scenario retries one stage as Spark does after a shuffle fetch
// failure: attempt 0 is submitted, tasks end with FetchFailed naming the
// lost map output, the attempt completes with a Failure Reason and launches
// nothing more, the parent stage reruns the lost map partitions as its
// attempt 1, and attempt 1 of the failed stage computes every partition
// attempt 0 did not. Small and odd shapes included.
func TestScenarioRetriesAStageAfterFetchFailure(t *testing.T) {
	for _, shape := range [][3]int{{4, 2, 16}, {8, 4, 128}, {2, 1, 3}, {3, 1, 1}} {
		t.Run(fmt.Sprint(shape), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Executors, cfg.CoresPerExecutor, cfg.TasksPerStage = shape[0], shape[1], shape[2]
			var buf bytes.Buffer
			if _, err := Write(&buf, cfg); err != nil {
				t.Fatal(err)
			}
			checkRetry(t, parseLog(t, buf.Bytes()))
		})
	}
}

func checkRetry(t *testing.T, evs []logEvent) {
	t.Helper()
	type key struct{ stage, attempt int }
	taskOf := map[int64]logEvent{} // successful task ends by task id
	var failedStage = -1
	var failedAt int64
	var fetchFailures int
	type stageEvent struct {
		id   int
		what string
	}
	var stageEvents []stageEvent
	done := map[key][]int{}
	numTasks := map[key]int{}
	var last int64
	for i, ev := range evs {
		switch ev.Event {
		case "SparkListenerTaskStart":
			if failedAt != 0 && ev.StageID != nil && *ev.StageID == failedStage && ev.StageAttemptID == 0 {
				t.Errorf("event %d: attempt 0 of stage %d launched a task after it failed", i, failedStage)
			}
		case "SparkListenerTaskEnd":
			k := key{*ev.StageID, ev.StageAttemptID}
			switch ev.Reason.Reason {
			case "Success":
				taskOf[ev.Task.TaskID] = ev
				done[k] = append(done[k], ev.Task.Partition)
			case "FetchFailed":
				fetchFailures++
				r := ev.Reason
				if r.BMAddr == nil || r.Shuffle == nil || r.MapID == nil || r.MapIdx == nil || r.Reduce == nil || !strings.HasPrefix(r.Message, "org.apache.spark.shuffle.FetchFailedException: ") {
					t.Errorf("event %d: FetchFailed lacks Spark's fields: %+v", i, r)
					continue
				}
				if !ev.Task.Failed || ev.Metrics != nil || *r.Reduce != ev.Task.Partition {
					t.Errorf("event %d: a fetch-failed task is Failed, has no Task Metrics and names its own partition as Reduce ID: %+v", i, ev)
				}
				mapTask, ok := taskOf[*r.MapID]
				if !ok || mapTask.Task.Partition != *r.MapIdx || mapTask.Task.ExecutorID != r.BMAddr.ExecutorID || *mapTask.StageID >= k.stage {
					t.Errorf("event %d: Map ID %d / Map Index %d on executor %s is no earlier map task's output", i, *r.MapID, *r.MapIdx, r.BMAddr.ExecutorID)
				}
				if failedStage < 0 {
					failedStage = k.stage
				}
			}
		case "SparkListenerStageSubmitted", "SparkListenerStageCompleted":
			si := ev.StageInfo
			k := key{si.StageID, si.AttemptID}
			numTasks[k] = si.NumTasks
			stageEvents = append(stageEvents, stageEvent{si.StageID,
				fmt.Sprintf("%s %d.%d %t", strings.TrimPrefix(ev.Event, "SparkListenerStage"), si.StageID, si.AttemptID, si.FailureReason != "")})
			if ev.Event == "SparkListenerStageCompleted" && si.FailureReason != "" {
				if si.StageID != failedStage || si.AttemptID != 0 || !strings.Contains(si.FailureReason, "FetchFailedException") {
					t.Errorf("event %d: stage %d.%d failed with %q", i, si.StageID, si.AttemptID, si.FailureReason)
				}
				failedAt = si.Completion
			}
			if si.Completion != 0 {
				last = max(last, si.Completion)
			}
		}
	}
	if failedStage < 0 || fetchFailures == 0 {
		t.Fatal("no task ended with FetchFailed")
	}
	var order []string // stage events of the retried stage and its parent, in log order
	for _, e := range stageEvents {
		if e.id == failedStage || e.id == failedStage-1 {
			order = append(order, e.what)
		}
	}
	// The failed attempt's StageCompleted comes right after its first
	// FetchFailed task end; the rest of the retry follows.
	want := []string{
		fmt.Sprintf("Submitted %d.0 false", failedStage-1),
		fmt.Sprintf("Completed %d.0 false", failedStage-1),
		fmt.Sprintf("Submitted %d.0 false", failedStage),
		fmt.Sprintf("Completed %d.0 true", failedStage),
		fmt.Sprintf("Submitted %d.1 false", failedStage-1),
		fmt.Sprintf("Completed %d.1 false", failedStage-1),
		fmt.Sprintf("Submitted %d.1 false", failedStage),
		fmt.Sprintf("Completed %d.1 false", failedStage),
	}
	if !slices.Equal(order, want) {
		t.Errorf("stage events of the retry:\n%s\nwant\n%s", strings.Join(order, "\n"), strings.Join(want, "\n"))
	}
	all := append(done[key{failedStage, 0}], done[key{failedStage, 1}]...)
	slices.Sort(all)
	if all = slices.Compact(all); len(all) != numTasks[key{failedStage, 0}] {
		t.Errorf("attempts 0 and 1 of stage %d computed %d distinct partitions, want %d", failedStage, len(all), numTasks[key{failedStage, 0}])
	}
	if got := len(done[key{failedStage, 1}]); got != numTasks[key{failedStage, 1}] || got == 0 {
		t.Errorf("attempt 1 of stage %d: %d successful tasks of %d", failedStage, got, numTasks[key{failedStage, 1}])
	}
	if got := len(done[key{failedStage - 1, 1}]); got == 0 || got != numTasks[key{failedStage - 1, 1}] {
		t.Errorf("the parent stage reran %d of %d lost map partitions", got, numTasks[key{failedStage - 1, 1}])
	}
}

// The analysis sees the retry as the History Server does: the failed
// attempt with its reason and failed tasks, then both attempts 1 complete.
func TestAnalysisShowsTheRetriedStage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app-20261130090000-0001")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Executors, cfg.CoresPerExecutor, cfg.TasksPerStage = 4, 2, 16
	if _, err := Write(f, cfg); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	logs, err := sparklog.Discover(path)
	if err != nil || len(logs) != 1 {
		t.Fatalf("Discover: %v, %d logs", err, len(logs))
	}
	app := analysis.New(analysis.DefaultConfig())
	if _, err := sparklog.Read(logs[0], sparklog.HandlerFuncs{
		OnEvent:   func(_ sparklog.Position, ev sparkevent.Event) error { app.Add(ev); return nil },
		OnProblem: func(p sparklog.Problem) { t.Errorf("problem: %v", p) },
	}, sparklog.Options{}); err != nil {
		t.Fatal(err)
	}
	attempts := map[int][]analysis.Stage{}
	for _, st := range app.Report().Stages {
		attempts[st.StageID] = append(attempts[st.StageID], st)
	}
	var retried int
	for id, sts := range attempts {
		if len(sts) < 2 || sts[0].Status != analysis.StatusFailed {
			continue
		}
		retried++
		failed, rerun := sts[0], sts[1]
		if failed.NumFailedTasks < 1 || !strings.Contains(failed.FailureReason, "FetchFailedException") || rerun.AttemptID != 1 || rerun.Status != analysis.StatusComplete {
			t.Errorf("stage %d: attempt 0 %s with %d failed tasks (%q), attempt %d %s", id, failed.Status, failed.NumFailedTasks,
				failed.FailureReason, rerun.AttemptID, rerun.Status)
		}
		if parent := attempts[id-1]; len(parent) != 2 || parent[1].Status != analysis.StatusComplete {
			t.Errorf("stage %d, the parent of the retried stage: %d attempts, want 2 complete", id-1, len(parent))
		}
	}
	if retried != 1 {
		t.Errorf("%d stages with a failed attempt 0 and a retry, want 1", retried)
	}
}
