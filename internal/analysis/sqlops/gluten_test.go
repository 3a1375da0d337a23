package sqlops

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// The Gluten tests build a small event log in Spark's JSON shape with the
// node and metric names of Gluten's Velox backend (VeloxMetricsApi), since
// no public Gluten event log exists. Values are chosen so every answer can
// be worked out by hand (see the comments in TestGlutenHandBuilt).

type metric struct {
	name string
	id   int64
	typ  string
}

type node struct {
	name     string
	metrics  []metric
	metadata map[string]string
	children []node
}

func (n node) json() map[string]any {
	ms := []map[string]any{}
	for _, m := range n.metrics {
		ms = append(ms, map[string]any{"name": m.name, "accumulatorId": m.id, "metricType": m.typ})
	}
	ch := []map[string]any{}
	for _, c := range n.children {
		ch = append(ch, c.json())
	}
	md := map[string]string{}
	for k, v := range n.metadata {
		md[k] = v
	}
	return map[string]any{"nodeName": n.name, "simpleString": n.name, "children": ch, "metadata": md, "metrics": ms}
}

// glutenPlan is the final plan:
//
//	0 AdaptiveSparkPlan
//	1  VeloxColumnarToRow
//	2   WholeStageCodegenTransformer (1)
//	3    ProjectExecTransformer
//	4     BroadcastHashJoinExecTransformer
//	5      FilterExecTransformer
//	6       ScanTransformer parquet default.store_sales
//	7      ColumnarBroadcastExchange
//	8       ScanTransformer parquet default.date_dim
func glutenPlan(join node) node {
	return node{name: "AdaptiveSparkPlan", children: []node{{
		name: "VeloxColumnarToRow", metrics: []metric{{"number of output rows", 1, "sum"}, {"number of input batches", 2, "sum"}, {"time to convert", 3, "timing"}},
		children: []node{{
			name: "WholeStageCodegenTransformer (1)", metrics: []metric{{"duration", 4, "timing"}},
			children: []node{{
				name: "ProjectExecTransformer", metrics: []metric{{"number of output rows", 10, "sum"}, {"time of project", 11, "nsTiming"}, {"cpu wall time count", 12, "sum"}, {"peak memory bytes", 13, "size"}},
				children: []node{join},
			}},
		}},
	}}}
}

func glutenJoin() node {
	return node{name: "BroadcastHashJoinExecTransformer", metrics: []metric{
		{"time of hash build", 20, "nsTiming"}, {"time of hash probe", 21, "nsTiming"},
		{"number of hash build input rows", 22, "sum"}, {"number of hash probe input rows", 23, "sum"},
		{"bytes written for spilling of hash build", 24, "size"}, {"bytes written for spilling of hash probe", 25, "size"},
		{"number of hash probe dynamic filters produced", 26, "sum"}, {"number of hash probe replaced with dynamic filter rows", 27, "sum"},
		{"hash build peak memory bytes", 28, "size"}, {"number of output rows", 29, "sum"},
	}, children: []node{
		{name: "FilterExecTransformer", metrics: []metric{{"number of output rows", 30, "sum"}, {"time of filter", 31, "nsTiming"}},
			children: []node{glutenScan("store_sales", 40, map[string]string{"DataFilters": "[isnotnull(ss_sold_time_sk#1)]", "PushedFilters": "[IsNotNull(ss_sold_time_sk)]"})}},
		{name: "ColumnarBroadcastExchange", metrics: []metric{{"data size", 70, "size"}, {"time to collect", 71, "timing"}, {"time to broadcast", 72, "timing"}},
			children: []node{glutenScan("date_dim", 80, map[string]string{"DataFilters": "[]", "PushedFilters": "[]"})}},
	}}
}

func glutenScan(table string, base int64, md map[string]string) node {
	return node{name: "ScanTransformer parquet default." + table, metadata: md, metrics: []metric{
		{"time of scan and filter", base, "nsTiming"}, {"scan time", base + 1, "nsTiming"}, {"io wait time", base + 2, "nsTiming"},
		{"storage read bytes", base + 3, "size"}, {"local ssd read bytes", base + 4, "size"}, {"ram read bytes", base + 5, "size"},
		{"number of skipped splits", base + 6, "sum"}, {"number of processed splits", base + 7, "sum"},
		{"number of skipped row groups", base + 8, "sum"}, {"number of processed row groups", base + 9, "sum"},
		{"number of dynamic filters accepted", base + 10, "sum"}, {"number of output rows", base + 11, "sum"},
	}}
}

