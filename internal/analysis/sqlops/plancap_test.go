package sqlops

import (
	"fmt"
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// hugePlan generates a plan of wide unions of deep chains: width chains of
// depth nodes under one root, every node with its own metric.
func hugePlan(width, depth int) *sparkevent.PlanNode {
	acc := int64(1000)
	node := func(name string) *sparkevent.PlanNode {
		acc++
		return &sparkevent.PlanNode{NodeName: name, Metrics: []sparkevent.PlanMetric{{Name: "number of output rows", AccumulatorID: acc, MetricType: "sum"}}}
	}
	root := node("Union")
	for w := range width {
		n := node(fmt.Sprintf("Project %d", w))
		root.Children = append(root.Children, n)
		for range depth - 1 {
			c := node("Filter")
			n.Children = []*sparkevent.PlanNode{c}
			n = c
		}
	}
	return root
}

func countNodes(n *sparkevent.PlanNode) int {
	c := 0
	walk(n, func(*sparkevent.PlanNode) { c++ })
	return c
}

// A plan with more nodes than MaxPlanNodes keeps only the first ones, is
// reported through OnPlanCut and counted on the execution; what the model
// holds (plan nodes and the accumulators they name) is bounded by the cap,
// not by the plan.
func TestPlanNodesCapped(t *testing.T) {
	const width, depth, limit = 400, 500, 10_000 // 200,001 nodes
	plan := hugePlan(width, depth)
	var cuts []string
	m := NewModel(Options{MaxPlanNodes: limit, OnPlanCut: func(id int64, nodes, kept int) {
		cuts = append(cuts, fmt.Sprintf("%d:%d:%d", id, nodes, kept))
	}})
	m.Add(&sparkevent.SQLExecutionStart{ExecutionID: 4, Plan: plan, Time: 10})
	m.Add(&sparkevent.SQLExecutionEnd{ExecutionID: 4, Time: 20})

	if want := []string{fmt.Sprintf("4:%d:%d", width*depth+1, limit)}; fmt.Sprint(cuts) != fmt.Sprint(want) {
		t.Errorf("cuts %v, want %v", cuts, want)
	}
	held := 0
	for _, v := range m.execs[4].versions {
		held += countNodes(v)
	}
	if held != limit || len(m.accs) != limit {
		t.Errorf("holds %d plan nodes and %d accumulators, want %d each", held, len(m.accs), limit)
	}
	execs := m.Executions()
	if len(execs) != 1 || len(execs[0].Operators) != limit || execs[0].DroppedPlanNodes != int64(width*depth+1-limit) {
		t.Fatalf("operators %d dropped %d", len(execs[0].Operators), execs[0].DroppedPlanNodes)
	}
	// The root and the operators nearest it come first (pre-order).
	if ops := execs[0].Operators; ops[0].Name != "Union" || ops[1].Name != "Project 0" || ops[1].ParentID == nil || *ops[1].ParentID != 0 {
		t.Errorf("first operators %+v %+v", ops[0], ops[1])
	}
	if countNodes(plan) != width*depth+1 {
		t.Error("the caller's plan was changed")
	}

	// A plan within the cap is kept whole, as it is, and nothing is reported.
	small := hugePlan(3, 3)
	m.Add(&sparkevent.SQLExecutionStart{ExecutionID: 5, Plan: small, Time: 30})
	if len(cuts) != 1 || m.execs[5].versions[0] != small {
		t.Errorf("a 10-node plan was cut: %v", cuts)
	}
}

// An execution whose AQE updates each bring a plan near the cap holds at
// most MaxPlanNodes nodes in all: the oldest versions go (reported and
// counted), the final one stays, and values of an accumulator both a
// dropped and the kept version name still reach the final operator.
func TestPlanNodesCappedPerExecution(t *testing.T) {
	const limit, updates = 1_000, 50
	var dropped []string
	m := NewModel(Options{MaxPlanNodes: limit, OnVersionsDropped: func(id int64, versions, nodes, budget int) {
		dropped = append(dropped, fmt.Sprintf("%d:%d:%d:%d", id, versions, nodes, budget))
	}})
	version := func(v int) *sparkevent.PlanNode { // 601 nodes; accumulator 1 shared by every version
		p := hugePlan(20, 30)
		walk(p, func(n *sparkevent.PlanNode) { n.Metrics[0].AccumulatorID += int64(v) * 100_000 })
		p.Metrics[0].AccumulatorID = 1
		return p
	}
	m.Add(&sparkevent.SQLExecutionStart{ExecutionID: 7, Plan: version(0), Time: 10})
	for v := 1; v <= updates; v++ {
		m.Add(&sparkevent.SQLAdaptiveExecutionUpdate{ExecutionID: 7, Plan: version(v)})
	}
	m.Add(&sparkevent.DriverAccumUpdates{ExecutionID: 7, Updates: []sparkevent.AccumUpdate{{ID: 1, Value: 42}}})
	m.Add(&sparkevent.SQLExecutionEnd{ExecutionID: 7, Time: 20})

	x := m.execs[7]
	held := 0
	for _, v := range x.versions {
		held += countNodes(v)
	}
	if held > limit || held != x.heldNodes {
		t.Fatalf("holds %d plan nodes (counted %d), want at most %d", held, x.heldNodes, limit)
	}
	if len(m.accs) > limit {
		t.Errorf("holds %d accumulators, want at most %d", len(m.accs), limit)
	}
	if len(x.versions) != 1 || x.versions[0].Metrics[0].AccumulatorID != 1 || x.versions[0].Children[0].Metrics[0].AccumulatorID <= updates*100_000 {
		t.Errorf("kept %d versions, want the final one", len(x.versions))
	}
	if len(dropped) != updates {
		t.Errorf("%d drops reported, want %d: %v", len(dropped), updates, dropped)
	} else if dropped[0] != fmt.Sprintf("7:1:601:%d", limit) {
		t.Errorf("first drop %s", dropped[0])
	}
	execs := m.Executions()
	if got, want := execs[0].DroppedPlanNodes, int64(updates*601); got != want {
		t.Errorf("DroppedPlanNodes %d, want %d", got, want)
	}
	if root := execs[0].Operators[0]; root.Name != "Union" || root.Metrics["number of output rows"] != 42 {
		t.Errorf("root operator %+v, want Union with the shared accumulator's 42 rows", root)
	}
}
