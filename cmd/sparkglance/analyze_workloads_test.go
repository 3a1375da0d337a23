package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/simulate"
)

// analyzedRun is what the tests read of an analyze --json document.
type analyzedRun struct {
	AppID              string             `json:"appId"`
	Workload           string             `json:"workload"`
	Findings           []analysis.Finding `json:"findings"`
	WorkloadComparison *struct {
		Run      string `json:"run"`
		Previous int    `json:"previousRuns"`
		Baseline *struct {
			Runs    int                `json:"runs"`
			Values  map[string]float64 `json:"values"`
			Closest string             `json:"closestRun"`
		} `json:"baseline"`
		Ratios []struct {
			Measure  string  `json:"measure"`
			Value    float64 `json:"value"`
			Baseline float64 `json:"baseline"`
			Ratio    float64 `json:"ratio"`
		} `json:"ratios"`
		Regressed []struct {
			Measure string `json:"measure"`
		} `json:"regressed"`
		Explained []struct {
			Measure string `json:"measure"`
		} `json:"explainedByInput"`
		Why     []string `json:"why"`
		Changed *struct {
			Run        string `json:"run"`
			Properties []struct {
				Name string `json:"name"`
				Base string `json:"base"`
				New  string `json:"new"`
			} `json:"properties"`
			ExecutorChanges []string `json:"executorChanges"`
		} `json:"changedSincePrevious"`
		Stages []struct {
			Key     string `json:"key"`
			DeltaMs int64  `json:"deltaMs"`
		} `json:"stages"`
	} `json:"workloadComparison"`
}

// analyze --json of a workload's runs, given newest first (so that each
// run's earlier runs are read after it), gives each run its comparison
// with the runs of its workload that started before it, as the text
// output judges them; a run of a workload of its own has none.
func TestAnalyzeJSONWorkloadComparison(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs")
	if code := quiet(t, func() int { return realMain([]string{"simulate", "--workload-runs", "10", "--out", dir}) }); code != 0 {
		t.Fatalf("simulate exit %d", code)
	}
	other := filepath.Join(t.TempDir(), "app-20261130090000-9999")
	if code := quiet(t, func() int { return realMain([]string{"simulate", "--out", other}) }); code != 0 {
		t.Fatal(code)
	}
	data, err := os.ReadFile(other)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, bytes.ReplaceAll(data, []byte("app-20261130090000-0001"), []byte("app-20261130090000-9999")), 0o644); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 10 {
		t.Fatalf("%d runs written: %v", len(entries), err)
	}
	args := []string{"analyze", "--json"}
	for _, e := range slices.Backward(entries) {
		args = append(args, filepath.Join(dir, e.Name()))
	}
	args = append(args, other)
	var docs []analyzedRun
	runJSON(t, &docs, args...)
	if len(docs) != 11 {
		t.Fatalf("%d documents", len(docs))
	}
	// In input order: newest first, then the other job's run.
	byRun := map[int]analyzedRun{}
	for i, d := range docs[:10] {
		n := 10 - i
		if want := entries[n-1].Name(); d.AppID != want {
			t.Fatalf("document %d is %s, want %s", i, d.AppID, want)
		}
		byRun[n] = d
	}
	if docs[10].WorkloadComparison != nil {
		t.Errorf("the one run of another job has a workload comparison: %+v", docs[10].WorkloadComparison)
	}
	for n := 1; n <= 10; n++ {
		wc := byRun[n].WorkloadComparison
		if wc == nil {
			t.Fatalf("run %d: no workload comparison", n)
		}
		if wc.Previous != n-1 || (wc.Baseline != nil) != (n > 3) {
			t.Errorf("run %d: %d previous runs, baseline %+v", n, wc.Previous, wc.Baseline)
		}
		hasFinding := slices.ContainsFunc(byRun[n].Findings, func(f analysis.Finding) bool { return f.Kind == analysis.KindWorkloadRegression })
		if want := n == 8 || n == 9; hasFinding != want {
			t.Errorf("run %d: workload_regression finding %v, want %v", n, hasFinding, want)
		}
	}
	// Run 8: the property change made the join 3× slower.
	slow := byRun[8].WorkloadComparison
	var regressed []string
	for _, c := range slow.Regressed {
		regressed = append(regressed, c.Measure)
	}
	if !slices.Equal(regressed, []string{"wall_time", "core_hours", "cost"}) || slow.Baseline.Runs != 7 {
		t.Errorf("run 8 regressed on %v against %d runs", regressed, slow.Baseline.Runs)
	}
	if c := slow.Changed; c == nil || len(c.Properties) != 1 || c.Properties[0].Name != simulate.WorkloadSlowProperty ||
		c.Properties[0].Base != "200" || c.Properties[0].New != "2000" || c.Run != byRun[7].AppID {
		t.Errorf("run 8 changed since the previous run: %+v", c)
	}
	if len(slow.Stages) == 0 || slow.Stages[0].Key != simulate.WorkloadSlowStage || slow.Stages[0].DeltaMs <= 0 {
		t.Errorf("run 8 where the time went: %+v", slow.Stages)
	}
	f := byRun[8].Findings[len(byRun[8].Findings)-1]
	if f.Kind != analysis.KindWorkloadRegression || f.Numbers["alert"] != 1 || !strings.Contains(f.Advice, "spark.sql.shuffle.partitions: 200 → 2000") ||
		!strings.Contains(f.Advice, "where the time went") {
		t.Errorf("run 8 finding %+v", f)
	}
	// The baseline is the median of the 7 earlier runs' measures, each
	// computed from the run's document analysed alone (measuresOf,
	// independent of package workload).
	for _, m := range []string{"wall_time", "core_hours", "cost", "efficiency"} {
		var xs []float64
		for n := 1; n <= 7; n++ {
			var alone []analysis.Report
			runJSON(t, &alone, "analyze", "--json", filepath.Join(dir, entries[n-1].Name()))
			xs = append(xs, measuresOf(alone[0])[m])
		}
		slices.Sort(xs)
		if got := slow.Baseline.Values[m]; got != xs[3] {
			t.Errorf("run 8 baseline %s = %v, want the median %v", m, got, xs[3])
		}
	}
	// Run 9: the input doubled with proportional time, not a regression.
	grown := byRun[9]
	if len(grown.WorkloadComparison.Regressed) != 0 || len(grown.WorkloadComparison.Explained) == 0 ||
		!slices.Contains(grown.WorkloadComparison.Why, "input grew 2.0×; time per input byte unchanged") ||
		grown.Findings[len(grown.Findings)-1].Numbers["alert"] != 0 {
		t.Errorf("run 9: %+v, findings %+v", grown.WorkloadComparison, grown.Findings)
	}
	// Run 10: half the executors, the executor diff against run 9.
	if c := byRun[10].WorkloadComparison.Changed; c == nil || !slices.Equal(c.ExecutorChanges, []string{"executors 12 → 6", "at most 8 → 4 at once"}) {
		t.Errorf("run 10 changed: %+v", c)
	}
}