// glutenLog is the whole log. The initial plan used a shuffled hash join
// over a ColumnarExchange whose map stage ran (1 s of "shuffle wall time",
// accumulator 95) before AQE switched to a broadcast join.
func glutenLog(t *testing.T) []sparkevent.Event {
	const (
		s   = int64(1e9) // one second in ns
		gib = int64(1 << 30)
		mib = int64(1 << 20)
	)
	initialJoin := node{name: "ShuffledHashJoinExecTransformer", metrics: []metric{{"time of hash build", 60, "nsTiming"}, {"time of hash probe", 61, "nsTiming"}},
		children: []node{glutenJoin().children[0], {name: "ColumnarExchange", metrics: []metric{{"shuffle wall time", 95, "nsTiming"}, {"data size", 96, "size"}},
			children: []node{glutenScan("date_dim", 80, nil)}}}}
	// Two tasks; each row: accumulator → [task 1 update, task 2 update].
	updates := map[int64][2]int64{
		1: {500, 500}, 2: {5, 5}, 3: {200, 300}, 4: {60000, 60000},
		10: {1000, 1000}, 11: {2 * s, s}, 12: {50, 50}, 13: {64 * mib, 96 * mib},
		20: {20 * s, 15 * s}, 21: {3 * s, 2 * s}, 22: {5e6, 5e6}, 23: {2e6, 2e6},
		24: {60 * mib, 40 * mib}, 25: {0, 0}, 26: {1, 1}, 27: {0, 0}, 28: {300 * mib, 200 * mib}, 29: {1000, 1000},
		30: {2000, 2000}, 31: {8 * s, 7 * s},
		40: {30 * s, 30 * s}, 41: {25 * s, 25 * s}, 42: {20 * s, 20 * s},
		43: {3 * gib / 2, 3 * gib / 2}, 44: {gib / 8, gib / 8}, 45: {gib / 8, gib / 8},
		46: {0, 0}, 47: {100, 100}, 48: {0, 0}, 49: {150, 150}, 50: {0, 0}, 51: {4000, 4000},
		80: {s / 2, s / 2}, 81: {s / 4, s / 4}, 82: {0, 0}, 83: {0, 0}, 84: {mib, mib}, 85: {mib, mib},
		86: {1, 1}, 87: {1, 1}, 88: {0, 0}, 89: {2, 2}, 90: {0, 0}, 91: {10, 10}, 95: {s / 2, s / 2}, 96: {mib, mib},
	}
	var lines []map[string]any
	lines = append(lines,
		map[string]any{"Event": "SparkListenerApplicationStart", "App Name": "gluten", "App ID": "app-1", "Timestamp": 1000, "User": "u"},
		map[string]any{"Event": sparkevent.TypeSQLExecutionStart, "executionId": 0, "description": "q1", "details": "", "physicalPlanDescription": "",
			"sparkPlanInfo": glutenPlan(initialJoin).json(), "time": 2000, "modifiedConfigs": map[string]string{}},
		map[string]any{"Event": "SparkListenerJobStart", "Job ID": 0, "Submission Time": 2100, "Stage Infos": []any{}, "Stage IDs": []int{0},
			"Properties": map[string]string{"spark.sql.execution.id": "0"}},
	)
	cum := map[int64]int64{}
	task := func(id int64, accs []int64, which int) map[string]any {
		var list []map[string]any
		for _, a := range accs {
			u := updates[a][which]
			cum[a] += u
			list = append(list, map[string]any{"ID": a, "Name": "m", "Update": u, "Value": cum[a], "Internal": false, "Count Failed Values": true, "Metadata": "sql"})
		}
		return map[string]any{"Event": "SparkListenerTaskEnd", "Stage ID": 0, "Stage Attempt ID": 0, "Task Type": "ResultTask",
			"Task End Reason": map[string]any{"Reason": "Success"},
			"Task Info": map[string]any{"Task ID": id, "Index": id, "Attempt": 0, "Partition ID": id, "Launch Time": 3000, "Executor ID": "1", "Host": "h",
				"Locality": "PROCESS_LOCAL", "Speculative": false, "Getting Result Time": 0, "Finish Time": 4000, "Failed": false, "Killed": false, "Accumulables": list}}
	}
	// The shuffle map stage of the initial plan, then the AQE update.
	mapStage := []int64{80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 95, 96}
	lines = append(lines, task(0, mapStage, 0), task(1, mapStage, 1),
		map[string]any{"Event": sparkevent.TypeSQLAdaptiveExecutionUpdate, "executionId": 0, "physicalPlanDescription": "", "sparkPlanInfo": glutenPlan(glutenJoin()).json()},
		// Broadcast times are measured on the driver.
		map[string]any{"Event": sparkevent.TypeDriverAccumUpdates, "executionId": 0, "accumUpdates": [][2]int64{{70, 2 * mib}, {71, 2000}, {72, 100}}},
	)
	var mainStage []int64
	for a := range int64(52) {
		if _, ok := updates[a]; ok {
			mainStage = append(mainStage, a)
		}
	}
	lines = append(lines, task(2, mainStage, 0), task(3, mainStage, 1),
		map[string]any{"Event": "SparkListenerJobEnd", "Job ID": 0, "Completion Time": 9000, "Job Result": map[string]string{"Result": "JobSucceeded"}},
		map[string]any{"Event": sparkevent.TypeSQLExecutionEnd, "executionId": 0, "time": 9500},
	)
	var evs []sparkevent.Event
	for i, l := range lines {
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := sparkevent.DecodeLine(b)
		if err != nil {
			t.Fatalf("line %d: %v\n%s", i+1, err, b)
		}
		evs = append(evs, ev)
	}
	return evs
}

