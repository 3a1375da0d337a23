package analysis

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// Parity with Spark's History Server answers in shared/oracle: every field
// listed below, the ones the report shares with Spark's REST API, must
// equal Spark's.

var stageFields = []string{"stageId", "attemptId", "name", "status", "numTasks", "numActiveTasks",
	"numCompleteTasks", "numFailedTasks", "numKilledTasks", "executorRunTime", "executorCpuTime",
	"executorDeserializeTime", "executorDeserializeCpuTime", "resultSize", "jvmGcTime",
	"resultSerializationTime", "memoryBytesSpilled", "diskBytesSpilled", "peakExecutionMemory",
	"inputBytes", "inputRecords", "outputBytes", "outputRecords", "shuffleFetchWaitTime",
	"shuffleRemoteBytesRead", "shuffleLocalBytesRead", "shuffleReadBytes", "shuffleReadRecords",
	"shuffleWriteBytes", "shuffleWriteTime", "shuffleWriteRecords", "submissionTime",
	"firstTaskLaunchedTime", "completionTime"}

var executorFields = []string{"id", "hostPort", "isActive", "totalCores", "maxTasks", "activeTasks",
	"failedTasks", "completedTasks", "totalTasks", "totalDuration", "totalGCTime", "totalInputBytes",
	"totalShuffleRead", "totalShuffleWrite", "addTime", "removeTime", "removeReason"}

var execStageFields = []string{"taskTime", "failedTasks", "succeededTasks", "killedTasks", "inputBytes",
	"inputRecords", "outputBytes", "outputRecords", "shuffleRead", "shuffleReadRecords", "shuffleWrite",
	"shuffleWriteRecords", "memoryBytesSpilled", "diskBytesSpilled"}

var timeFields = map[string]bool{"submissionTime": true, "firstTaskLaunchedTime": true, "completionTime": true, "addTime": true, "removeTime": true}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// asMap round-trips our value through JSON so both sides compare as JSON.
func asMap(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// sparkTime converts "2015-02-03T16:43:00.906GMT" to epoch ms.
func sparkTime(t *testing.T, s string) float64 {
	t.Helper()
	tm, err := time.Parse("2006-01-02T15:04:05.000GMT", s)
	if err != nil {
		t.Fatalf("time %q: %v", s, err)
	}
	return float64(tm.UnixMilli())
}

func compareFields(t *testing.T, what string, want, got map[string]any, fields []string) {
	t.Helper()
	for _, f := range fields {
		w, inWant := want[f]
		g := got[f]
		if !inWant {
			if g != nil && g != "" && g != float64(0) {
				t.Errorf("%s.%s: Spark has none, we have %v", what, f, g)
			}
			continue
		}
		if timeFields[f] {
			w = sparkTime(t, w.(string))
		}
		if w != g {
			t.Errorf("%s.%s = %v, Spark says %v", what, f, g, w)
		}
	}
}

func stageByKey(r Report) map[[2]int]Stage {
	m := map[[2]int]Stage{}
	for _, s := range r.Stages {
		m[[2]int{s.StageID, s.AttemptID}] = s
	}
	return m
}

func TestOracleLocal1422981780767(t *testing.T) {
	r := analyzePath(t, testkit.Events(t, "local-1422981780767"), DefaultConfig())
	if r.AppID != "local-1422981780767" {
		t.Fatalf("appId %q", r.AppID)
	}
	oracle := func(name string) string { return testkit.Path(t, "oracle", name) }

	var execs []map[string]any
	readJSON(t, oracle("executor_list_json_expectation.json"), &execs)
	if len(r.Executors) != len(execs) {
		t.Fatalf("%d executors, Spark lists %d", len(r.Executors), len(execs))
	}
	for i, want := range execs {
		compareFields(t, "executor "+want["id"].(string), want, asMap(t, r.Executors[i]), executorFields)
	}

	if d := r.Executors[0]; d.TotalDuration != 9011 || d.TotalGCTime != 0 || d.TotalInputBytes != 28000288 {
		t.Errorf("driver: totalDuration %d totalGCTime %d input %d; want 9011, 0, 28000288", d.TotalDuration, d.TotalGCTime, d.TotalInputBytes)
	}
	stages := stageByKey(r)
	for _, file := range []string{"stage_list_json_expectation.json", "complete_stage_list_json_expectation.json", "failed_stage_list_json_expectation.json"} {
		var list []map[string]any
		readJSON(t, oracle(file), &list)
		for _, want := range list {
			k := [2]int{int(want["stageId"].(float64)), int(want["attemptId"].(float64))}
			got, ok := stages[k]
			if !ok {
				t.Errorf("%s: stage %v missing", file, k)
				continue
			}
			compareFields(t, file, want, asMap(t, got), stageFields)
		}
		if file == "stage_list_json_expectation.json" && len(list) != len(r.Stages) {
			t.Errorf("%d stages, Spark lists %d", len(r.Stages), len(list))
		}
	}

	var one []map[string]any
	readJSON(t, oracle("one_stage_json_expectation.json"), &one)
	got := stages[[2]int{1, 0}]
	compareFields(t, "stage 1", one[0], asMap(t, got), stageFields)
	compareExecSummaries(t, one[0], got)
}

func compareExecSummaries(t *testing.T, want map[string]any, got Stage) {
	t.Helper()
	ws := want["executorSummary"].(map[string]any)
	if len(ws) != len(got.ExecutorSummary) {
		t.Errorf("stage %d: %d executor summaries, Spark has %d", got.StageID, len(got.ExecutorSummary), len(ws))
	}
	for id, w := range ws {
		compareFields(t, "executorSummary "+id, w.(map[string]any), asMap(t, got.ExecutorSummary[id]), execStageFields)
	}
}

func TestOracleExcludeOnFailureStage(t *testing.T) {
	r := analyzePath(t, testkit.Events(t, "application_1516285256255_0012"), DefaultConfig())
	var want map[string]any
	readJSON(t, testkit.Path(t, "oracle", "excludeOnFailure_node_for_stage_expectation.json"), &want)
	got, ok := stageByKey(r)[[2]int{0, 0}]
	if !ok {
		t.Fatal("stage 0.0 missing")
	}
	compareFields(t, "stage 0.0", want, asMap(t, got), stageFields)
	compareExecSummaries(t, want, got)
	if got.NumFailedTasks != 4 || got.ExecutorCPUTime != 1163210819 {
		t.Errorf("failed %d cpu %d", got.NumFailedTasks, got.ExecutorCPUTime)
	}
}
