package analysis

import (
	"reflect"
	"testing"
	"time"
)

// Every finding threshold in Config is reachable through exactly one
// entry of FindingThresholds, so every one gets a --finding.* flag and no
// two flags write the same field.
func TestFindingThresholdsCoverEveryField(t *testing.T) {
	var cfg Config
	fields := map[uintptr]string{}
	for _, v := range []reflect.Value{reflect.ValueOf(&cfg.Thresholds).Elem(), reflect.ValueOf(&cfg.SQLThresholds).Elem()} {
		for i := range v.NumField() {
			fields[v.Field(i).Addr().Pointer()] = v.Type().Name() + "." + v.Type().Field(i).Name
		}
	}
	seenNames := map[string]bool{}
	for _, th := range FindingThresholds() {
		if seenNames[th.Name] {
			t.Errorf("threshold %s listed twice", th.Name)
		}
		seenNames[th.Name] = true
		if th.Help == "" {
			t.Errorf("threshold %s has no help", th.Name)
		}
		p := reflect.ValueOf(th.Field(&cfg)).Pointer()
		if _, ok := fields[p]; !ok {
			t.Errorf("threshold %s points at no Thresholds/SQLThresholds field, or one already taken", th.Name)
		}
		delete(fields, p)
		switch d := th.Default().(type) {
		case time.Duration, float64, int:
			if reflect.ValueOf(d).IsZero() {
				t.Errorf("threshold %s defaults to zero", th.Name)
			}
		}
	}
	for _, name := range fields {
		t.Errorf("%s has no entry in FindingThresholds (so no --finding.* flag)", name)
	}
}

// Every kind constant has exactly one rule with advice and a check.
func TestEveryFindingKindHasOneRule(t *testing.T) {
	kinds := []string{KindSingleCoreStage, KindUniformSpill, KindSkewedSpill, KindTaskSkew, KindLowEfficiency, KindGCPressure, KindShuffleWait, KindIdleExecutors,
		KindStageRetries, KindDriverMemoryPressure, KindExecutorCountOversized, KindStreamingFallingBehind, KindWorkloadRegression}
	rules := FindingRules()
	if len(rules) != len(kinds) {
		t.Errorf("%d rules for %d kinds", len(rules), len(kinds))
	}
	for _, k := range kinds {
		r, ok := FindingRuleOf(k)
		if !ok {
			t.Errorf("no rule for %s", k)
			continue
		}
		if r.Advice == "" || len(r.Thresholds) == 0 || checks(r) != 1 {
			t.Errorf("rule %s: advice %q, %d thresholds, stage check %v, app check %v", k, r.Advice, len(r.Thresholds), r.checkStage != nil, r.checkApp != nil)
		}
	}
}

// checks counts the ways a rule is checked: its stage check, its app check
// and another package.
func checks(r FindingRule) int {
	n := 0
	for _, set := range []bool{r.checkStage != nil, r.checkApp != nil, r.CheckedElsewhere != ""} {
		if set {
			n++
		}
	}
	return n
}
