package eventlog

import (
	"slices"
	"testing"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/analysis/sqlops"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
	"github.com/sparkglance/sparkglance/internal/sparklog"
	"github.com/sparkglance/sparkglance/internal/sparklog/objstore"
	"github.com/sparkglance/sparkglance/internal/workload"
)

// The per-application families the collector builds are its sections' in
// the schema, and the families shared with the spark collector are
// metricschema' definitions themselves, not copies.
func TestFamiliesAreTheSchemas(t *testing.T) {
	if err := sm.Check([]sm.Section{{Collector: CollectorName, Metrics: Metrics()}}); err != nil {
		t.Error(err)
	}
	mine := map[string]*sm.Metric{}
	for _, m := range Metrics() {
		mine[m.Name] = m
	}
	for _, f := range families {
		if mine[f.m.Name] != f.m.Metric {
			t.Errorf("%s: emitted but not in the schema's eventlog sections", f.m.Name)
		}
	}
	for _, s := range sm.Shared() {
		if mine[s.Name] != s {
			t.Errorf("%s: the event-log collector must emit metricschema' definition", s.Name)
		}
	}
}

// The workload measures and run statuses are the schema's closed values.
func TestWorkloadLabelsAreTheSchemas(t *testing.T) {
	declared := map[string]bool{}
	for _, v := range sm.MeasureLabel.Values {
		declared[string(v)] = true
	}
	for _, m := range workload.Measures() {
		if !declared[m.String()] {
			t.Errorf("measure %s is not declared in the schema", m)
		}
		delete(declared, m.String())
	}
	if len(declared) > 0 {
		t.Errorf("the schema declares measures the workloads do not have: %v", declared)
	}
}

// The kind label of spark_app_finding declares exactly the analysis'
// finding kinds: its rules' and its SQL operators'.
func TestFindingKindsAreTheSchemas(t *testing.T) {
	kinds := []string{sqlops.KindBottleneckOperator, sqlops.KindExpensiveFilterOrProject, sqlops.KindJoinBuildDominated,
		sqlops.KindJoinProbeDominated, sqlops.KindNativeSpill, sqlops.KindPushdownNotApplied, sqlops.KindDynamicFilterUnused,
		sqlops.KindColdCache, sqlops.KindIOBoundScan}
	for _, r := range analysis.FindingRules() {
		kinds = append(kinds, r.Kind)
	}
	slices.Sort(kinds)
	if got := sm.AppFinding.Values("kind"); !slices.Equal(got, kinds) {
		t.Errorf("the schema's finding kinds %v, the analysis' %v", got, kinds)
	}
}

// The reason label of sparkglance_eventlog_errors_total declares every
// damage kind of the reader, besides the collector's own reasons.
func TestErrorReasonsAreTheSchemas(t *testing.T) {
	declared := sm.EventlogErrors.Values("reason")
	for _, k := range []sparklog.ProblemKind{sparklog.ProblemMalformedJSON, sparklog.ProblemNotEventLog, sparklog.ProblemCorruptData,
		sparklog.ProblemTruncatedData, sparklog.ProblemUnknownCodec, sparklog.ProblemCodecMismatch, sparklog.ProblemEmptyFile,
		sparklog.ProblemLineTooLong, sparklog.ProblemTruncatedLine, sparklog.ProblemMissingFile, sparklog.ProblemLayout,
		sparklog.ProblemFileShrank, sparklog.ProblemIO, sparklog.ProblemUnreadable, sparklog.ProblemNotRegular,
		sparklog.ProblemExternalLink} {
		if !slices.Contains(declared, string(k)) {
			t.Errorf("the reader's problem kind %s is not a declared reason", k)
		}
	}
	for _, r := range errorReasons {
		if !slices.Contains(declared, r) {
			t.Errorf("reason %s, exported from the start, is not declared", r)
		}
	}
}

// The op and result labels of sparkglance_eventlog_object_requests_total
// declare every operation and result the object-store readers count.
func TestObjectRequestLabelsAreTheSchemas(t *testing.T) {
	for label, values := range map[string][]string{
		"op":     {objstore.OpList, objstore.OpStat, objstore.OpGet, objstore.OpOther},
		"result": {objstore.ResultOK, objstore.ResultNotFound, objstore.ResultDenied, objstore.ResultThrottled, objstore.ResultError},
	} {
		declared := sm.EventlogObjectRequests.Values(label)
		for _, v := range values {
			if !slices.Contains(declared, v) {
				t.Errorf("object-store %s %q is not declared", label, v)
			}
		}
		if len(declared) != len(values) {
			t.Errorf("object-store %s: the schema declares %v, the readers count %v", label, declared, values)
		}
	}
}
