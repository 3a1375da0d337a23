package sqlops

import (
	"strconv"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// Options tune a Model. The zero value is ready to use.
type Options struct {
	// MaxExecutions bounds the executions kept (Spark's own UI keeps
	// spark.sql.ui.retainedExecutions = 1000); the oldest finished ones
	// and their accumulators are dropped first. 0 means 1000.
	MaxExecutions int
	// MaxPlanNodes bounds the plan nodes kept of an execution, all its
	// AQE plan versions together. A version with more is cut to its
	// first nodes in pre-order (OnPlanCut is called); beyond the budget
	// the oldest versions are dropped, the latest kept, since operator
	// ids are positions in the final plan (OnVersionsDropped is called).
	// 0 means DefaultMaxPlanNodes.
	MaxPlanNodes int
	// OnPlanCut, when set, hears of every plan cut to MaxPlanNodes.
	OnPlanCut func(executionID int64, nodes, kept int)
	// OnVersionsDropped, when set, hears of earlier plan versions dropped
	// to keep an execution within MaxPlanNodes.
	OnVersionsDropped func(executionID int64, versions, nodes, budget int)
}

// DefaultMaxPlanNodes is the default Options.MaxPlanNodes: far above real
// plans (hundreds of nodes), far below a generated plan of hundreds of
// megabytes that would otherwise be kept whole.
const DefaultMaxPlanNodes = 10_000

// Model folds the SQL side of an event log: plans, accumulators and the
// jobs linking them. Feed it every event in log order with Add; it is not
// safe for concurrent use.
type Model struct {
	maxExecs          int
	maxPlanNodes      int
	onPlanCut         func(executionID int64, nodes, kept int)
	onVersionsDropped func(executionID int64, versions, nodes, budget int)
	execs             map[int64]*execution
	order             []int64 // execution ids in start order
	accs              map[int64]*accum
	accType           map[int64]string // accumulator → metric type, from the plans
	jobExec           map[int]int64    // job id → execution id

	// pending holds accumulators updated before any plan names them:
	// subqueries run while AQE plans, so their tasks can end before the
	// plan update that shows their nodes. Bounded by maxPending.
	pending map[int64]*accum
	// unmapped counts updates dropped because pending was full.
	unmapped int64
}

// maxPending bounds the accumulators kept while no plan names them.
const maxPending = 1 << 16

type execution struct {
	id           int64
	description  string
	start, end   int64 // epoch ms
	ended        bool
	errorMsg     string
	jobFailed    bool
	versions     []*sparkevent.PlanNode // plans kept, oldest first, final last
	versionNodes []int                  // nodes of each kept version
	heldNodes    int                    // Σ versionNodes, at most MaxPlanNodes
	droppedNodes int64                  // plan nodes cut or dropped (MaxPlanNodes)
}

// NewModel starts an empty model.
func NewModel(opts Options) *Model {
	if opts.MaxExecutions <= 0 {
		opts.MaxExecutions = 1000
	}
	if opts.MaxPlanNodes <= 0 {
		opts.MaxPlanNodes = DefaultMaxPlanNodes
	}
	return &Model{
		maxExecs:          opts.MaxExecutions,
		maxPlanNodes:      opts.MaxPlanNodes,
		onPlanCut:         opts.OnPlanCut,
		onVersionsDropped: opts.OnVersionsDropped,
		execs:             map[int64]*execution{},
		accs:              map[int64]*accum{},
		accType:           map[int64]string{},
		jobExec:           map[int]int64{},
		pending:           map[int64]*accum{},
	}
}

// Add folds one event; events without SQL content are ignored cheaply.
func (m *Model) Add(ev sparkevent.Event) {
	switch e := ev.(type) {
	case *sparkevent.TaskEnd:
		for i := range e.Task.Accumulables {
			if u, ok := e.Task.Accumulables[i].SQLUpdate(); ok {
				m.taskUpdate(u)
			}
		}
		for _, u := range e.Task.SQLUpdates {
			m.taskUpdate(u)
		}
	case *sparkevent.SQLExecutionStart:
		x := m.exec(e.ExecutionID)
		x.description, x.start = e.Description, e.Time
		m.addPlan(x, e.Plan)
	case *sparkevent.SQLAdaptiveExecutionUpdate:
		m.addPlan(m.exec(e.ExecutionID), e.Plan)
	case *sparkevent.SQLExecutionEnd:
		x := m.exec(e.ExecutionID)
		x.end, x.ended, x.errorMsg = e.Time, true, e.ErrorMessage
		m.evict()
	case *sparkevent.DriverAccumUpdates:
		for _, u := range e.Updates {
			if a := m.accum(u.ID); a != nil {
				a.add(u.Value, true)
			}
		}
	case *sparkevent.JobStart:
		if s, ok := e.Properties["spark.sql.execution.id"]; ok {
			if id, err := strconv.ParseInt(s, 10, 64); err == nil {
				m.jobExec[e.JobID] = id
			}
		}
	case *sparkevent.JobEnd:
		if id, ok := m.jobExec[e.JobID]; ok {
			delete(m.jobExec, e.JobID)
			if x := m.execs[id]; x != nil && e.Result == "JobFailed" {
				x.jobFailed = true
			}
		}
	}
}

// taskUpdate folds a task's update of a SQL metric.
func (m *Model) taskUpdate(u sparkevent.SQLUpdate) {
	a := m.accum(u.ID)
	if a == nil {
		return
	}
	if u.HasUpdate {
		a.add(u.Update, false)
	}
	a.last, a.hasLast = u.Value, true
}

// accum finds an accumulator's state, pending if no plan names it yet;
// nil when pending is full.
func (m *Model) accum(id int64) *accum {
	if a := m.accs[id]; a != nil {
		return a
	}
	a := m.pending[id]
	if a == nil {
		if len(m.pending) >= maxPending {
			m.unmapped++
			return nil
		}
		a = newAccum()
		m.pending[id] = a
	}
	return a
}

func (m *Model) exec(id int64) *execution {
	x := m.execs[id]
	if x == nil {
		x = &execution{id: id}
		m.execs[id] = x
		m.order = append(m.order, id)
	}
	return x
}

// addPlan keeps a plan version and registers its accumulators; ids seen
// in an earlier version keep their state.
func (m *Model) addPlan(x *execution, plan *sparkevent.PlanNode) {
	if plan == nil {
		return
	}
	plan, nodes := cutPlan(plan, m.maxPlanNodes)
	kept := nodes
	if nodes > m.maxPlanNodes {
		kept = m.maxPlanNodes
		x.droppedNodes += int64(nodes - m.maxPlanNodes)
		if m.onPlanCut != nil {
			m.onPlanCut(x.id, nodes, m.maxPlanNodes)
		}
	}
	x.versions = append(x.versions, plan)
	x.versionNodes = append(x.versionNodes, kept)
	x.heldNodes += kept
	walk(plan, func(n *sparkevent.PlanNode) {
		for _, pm := range n.Metrics {
			if _, ok := m.accs[pm.AccumulatorID]; !ok {
				a := m.pending[pm.AccumulatorID]
				if a == nil {
					a = newAccum()
				}
				delete(m.pending, pm.AccumulatorID)
				m.accs[pm.AccumulatorID] = a
			}
			m.accType[pm.AccumulatorID] = pm.MetricType
		}
	})
	m.trimVersions(x)
}

// trimVersions drops the oldest plan versions of x until its nodes fit
// MaxPlanNodes (many AQE updates of a big plan), keeping the final one.
// Accumulators only a dropped version named are released: no kept node
// can show their values, and they would otherwise stay until eviction.
func (m *Model) trimVersions(x *execution) {
	versions, nodes := 0, 0
	for x.heldNodes > m.maxPlanNodes && len(x.versions) > 1 {
		old := x.versions[0]
		n := x.versionNodes[0]
		x.versions[0] = nil // the backing array must not keep it alive
		x.versions, x.versionNodes = x.versions[1:], x.versionNodes[1:]
		x.heldNodes -= n
		versions++
		nodes += n
		named := map[int64]bool{}
		for _, v := range x.versions {
			walk(v, func(p *sparkevent.PlanNode) {
				for _, pm := range p.Metrics {
					named[pm.AccumulatorID] = true
				}
			})
		}
		walk(old, func(p *sparkevent.PlanNode) {
			for _, pm := range p.Metrics {
				if !named[pm.AccumulatorID] {
					delete(m.accs, pm.AccumulatorID)
					delete(m.accType, pm.AccumulatorID)
				}
			}
		})
	}
	if versions == 0 {
		return
	}
	x.droppedNodes += int64(nodes)
	if m.onVersionsDropped != nil {
		m.onVersionsDropped(x.id, versions, nodes, m.maxPlanNodes)
	}
}

// evict drops the oldest finished executions beyond the bound.
func (m *Model) evict() {
	for i := 0; len(m.execs) > m.maxExecs && i < len(m.order); {
		x := m.execs[m.order[i]]
		if !x.ended {
			i++
			continue
		}
		for _, v := range x.versions {
			walk(v, func(n *sparkevent.PlanNode) {
				for _, pm := range n.Metrics {
					delete(m.accs, pm.AccumulatorID)
					delete(m.accType, pm.AccumulatorID)
				}
			})
		}
		delete(m.execs, x.id)
		m.order = append(m.order[:i], m.order[i+1:]...)
	}
}

// walk visits a plan tree in pre-order; nil children are skipped.
func walk(n *sparkevent.PlanNode, fn func(*sparkevent.PlanNode)) {
	if n == nil {
		return
	}
	fn(n)
	for _, c := range n.Children {
		walk(c, fn)
	}
}

// cutPlan returns plan and its node count when it has at most limit
// nodes, else a copy of its first limit nodes in pre-order (the root and
// the operators nearest the output). Neither pass recurses, so a plan of
// any depth is safe; the caller's plan is not changed.
func cutPlan(plan *sparkevent.PlanNode, limit int) (*sparkevent.PlanNode, int) {
	nodes := 0
	stack := []*sparkevent.PlanNode{plan}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n == nil {
			continue
		}
		nodes++
		stack = append(stack, n.Children...)
	}
	if nodes <= limit {
		return plan, nodes
	}
	type pending struct{ src, parent *sparkevent.PlanNode }
	root := shallowNode(plan)
	kept := 1
	todo := make([]pending, 0, 64)
	pushChildren := func(src, dst *sparkevent.PlanNode) {
		for i := len(src.Children) - 1; i >= 0; i-- {
			if src.Children[i] != nil {
				todo = append(todo, pending{src.Children[i], dst})
			}
		}
	}
	pushChildren(plan, root)
	for len(todo) > 0 && kept < limit {
		p := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		c := shallowNode(p.src)
		p.parent.Children = append(p.parent.Children, c)
		kept++
		pushChildren(p.src, c)
	}
	return root, nodes
}

// shallowNode copies a node without its children.
func shallowNode(n *sparkevent.PlanNode) *sparkevent.PlanNode {
	c := *n
	c.Children = nil
	return &c
}