// Names two runs of a workload chose reach the terminal escaped in
// analyze's workload table and in compare's text, as in the rest of the
// text output.
func TestHostileNamesEscapedInWorkloadText(t *testing.T) {
	dir := t.TempDir()
	hostile := "\x1b]0;pwned\x07\x1b[2J\u202e\u009b31m"
	var logs []string
	for i, runMs := range []int{800, 900} {
		start := 1700000000000 + int64(i)*86_400_000
		lines := []string{
			`{"Event":"SparkListenerLogStart","Spark Version":"3.5.0"}`,
			fmt.Sprintf(`{"Event":"SparkListenerApplicationStart","App Name":%s,"App ID":"app-%d","Timestamp":%d,"User":"u"}`, jsonText("app"+hostile), i+1, start),
			fmt.Sprintf(`{"Event":"SparkListenerEnvironmentUpdate","JVM Information":{},"Spark Properties":{"spark.sql.shuffle.partitions":%s},"Hadoop Properties":{},"System Properties":{},"Classpath Entries":{}}`, jsonText(fmt.Sprint(i)+hostile)),
			fmt.Sprintf(`{"Event":"SparkListenerExecutorAdded","Timestamp":%d,"Executor ID":"1","Executor Info":{"Host":"h","Total Cores":2,"Log Urls":{}}}`, start),
			fmt.Sprintf(`{"Event":"SparkListenerStageSubmitted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":%s,"Number of Tasks":1,"Submission Time":%d,"RDD Info":[],"Parent IDs":[],"Details":"","Accumulables":[]},"Properties":{}}`, jsonText("stage"+hostile), start+100),
			fmt.Sprintf(`{"Event":"SparkListenerStageCompleted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":%s,"Number of Tasks":1,"Submission Time":%d,"Completion Time":%d,"RDD Info":[],"Parent IDs":[],"Details":"","Accumulables":[]}}`, jsonText("stage"+hostile), start+100, start+100+int64(runMs)),
			fmt.Sprintf(`{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task Type":"ResultTask","Task End Reason":{"Reason":"Success"},"Task Info":{"Task ID":0,"Index":0,"Attempt":0,"Launch Time":%d,"Executor ID":"1","Host":"h","Finish Time":%d,"Failed":false,"Killed":false},"Task Metrics":{"Executor Run Time":%d,"Executor CPU Time":700000000}}`, start+100, start+100+int64(runMs), runMs),
			fmt.Sprintf(`{"Event":"SparkListenerApplicationEnd","Timestamp":%d}`, start+2000),
		}
		log := filepath.Join(dir, fmt.Sprintf("app-%d", i+1))
		if err := os.WriteFile(log, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		logs = append(logs, log)
	}
	analyzeOut, _, status := runBinary(t, append([]string{"analyze"}, logs...)...)
	if status != 0 || !strings.Contains(analyzeOut, "Workload app\\x1b]0;pwned") {
		t.Errorf("analyze exit %d, no workload table with the name escaped:\n%s", status, analyzeOut)
	}
	compareOut, _, status := runBinary(t, "compare", logs[0], logs[1])
	if status != 0 || !strings.Contains(compareOut, `stage\x1b]0;pwned`) || !strings.Contains(compareOut, `spark.sql.shuffle.partitions: 0\x1b]0;pwned`) {
		t.Errorf("compare exit %d, the names are not shown escaped:\n%s", status, compareOut)
	}
	for what, out := range map[string]string{"analyze": analyzeOut, "compare": compareOut} {
		if strings.ContainsAny(out, "\x1b\x07\u202e\u009b") {
			t.Errorf("%s's text carries a raw control character:\n%q", what, out)
		}
	}
}
