package sqlops

import (
	"math/bits"
	"strings"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

const numRoles = 32

// opNode is an operator under construction with its metrics by role.
type opNode struct {
	op       Operator
	plan     *sparkevent.PlanNode
	kind     string
	children []int
	vals     [numRoles]float64
	has      role
}

func (o *opNode) val(r role) float64 { return o.vals[bits.TrailingZeros32(uint32(r))] }

// Executions builds every kept execution, in start order.
func (m *Model) Executions() []Execution {
	out := make([]Execution, 0, len(m.order))
	for _, id := range m.order {
		out = append(out, m.build(m.execs[id]))
	}
	return out
}

func (m *Model) build(x *execution) Execution {
	e := Execution{ExecutionID: x.id, Description: x.description, Start: x.start, End: x.end, Status: StatusRunning, Operators: []Operator{}, DroppedPlanNodes: x.droppedNodes}
	if x.ended {
		e.Status = StatusCompleted
		if x.errorMsg != "" || x.jobFailed {
			e.Status = StatusFailed
		}
	}
	if len(x.versions) == 0 {
		return e
	}
	b := treeBuilder{m: m, accOp: map[int64]int{}}
	b.addFinal(x.versions[len(x.versions)-1], -1)
	for v := len(x.versions) - 2; v >= 0; v-- {
		b.addEarlier(x.versions[v], -1)
	}
	b.exclusive()
	e.Operators = make([]Operator, len(b.ops))
	for i := range b.ops {
		e.Operators[i] = b.finish(&b.ops[i])
	}
	return e
}

type treeBuilder struct {
	m     *Model
	ops   []opNode
	accOp map[int64]int // accumulator → operator index
}

func (b *treeBuilder) newOp(n *sparkevent.PlanNode, parent int, superseded bool) int {
	i := len(b.ops)
	o := opNode{plan: n, kind: baseKind(n.NodeName)}
	o.op = Operator{ID: i, Name: n.NodeName, Engine: engineOf(n.NodeName), Superseded: superseded, Metrics: map[string]float64{}}
	if parent >= 0 {
		p := parent
		o.op.ParentID = &p
		b.ops[parent].children = append(b.ops[parent].children, i)
	}
	b.ops = append(b.ops, o)
	return i
}

func (b *treeBuilder) addFinal(n *sparkevent.PlanNode, parent int) {
	if n == nil {
		return
	}
	i := b.newOp(n, parent, false)
	for _, pm := range n.Metrics {
		if _, dup := b.accOp[pm.AccumulatorID]; !dup { // a subtree shown twice shares its accumulators: count them once
			b.addMetric(i, pm)
		}
	}
	for _, c := range n.Children {
		b.addFinal(c, i)
	}
}

// addEarlier maps an earlier AQE plan version: a node sharing an
// accumulator with a known operator is that operator (its other
// accumulators join it); a node with values of its own becomes a
// superseded operator under the nearest mapped ancestor.
func (b *treeBuilder) addEarlier(n *sparkevent.PlanNode, parent int) {
	if n == nil {
		return
	}
	cur := parent
	if len(n.Metrics) > 0 {
		mapped := -1
		for _, pm := range n.Metrics {
			if i, ok := b.accOp[pm.AccumulatorID]; ok {
				mapped = i
				break
			}
		}
		if mapped < 0 && b.anyValue(n) {
			mapped = b.newOp(n, parent, true)
		}
		if mapped >= 0 {
			for _, pm := range n.Metrics {
				if _, ok := b.accOp[pm.AccumulatorID]; !ok {
					b.addMetric(mapped, pm)
				}
			}
			cur = mapped
		}
	}
	for _, c := range n.Children {
		b.addEarlier(c, cur)
	}
}

func (b *treeBuilder) anyValue(n *sparkevent.PlanNode) bool {
	for _, pm := range n.Metrics {
		if a := b.m.accs[pm.AccumulatorID]; a != nil && a.hasValue() {
			return true
		}
	}
	return false
}

func (b *treeBuilder) addMetric(i int, pm sparkevent.PlanMetric) {
	b.accOp[pm.AccumulatorID] = i
	a := b.m.accs[pm.AccumulatorID]
	if a == nil || !a.hasValue() {
		return
	}
	o := &b.ops[i]
	v := a.total(pm.MetricType)
	o.op.Metrics[pm.Name] += v
	r := roleOf(o.op.Engine, pm.Name)
	o.has |= r
	for r != 0 {
		k := bits.TrailingZeros32(uint32(r))
		r &^= 1 << k
		if role(1)<<k == rolePeakMemory {
			o.vals[k] = max(o.vals[k], a.largest(pm.MetricType))
		} else {
			o.vals[k] += v
		}
	}
}

// exclusive applies DataFlint's attribution: native own times as they
// are; inclusive − children for pipelined operators; inclusive for
// blocking ones; stage boundaries pass only their reduce-side wait up
// (the work below them ran in other stages).
// Children have larger indices than parents, so one backward pass works.
func (b *treeBuilder) exclusive() {
	incl := make([]float64, len(b.ops))
	for i := len(b.ops) - 1; i >= 0; i-- {
		o := &b.ops[i]
		boundary := isBoundary(o.op.Name, o.kind)
		var below, wait float64
		for _, c := range o.children {
			if b.ops[c].op.Superseded == o.op.Superseded { // an earlier plan's work is not in this one's times
				below += incl[c]
				if isBoundary(b.ops[c].op.Name, b.ops[c].kind) {
					wait += incl[c]
				}
			}
		}
		own := o.val(roleOwnTime) + o.val(roleFetchWait)
		hasOwn := o.has&(roleOwnTime|roleFetchWait) != 0
		hasIncl := o.has&roleInclusiveTime != 0
		switch {
		case hasOwn:
			o.op.ExclusiveSeconds = own
		case hasIncl && isBlocking(o.kind):
			o.op.ExclusiveSeconds = o.val(roleInclusiveTime)
		case hasIncl:
			o.op.ExclusiveSeconds = max(0, o.val(roleInclusiveTime)-below)
		}
		switch {
		case boundary: // chained boundaries (query stage over exchange) pass the wait up
			incl[i] = o.val(roleFetchWait) + wait
		case hasIncl:
			incl[i] = o.val(roleInclusiveTime)
		case hasOwn && o.op.Engine == EngineGluten: // wall times may include children: never summed up
			incl[i] = own
		default:
			incl[i] = own + below
		}
	}
}

func (b *treeBuilder) finish(o *opNode) Operator {
	op := o.op
	op.PeakMemoryBytes = o.val(rolePeakMemory)
	op.SpillBytes = o.val(roleSpillBytes)
	op.SpillRows = o.val(roleSpillRows)
	const joinRoles = roleBuildTime | roleProbeTime | roleBuildRows | roleProbeRows | roleBuildSpillBytes | roleProbeSpillBytes | roleFiltersProduced
	if isJoin(o.kind) && o.has&joinRoles != 0 {
		j := &Join{
			BuildSeconds: o.val(roleBuildTime), ProbeSeconds: o.val(roleProbeTime),
			BuildRows: o.val(roleBuildRows), ProbeRows: o.val(roleProbeRows),
			BuildSpillBytes: o.val(roleBuildSpillBytes), ProbeSpillBytes: o.val(roleProbeSpillBytes),
			DynamicFiltersProduced: o.val(roleFiltersProduced), RowsReplacedByFilter: o.val(roleFilterReplacedRows),
		}
		if o.has&roleProbeTime == 0 && o.has&roleBuildTime != 0 && o.has&roleOwnTime != 0 {
			j.ProbeSeconds, j.ProbeEstimated = max(0, op.ExclusiveSeconds-j.BuildSeconds), true
		}
		op.Join = j
	}
	const tierRoles = roleStorageBytes | roleLocalBytes | roleRAMBytes
	const skipRoles = roleSkippedSplits | roleProcessedSplits | roleSkippedStrides | roleProcessedStrides
	const scanRoles = tierRoles | skipRoles | roleIOWait | roleFiltersAccepted
	if isScan(o.kind) && o.has&scanRoles != 0 {
		op.Scan = &Scan{
			StorageReadBytes: o.val(roleStorageBytes), LocalReadBytes: o.val(roleLocalBytes), RAMReadBytes: o.val(roleRAMBytes),
			HasTiers:      o.has&tierRoles != 0,
			IOWaitSeconds: o.val(roleIOWait), ReadSeconds: o.val(roleReadTime),
			SkippedSplits: o.val(roleSkippedSplits), ProcessedSplits: o.val(roleProcessedSplits),
			SkippedStrides: o.val(roleSkippedStrides), ProcessedStrides: o.val(roleProcessedStrides),
			HasSkipping:            o.has&skipRoles != 0,
			HasFilter:              hasDataFilter(o.plan),
			DynamicFiltersAccepted: o.val(roleFiltersAccepted),
		}
	}
	return op
}

// hasDataFilter tells whether a scan evaluates a data filter: Spark's scan
// metadata lists "DataFilters" / "PushedFilters" as "[…]".
func hasDataFilter(n *sparkevent.PlanNode) bool {
	for _, k := range []string{"DataFilters", "PushedFilters"} {
		if v, ok := n.Metadata[k]; ok && strings.TrimSpace(v) != "[]" && strings.TrimSpace(v) != "" {
			return true
		}
	}
	for _, k := range []string{"DataFilters: [", "PushedFilters: ["} {
		if i := strings.Index(n.SimpleString, k); i >= 0 && !strings.HasPrefix(n.SimpleString[i+len(k):], "]") {
			return true
		}
	}
	return false
}
