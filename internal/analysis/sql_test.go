package analysis

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/analysis/sqlops"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// TestReportSQL: the report carries the SQL executions in the report's
// JSON shape, and the per-operator findings join the list.
func TestReportSQL(t *testing.T) {
	r := analyzePath(t, testkit.Events(t, "local-1642039451826"), DefaultConfig())
	if len(r.SQL) != 2 || r.SQL[0].Status != sqlops.StatusCompleted || len(r.SQL[0].Operators) != 14 {
		t.Fatalf("sql %+v", r.SQL)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"sql":[{"executionId":0,"description":"count at \u003cconsole\u003e:23","start":`, `"operators":[{"id":0,"name":"AdaptiveSparkPlan","parentId":null,`, `{"id":6,"name":"WholeStageCodegen (2)","parentId":5,"engine":"spark","metrics":{"duration":0.104},"exclusiveSeconds":0.0109`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("JSON lacks %s", k)
		}
	}

	r = analyzePath(t, testkit.Events(t, "extra/spark-rapids-tools/spark-events-qualification/aqeshuffle_eventlog.zstd"), DefaultConfig())
	var spill []Finding
	for _, f := range r.Findings {
		if f.Kind == sqlops.KindNativeSpill {
			spill = append(spill, f)
		}
	}
	if len(spill) != 2 || spill[0].ExecutionID == nil || *spill[0].ExecutionID != 0 || spill[0].OperatorID == nil || spill[0].Operator != "Sort" {
		t.Errorf("native_spill findings %+v", spill)
	}
}
