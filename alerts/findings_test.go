package alerts_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/alerts"
	"github.com/sparkglance/sparkglance/internal/analysis"
)

// The alerts about a finding quote the analysis' thresholds, never numbers
// of their own: the shipped rules must use the findings' defaults, and each
// alert on spark_app_finding must name a kind the analysis reports.
func TestFindingAlertsUseTheFindingsThresholds(t *testing.T) {
	th := alerts.DefaultThresholds()
	if th.Findings != analysis.DefaultThresholds() {
		t.Fatalf("alerts.DefaultThresholds().Findings = %+v, want analysis.DefaultThresholds() %+v", th.Findings, analysis.DefaultThresholds())
	}
	f := th.Findings
	want := map[string][]string{
		"SparkAppCpuEfficiencyLow":         {analysis.KindLowEfficiency, "less than 20% ", "at least 1m "},
		"SparkStageSingleCore":             {analysis.KindSingleCoreStage, "at least 30s ", "at least 8 cores"},
		"SparkExecutorMemoryLow":           {analysis.KindUniformSpill, "at least 75% ", "at most 2× "},
		"SparkExecutorSpillSkew":           {analysis.KindSkewedSpill, "at least 3× "},
		"SparkStreamingQueryFallingBehind": {analysis.KindStreamingFallingBehind, "at least 3 consecutive batches"},
	}
	// The literal numbers above are today's defaults; if a default changes,
	// this test and the rule file change together.
	if f.LowEfficiency != 0.2 || f.SingleCoreMinCores != 8 || f.UniformSpillShare != 0.75 || f.SkewedSpillRatio != 3 || f.StreamingBehindBatches != 3 {
		t.Fatalf("finding defaults changed (%+v): update the expectations here and run `make docs`", f)
	}
	kindOf := regexp.MustCompile(`spark_app_finding\{kind="([a-z_]+)"\}`)
	for _, r := range alertRules(t) {
		m := kindOf.FindStringSubmatch(r.Expr)
		exp, isFinding := want[r.Alert]
		if m == nil {
			if isFinding {
				t.Errorf("%s is about the %s finding but does not fire on spark_app_finding:\n%s", r.Alert, exp[0], r.Expr)
			}
			continue
		}
		if _, ok := analysis.FindingRuleOf(m[1]); !ok {
			t.Errorf("%s fires on spark_app_finding{kind=%q}, which the analysis never reports", r.Alert, m[1])
		}
		if !isFinding {
			t.Errorf("%s fires on a finding but has no expectations here", r.Alert)
			continue
		}
		if m[1] != exp[0] {
			t.Errorf("%s fires on kind %q, want %q", r.Alert, m[1], exp[0])
		}
		for _, s := range exp[1:] {
			if !strings.Contains(r.Annotations["description"], s) {
				t.Errorf("%s: description does not quote the finding threshold %q:\n%s", r.Alert, s, r.Annotations["description"])
			}
		}
	}
}

// SparkWorkloadRegressed fires on the exporter's regression series, set by
// the findings table's workload_regression thresholds, and quotes them.
func TestWorkloadAlertQuotesTheFindingsThresholds(t *testing.T) {
	f := alerts.DefaultThresholds().Findings
	if f.WorkloadWallTimeRatio != 1.5 || f.WorkloadWallTimeMin.String() != "2m0s" || f.WorkloadEfficiencyDrop != 0.15 ||
		f.WorkloadCostRatio != 1.5 || f.WorkloadSpillRatio != 2 || f.WorkloadSpillMinBytes != 1<<30 || f.WorkloadInputTolerance != 0.25 {
		t.Fatalf("workload_regression defaults changed (%+v): update the expectations here and run `make docs`", f)
	}
	for _, r := range alertRules(t) {
		if r.Alert != "SparkWorkloadRegressed" {
			continue
		}
		if !strings.Contains(r.Expr, "spark_workload_regression == 1") {
			t.Errorf("expr does not fire on spark_workload_regression:\n%s", r.Expr)
		}
		for _, s := range []string{"wall time at least 1.5× and at least 2m longer", "efficiency at least 0.15 lower",
			"core-hours or cost at least 1.5×", "spill at least 2× and at least 1GiB more", "within 25%"} {
			if !strings.Contains(r.Annotations["description"], s) {
				t.Errorf("description does not quote %q:\n%s", s, r.Annotations["description"])
			}
		}
		return
	}
	t.Error("no SparkWorkloadRegressed alert")
}