func glutenModel(t *testing.T) *Model {
	m := NewModel(Options{})
	for _, ev := range glutenLog(t) {
		m.Add(ev)
	}
	return m
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestGlutenHandBuilt(t *testing.T) {
	m := glutenModel(t)
	if c := m.Check(); len(c.Mismatches) > 0 || c.Checked != 46 || c.Unmapped != 0 {
		t.Fatalf("self-check %+v", c)
	}
	execs := m.Executions()
	if len(execs) != 1 {
		t.Fatalf("%d executions", len(execs))
	}
	e := execs[0]
	if e.Status != StatusCompleted || e.Start != 2000 || e.End != 9500 || e.Description != "q1" || len(e.Operators) != 10 {
		t.Fatalf("execution %+v", e)
	}
	// Exclusive seconds, by hand: native Velox wall times as they are
	// (never summed up the tree); the WholeStageTransformer's "duration"
	// is not an operator time; the broadcast exchange's driver times are
	// 2000 + 100 ms; the superseded ColumnarExchange (operator 9, from the
	// initial plan) has 0.5 + 0.5 s and hangs under the nearest operator
	// both plans share, the project (the shuffled join it fed never ran).
	want := []struct {
		name string
		excl float64
	}{
		{"AdaptiveSparkPlan", 0}, {"VeloxColumnarToRow", 0.5}, {"WholeStageCodegenTransformer (1)", 0}, {"ProjectExecTransformer", 3},
		{"BroadcastHashJoinExecTransformer", 40}, {"FilterExecTransformer", 15}, {"ScanTransformer parquet default.store_sales", 60},
		{"ColumnarBroadcastExchange", 2.1}, {"ScanTransformer parquet default.date_dim", 1}, {"ColumnarExchange", 1},
	}
	for i, w := range want {
		o := e.Operators[i]
		if o.Name != w.name || !near(o.ExclusiveSeconds, w.excl) || o.ID != i {
			t.Errorf("operator %d: %s %g s, want %s %g s", i, o.Name, o.ExclusiveSeconds, w.name, w.excl)
		}
	}
	if o := e.Operators[9]; !o.Superseded || o.ParentID == nil || *o.ParentID != 3 || o.Engine != EngineGluten {
		t.Errorf("superseded exchange %+v", o)
	}
	if o := e.Operators[1]; o.ParentID == nil || *o.ParentID != 0 || e.Operators[0].ParentID != nil {
		t.Errorf("parents: %v %v", e.Operators[0].ParentID, o.ParentID)
	}
	j := e.Operators[4].Join
	if j == nil || !near(j.BuildSeconds, 35) || !near(j.ProbeSeconds, 5) || j.BuildRows != 1e7 || j.ProbeRows != 4e6 ||
		j.BuildSpillBytes != 100<<20 || j.ProbeSpillBytes != 0 || j.DynamicFiltersProduced != 2 || j.ProbeEstimated {
		t.Errorf("join %+v", j)
	}
	if o := e.Operators[4]; o.PeakMemoryBytes != 300<<20 || o.SpillBytes != 100<<20 || o.Metrics["time of hash build"] != 35 {
		t.Errorf("join peak %g spill %g metrics %v", o.PeakMemoryBytes, o.SpillBytes, o.Metrics)
	}
	sc := e.Operators[6].Scan
	if sc == nil || sc.StorageReadBytes != 3<<30 || sc.LocalReadBytes != 1<<28 || sc.RAMReadBytes != 1<<28 || !near(sc.IOWaitSeconds, 40) ||
		!near(sc.ReadSeconds, 50) || sc.ProcessedSplits != 200 || sc.ProcessedStrides != 300 || !sc.HasFilter || sc.DynamicFiltersAccepted != 0 {
		t.Errorf("scan %+v", sc)
	}
	if sc := e.Operators[8].Scan; sc == nil || sc.HasFilter {
		t.Errorf("date_dim scan %+v", sc)
	}
	if o := e.Operators[1]; o.Metrics["time to convert"] != 0.5 || o.Metrics["number of output rows"] != 1000 {
		t.Errorf("c2r metrics %v", o.Metrics)
	}
}

// TestGlutenFindings triggers every finding at a threshold equal to its
// hand-computed value and not when the value is just under the threshold.
// Σ exclusive = 0.5+3+40+15+60+2.1+1+1 = 122.6 s.
func TestGlutenFindings(t *testing.T) {
	execs := glutenModel(t).Executions()
	const total = 122.6
	cases := []struct {
		kind     string
		operator int // -1: query level
		at       func(*Thresholds, float64)
		value    float64
	}{
		// store_sales scan: 60 s of 122.6 s.
		{KindBottleneckOperator, 6, func(th *Thresholds, v float64) { th.BottleneckShare = v }, 60 / total},
		// filter: 15 s, 15/122.6 of the query.
		{KindExpensiveFilterOrProject, 5, func(th *Thresholds, v float64) { th.FilterProjectShare = v }, 15 / total},
		// join: build 35 s of 40 s.
		{KindJoinBuildDominated, 4, func(th *Thresholds, v float64) { th.JoinDominantShare = v }, 35.0 / 40},
		// join build spilled 100 MiB.
		{KindNativeSpill, 4, func(th *Thresholds, v float64) { th.SpillMinBytes = v }, 100 << 20},
		// store_sales: 200 splits + 300 row groups processed, none skipped.
		{KindPushdownNotApplied, 6, func(th *Thresholds, v float64) { th.PushdownMinProcessed = v }, 500},
		// store_sales: 3 GiB of 3.5 GiB from storage.
		{KindColdCache, 6, func(th *Thresholds, v float64) { th.ColdCacheShare = v }, 3 / 3.5},
		// store_sales: 40 s of I/O wait in 60 s.
		{KindIOBoundScan, 6, func(th *Thresholds, v float64) { th.IOBoundShare = v }, 40.0 / 60},
	}
	for _, c := range cases {
		t.Run(c.kind, func(t *testing.T) {
			th := DefaultThresholds()
			c.at(&th, c.value)
			f := find(Findings(execs, th), c.kind)
			if f == nil || f.OperatorID == nil || *f.OperatorID != c.operator {
				t.Fatalf("threshold %g: got %v", c.value, f)
			}
			c.at(&th, c.value*1.0001)
			if f := find(Findings(execs, th), c.kind); f != nil {
				t.Errorf("threshold just above %g: still %v", c.value, f)
			}
		})
	}
	// dynamic_filter_unused: the join produced 2 filters, no scan took one.
	f := find(Findings(execs, DefaultThresholds()), KindDynamicFilterUnused)
	if f == nil || f.Numbers["dynamicFiltersProduced"] != 2 || f.OperatorID != nil {
		t.Errorf("dynamic_filter_unused: %v", f)
	}
	// With one filter accepted (a real scan update), it goes away.
	m := glutenModel(t)
	m.Add(&sparkevent.TaskEnd{Task: sparkevent.TaskInfo{Accumulables: []sparkevent.Accumulable{{ID: 50, Update: 1, Value: 1, HasUpdate: true, Numeric: true, Metadata: "sql"}}}})
	if f := find(Findings(m.Executions(), DefaultThresholds()), KindDynamicFilterUnused); f != nil {
		t.Errorf("dynamic_filter_unused with a filter accepted: %v", f)
	}
	// Defaults: spill (100 MiB ≥ 64 MiB), pushdown, cold cache, I/O bound,
	// build-dominated join and the unused filter fire; the bottleneck
	// (0.489 < 0.5) and the filter (0.122 < 0.2) do not.
	got := map[string]bool{}
	for _, f := range Findings(execs, DefaultThresholds()) {
		got[f.Kind] = true
	}
	for _, k := range []string{KindNativeSpill, KindPushdownNotApplied, KindColdCache, KindIOBoundScan, KindJoinBuildDominated, KindDynamicFilterUnused} {
		if !got[k] {
			t.Errorf("default thresholds: no %s", k)
		}
	}
	if got[KindBottleneckOperator] || got[KindExpensiveFilterOrProject] || got[KindJoinProbeDominated] {
		t.Errorf("default thresholds: unexpected %v", got)
	}
}

func find(fs []Finding, kind string) *Finding {
	for i := range fs {
		if fs[i].Kind == kind {
			return &fs[i]
		}
	}
	return nil
}
