package main

import (
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// analyze prints the what-if in text and JSON, and the executor-count
// flags reach it: application_1628109047826_1317105 ran 5 short tasks on
// 10 one-core executors, where 1 does as well.
func TestAnalyzeWhatIf(t *testing.T) {
	path := testkit.Events(t, "application_1628109047826_1317105")
	out, err := runAnalyze(t, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\nWhat if (the tasks replayed on other executor counts; today 10 executors × 1 core at most)\n", "critical path ", "* ideal: 1 executor,", "executor_count_oversized: whole application: coreHoursSaved="} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	whatIf := func(args ...string) (ideal int, oversized bool) {
		out, err := runAnalyze(t, append([]string{"--json"}, append(args, path)...)...)
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			WhatIf struct {
				Executors, IdealExecutors int
			} `json:"whatIf"`
			Findings []struct{ Kind string } `json:"findings"`
		}
		oneApp(t, out, &r)
		if r.WhatIf.Executors != 10 {
			t.Errorf("whatIf.executors %d, want 10", r.WhatIf.Executors)
		}
		for _, f := range r.Findings {
			oversized = oversized || f.Kind == "executor_count_oversized"
		}
		return r.WhatIf.IdealExecutors, oversized
	}
	if ideal, over := whatIf(); ideal != 1 || !over {
		t.Errorf("ideal %d, oversized %v; want 1 and true", ideal, over)
	}
	if _, over := whatIf("--finding.executor-count.oversized=0.05"); over {
		t.Error("executor_count_oversized with the ideal 1 of 10 above 5% of them")
	}
}
