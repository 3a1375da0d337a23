package simulate

import (
	"fmt"
	"strings"
)

// sqlOperator is one node of a simulated physical plan with its SQL
// metrics (name, metric type, final value in Spark's unit).
type sqlOperator struct {
	name     string
	metrics  [][3]any
	children []sqlOperator
}

// sqlPlan is the plan of the demo's rollup query: a sort-merge join whose
// sort spills, under a hash aggregate, so the SQL operator panels have
// time, spill and peak memory to show.
func sqlPlan(scale int64) sqlOperator {
	scan := sqlOperator{name: "Scan parquet", metrics: [][3]any{{"scan time", "timing", 900 * scale}}}
	sort := sqlOperator{name: "Sort", metrics: [][3]any{{"sort time", "timing", 2400 * scale}, {"peak memory", "size", 512 << 20 * scale}, {"spill size", "size", 900 << 20 * scale}},
		children: []sqlOperator{{name: "Exchange", metrics: [][3]any{{"shuffle write time", "nsTiming", 400_000_000 * scale}}, children: []sqlOperator{scan}}}}
	join := sqlOperator{name: "SortMergeJoin", children: []sqlOperator{sort, sort}}
	return sqlOperator{name: "HashAggregate", metrics: [][3]any{{"time in aggregation build", "timing", 1500 * scale}, {"peak memory", "size", 256 << 20 * scale}},
		children: []sqlOperator{join}}
}

// sqlExecution wraps run (the execution's jobs) in an SQL execution:
// its start with the plan, the driver's final metric values, its end.
func (s *writer) sqlExecution(id int, description string, run func()) {
	var updates []string
	next := int64(90000 + id*100)
	var plan func(op sqlOperator) string
	plan = func(op sqlOperator) string {
		var ms, cs []string
		for _, m := range op.metrics {
			ms = append(ms, fmt.Sprintf(`{"name":%q,"accumulatorId":%d,"metricType":%q}`, m[0], next, m[1]))
			updates = append(updates, fmt.Sprintf("[%d,%d]", next, m[2]))
			next++
		}
		for _, c := range op.children {
			cs = append(cs, plan(c))
		}
		return fmt.Sprintf(`{"nodeName":%q,"simpleString":%q,"children":[%s],"metadata":{},"metrics":[%s]}`,
			op.name, op.name, strings.Join(cs, ","), strings.Join(ms, ","))
	}
	info := plan(sqlPlan(int64(max(1, s.cfg.TasksPerStage/32))))
	s.now += 10
	s.emit(s.now, fmt.Sprintf(`{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart","executionId":%d,"description":%q,"details":"","physicalPlanDescription":"","sparkPlanInfo":%s,"time":%d}`,
		id, description, info, s.now))
	run()
	s.now += 10
	s.emit(s.now, fmt.Sprintf(`{"Event":"org.apache.spark.sql.execution.ui.SparkListenerDriverAccumUpdates","executionId":%d,"accumUpdates":[%s]}`, id, strings.Join(updates, ",")))
	s.emit(s.now, fmt.Sprintf(`{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd","executionId":%d,"time":%d}`, id, s.now))
}
