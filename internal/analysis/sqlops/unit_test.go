package sqlops

import (
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

func TestNames(t *testing.T) {
	for _, c := range []struct{ node, engine, kind, label string }{
		{"Scan parquet default.store_sales", EngineSpark, "Scan", "Scan parquet"},
		{"PhotonScan parquet ", EnginePhoton, "Scan", "PhotonScan parquet"},
		{"ScanTransformer parquet default.t", EngineGluten, "Scan", "ScanTransformer parquet"},
		{"GpuScan parquet ", EngineRapids, "Scan", "GpuScan parquet"},
		{"WholeStageCodegen (12)", EngineSpark, "WholeStageCodegen", "WholeStageCodegen"},
		{"ProjectExecTransformer", EngineGluten, "Project", "ProjectExecTransformer"},
		{"PhotonProject", EnginePhoton, "Project", "PhotonProject"},
		{"GpuFilter", EngineRapids, "Filter", "GpuFilter"},
		{"BroadcastHashJoinExecTransformer", EngineGluten, "BroadcastHashJoin", "BroadcastHashJoinExecTransformer"},
		{"ColumnarExchange", EngineGluten, "Exchange", "ColumnarExchange"},
		{"ColumnarToRow", EngineSpark, "ColumnarToRow", "ColumnarToRow"},
		{"Execute CreateViewCommand", EngineSpark, "Execute", "Execute CreateViewCommand"},
	} {
		if e, k, l := engineOf(c.node), baseKind(c.node), Label(c.node); e != c.engine || k != c.kind || l != c.label {
			t.Errorf("%q: engine %s kind %s label %q, want %s %s %q", c.node, e, k, l, c.engine, c.kind, c.label)
		}
	}
}

func TestAccumUnits(t *testing.T) {
	a := newAccum()
	for _, v := range []int64{-1, 20, 40} { // −1: unset, skipped
		a.add(v, false)
	}
	a.add(60, true)
	for typ, want := range map[string]float64{"sum": 120, "size": 120, "timing": 0.12, "nsTiming": 120e-9, "average": 4, "maximum": 60, "minimum": 20} {
		if got := a.total(typ); !near(got, want) {
			t.Errorf("%s: %g, want %g", typ, got, want)
		}
	}
	if b := newAccum(); b.total("size") != 0 || b.hasValue() {
		t.Error("empty accumulator has a value")
	}
}

// TestStatusAndEviction: running, failed (by error message or by a failed
// job) and the bound on kept executions with their accumulators.
func TestStatusAndEviction(t *testing.T) {
	m := NewModel(Options{MaxExecutions: 2})
	plan := func(acc int64) *sparkevent.PlanNode {
		return &sparkevent.PlanNode{NodeName: "Sort", Metrics: []sparkevent.PlanMetric{{Name: "sort time", AccumulatorID: acc, MetricType: "timing"}}}
	}
	m.Add(&sparkevent.SQLExecutionStart{ExecutionID: 1, Plan: plan(11), Time: 10})
	m.Add(&sparkevent.SQLExecutionStart{ExecutionID: 2, Plan: plan(12), Time: 20})
	m.Add(&sparkevent.JobStart{JobID: 7, Properties: map[string]string{"spark.sql.execution.id": "2"}})
	m.Add(&sparkevent.JobEnd{JobID: 7, Result: "JobFailed"})
	m.Add(&sparkevent.SQLExecutionEnd{ExecutionID: 2, Time: 25})
	m.Add(&sparkevent.SQLExecutionStart{ExecutionID: 3, Plan: plan(13), Time: 30})
	m.Add(&sparkevent.SQLExecutionEnd{ExecutionID: 3, Time: 35, ErrorMessage: "boom"})
	m.Add(&sparkevent.TaskEnd{Task: sparkevent.TaskInfo{Accumulables: []sparkevent.Accumulable{{ID: 11, Update: 1500, Value: 1500, HasUpdate: true, Numeric: true, Metadata: "sql"}}}})
	execs := m.Executions()
	// 3 executions, bound 2: the oldest finished one (2) went, with its accumulator.
	if len(execs) != 2 || execs[0].ExecutionID != 1 || execs[1].ExecutionID != 3 || m.accs[12] != nil {
		t.Fatalf("kept %+v", execs)
	}
	if execs[0].Status != StatusRunning || execs[1].Status != StatusFailed || execs[0].Operators[0].ExclusiveSeconds != 1.5 {
		t.Errorf("executions %+v", execs)
	}
	s := Summarize(execs, 0)
	if s.ExecutionsByStatus[StatusRunning] != 1 || len(s.DurationsSeconds) != 1 || s.DurationsSeconds[0] != 0.005 || s.Operators[0].TimeSeconds != 1.5 {
		t.Errorf("summary %+v", s)
	}
}
