package alerts_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/prometheus/otlptranslator"

	"github.com/sparkglance/sparkglance/alerts"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// The committed OTLP rule file is what the code renders from the schema
// (fix: make dashboards).
func TestOTLPRuleFileIsUpToDate(t *testing.T) {
	want, err := alerts.RenderOTLP()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(alerts.OTLPRuleFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run `make dashboards` and commit the result", alerts.OTLPRuleFile)
	}
}

// The OTLP rule file loads under Debian's promtool 2 and Prometheus 3's.
func TestPromtoolCheckOTLPRules(t *testing.T) {
	groups, err := alerts.OTLPGroups()
	if err != nil {
		t.Fatal(err)
	}
	testkit.ForEachPrometheus(t, func(t *testing.T, p testkit.Prometheus) {
		out, err := exec.Command(p.Promtool, "check", "rules", alerts.OTLPRuleFile).CombinedOutput()
		if err != nil {
			t.Fatalf("promtool %s check rules: %v\n%s", p.Name, err, out)
		}
		if want := fmt.Sprintf("SUCCESS: %d rules found", len(groups[0].Rules)); !strings.Contains(string(out), want) {
			t.Errorf("promtool %s check rules said %q, want %q", p.Name, out, want)
		}
	})
}

// Every rule records a schema family under its /metrics name from the name
// the default translation gives it, and every family that translation
// renames has its rule; spark_app_finding (alerts), spark_app_info (the
// dashboards' filter) and sparkglance_build_info (their job and instance
// variables) among them. Under NoTranslation no family is renamed, so that
// strategy needs no rule (deploy/README.md says so).
func TestOTLPRulesUndoTheTranslation(t *testing.T) {
	groups, err := alerts.OTLPGroups()
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 1 {
		t.Fatalf("%d groups, want 1", len(groups))
	}
	recorded := map[string]string{}
	for _, r := range groups[0].Rules {
		m, ok := sm.Lookup(r.Record)
		if !ok {
			t.Errorf("rule records %s, no family of the schema", r.Record)
			continue
		}
		if got, err := alerts.OTLPName(m, otlptranslator.UnderscoreEscapingWithSuffixes); err != nil || got != r.Expr {
			t.Errorf("rule %s reads %s; the translation names it %s (%v)", r.Record, r.Expr, got, err)
		}
		recorded[r.Record] = r.Expr
	}
	for _, name := range []string{"spark_app_finding", "spark_app_info", "sparkglance_build_info", "spark_app_energy_wh_total"} {
		if recorded[name] == "" {
			t.Errorf("no rule records %s", name)
		}
	}
	renamed := 0
	for _, m := range sm.All() {
		if m.Pattern {
			continue
		}
		name, err := alerts.OTLPName(m, otlptranslator.UnderscoreEscapingWithSuffixes)
		if err != nil {
			t.Fatal(err)
		}
		if name != m.Name {
			renamed++
			if recorded[m.Name] != name {
				t.Errorf("%s arrives as %s after OTLP and no rule records it back", m.Name, name)
			}
		}
		if kept, err := alerts.OTLPName(m, otlptranslator.NoTranslation); err != nil || kept != m.Name {
			t.Errorf("%s arrives as %s under NoTranslation (%v)", m.Name, kept, err)
		}
	}
	if renamed != len(recorded) {
		t.Errorf("%d rules for %d renamed families", len(recorded), renamed)
	}
}
