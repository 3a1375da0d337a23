package sparkevent

import (
	"errors"
	"strings"
	"testing"
)

// widePlanLine writes a SparkListenerSQLExecutionStart line whose plan is a
// root with width leaves, each leaf with one metric.
func widePlanLine(width int) string {
	var b strings.Builder
	b.WriteString(`{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart","executionId":3,"sparkPlanInfo":{"nodeName":"Union","simpleString":"Union","children":[`)
	for i := range width {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"nodeName":"Scan","simpleString":"Scan","children":[],"metadata":{},"metrics":[{"name":"number of output rows","accumulatorId":7,"metricType":"sum"}]}`)
	}
	b.WriteString(`],"metadata":{},"metrics":[]},"time":5}`)
	return b.String()
}

func countPlanNodes(n *PlanNode) int {
	count := 0
	stack := []*PlanNode{n}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if p != nil {
			count++
			stack = append(stack, p.Children...)
		}
	}
	return count
}

// A plan of more nodes than MaxDecodedPlanNodes is built only up to the
// bound; the rest of the value is skipped (still validated) and the
// fields after it are read.
func TestDecodePlanNodesBounded(t *testing.T) {
	ev, err := DecodeLine([]byte(widePlanLine(MaxDecodedPlanNodes + 500)))
	if err != nil {
		t.Fatal(err)
	}
	start := ev.(*SQLExecutionStart)
	if got := countPlanNodes(start.Plan); got != MaxDecodedPlanNodes {
		t.Errorf("%d plan nodes built, want %d", got, MaxDecodedPlanNodes)
	}
	if start.Time != 5 || start.ExecutionID != 3 {
		t.Errorf("fields after the plan lost: %+v", start)
	}
	// The count is per line: the next line's plan is built whole.
	ev, err = DecodeLine([]byte(widePlanLine(10)))
	if err != nil {
		t.Fatal(err)
	}
	if got := countPlanNodes(ev.(*SQLExecutionStart).Plan); got != 11 {
		t.Errorf("%d plan nodes, want 11", got)
	}
	// Damage past the bound is still found.
	bad := widePlanLine(MaxDecodedPlanNodes + 5)
	bad = bad[:len(bad)-200] + "]]" + bad[len(bad)-200:]
	if _, err := DecodeLine([]byte(bad)); err == nil {
		t.Error("a damaged plan past the bound decoded without an error")
	}
}

// A plan nested 100,000 levels deep (far past Jackson's 1000) is refused
// with a clear error naming the column, without recursing that deep.
func TestDecodeDeepPlanRefused(t *testing.T) {
	const depth = 100_000
	var b strings.Builder
	b.WriteString(`{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart","executionId":1,"sparkPlanInfo":`)
	for range depth {
		b.WriteString(`{"nodeName":"Filter","children":[`)
	}
	for range depth {
		b.WriteString(`]}`)
	}
	b.WriteString(`,"time":1}`)
	_, err := DecodeLine([]byte(b.String()))
	var de *DecodeError
	if !errors.As(err, &de) || !strings.Contains(de.Msg, "nesting deeper than") || de.Column <= 0 {
		t.Fatalf("err = %v, want a nesting DecodeError with its column", err)
	}
	// The decoder is usable for the next line.
	if _, err := DecodeLine([]byte(widePlanLine(2))); err != nil {
		t.Fatal(err)
	}
}
