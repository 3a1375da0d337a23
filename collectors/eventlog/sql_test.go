package eventlog

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/analysis/sqlops"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// The SQL operator series of a real log with SQL (AQE updates, driver
// accumulator updates) equal sqlops' own summary of an independent analysis,
// and the operator label stays within --sql.max-operators (+ "other").
func TestSQLOperatorSeries(t *testing.T) {
	src := testkit.Events(t, "local-1642039451826")
	dir := t.TempDir()
	if err := os.Symlink(src, filepath.Join(dir, filepath.Base(src))); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(dir)
	cfg.SQLMaxOperators = 3
	w := startWatcher(t, cfg)
	waitReady(t, w)
	mfs := gather(t, w)

	ref := referenceReport(t, src, cfg.Interval)
	if len(ref.SQL) == 0 {
		t.Fatal("the reference analysis found no SQL execution in a log with SQL")
	}
	want := sqlops.Summarize(ref.SQL, 3)
	app := map[string]string{"app_id": ref.AppID}

	for status, n := range want.ExecutionsByStatus {
		got, ok := series(mfs, "spark_sql_executions_total", map[string]string{"app_id": ref.AppID, "status": strings.ToLower(status)})
		if !ok || got != float64(n) {
			t.Errorf("executions %s: %v (present %v), want %d", status, got, ok, n)
		}
	}
	var labels []string
	for _, op := range want.Operators {
		labels = append(labels, op.Operator)
		l := map[string]string{"app_id": ref.AppID, "operator": op.Operator}
		if got, _ := series(mfs, "spark_sql_operator_time_seconds_total", l); !near(got, op.TimeSeconds) {
			t.Errorf("%s time %v, want %v", op.Operator, got, op.TimeSeconds)
		}
		if got, _ := series(mfs, "spark_sql_operator_peak_memory_bytes", l); !near(got, op.PeakMemoryBytes) {
			t.Errorf("%s peak memory %v, want %v", op.Operator, got, op.PeakMemoryBytes)
		}
	}
	if len(labels) != 4 || !slices.Contains(labels, sqlops.OtherOperators) {
		t.Errorf("operator labels %v: want the top 3 and %q", labels, sqlops.OtherOperators)
	}
	if n := len(mfs["spark_sql_operator_time_seconds_total"].GetMetric()); n != 4 {
		t.Errorf("%d operator series, want 4", n)
	}
	if d := mfs["spark_sql_execution_duration_seconds"]; d == nil || d.GetMetric()[0].GetSummary().GetSampleCount() != uint64(len(want.DurationsSeconds)) {
		t.Errorf("duration summary %v, want %d finished executions", d, len(want.DurationsSeconds))
	}
	if sumSeries(mfs, "spark_sql_operator_time_seconds_total", app) <= 0 {
		t.Error("no operator time at all")
	}
}
