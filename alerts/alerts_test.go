package alerts_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	yaml "go.yaml.in/yaml/v2"

	"github.com/sparkglance/sparkglance/alerts"
	"github.com/sparkglance/sparkglance/alerts/promqltest"
	"github.com/sparkglance/sparkglance/internal/testkit"
	"github.com/sparkglance/sparkglance/internal/testkit/promtest"
)

// The committed rule file must be what the code renders: CI fails when
// someone edits one without the other (fix: make dashboards).
func TestRuleFileIsUpToDate(t *testing.T) {
	want, err := alerts.Render(alerts.DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(alerts.RuleFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run `make dashboards` and commit the result", alerts.RuleFile)
	}
}

// The rule file loads under Debian's promtool 2 and under Prometheus 3's.
func TestPromtoolCheckRules(t *testing.T) {
	testkit.ForEachPrometheus(t, func(t *testing.T, p testkit.Prometheus) {
		out, err := exec.Command(p.Promtool, "check", "rules", alerts.RuleFile).CombinedOutput()
		if err != nil {
			t.Fatalf("promtool %s check rules: %v\n%s", p.Name, err, out)
		}
		n := 0
		for _, g := range alerts.Groups(alerts.DefaultThresholds()) {
			n += len(g.Rules)
		}
		if want := fmt.Sprintf("SUCCESS: %d rules found", n); !strings.Contains(string(out), want) {
			t.Errorf("promtool %s check rules said %q, want %q", p.Name, out, want)
		}
	})
}

// The rules' unit tests pass under both promtools: Prometheus 3 evaluates
// ranges left-open, 2 closed.
func TestPromtoolUnitTests(t *testing.T) {
	files, err := filepath.Glob("*_test.yml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no promtool test files (%v)", err)
	}
	testkit.ForEachPrometheus(t, func(t *testing.T, p testkit.Prometheus) {
		out, err := exec.Command(p.Promtool, append([]string{"test", "rules"}, files...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("promtool %s test rules: %v\n%s", p.Name, err, out)
		}
	})
}

// promtool fails a wrong expectation but not a missing one: check that
// every alert has a firing case and a silent case at an earlier time.
func TestEveryAlertIsUnitTested(t *testing.T) {
	var suite struct {
		Tests []struct {
			AlertRuleTest []struct {
				EvalTime  string `yaml:"eval_time"`
				Alertname string `yaml:"alertname"`
				ExpAlerts []any  `yaml:"exp_alerts"`
			} `yaml:"alert_rule_test"`
		} `yaml:"tests"`
	}
	b, err := os.ReadFile("sparkglance-rules_test.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &suite); err != nil {
		t.Fatal(err)
	}
	fires, silent := map[string]time.Duration{}, map[string]time.Duration{}
	for _, tc := range suite.Tests {
		for _, a := range tc.AlertRuleTest {
			d, err := time.ParseDuration(a.EvalTime)
			if err != nil {
				t.Fatalf("eval_time %q: %v", a.EvalTime, err)
			}
			if len(a.ExpAlerts) > 0 {
				fires[a.Alertname] = d
			} else {
				silent[a.Alertname] = d
			}
		}
	}
	for _, r := range alertRules(t) {
		f, ok := fires[r.Alert]
		if !ok {
			t.Errorf("%s: no unit test where it fires", r.Alert)
			continue
		}
		s, ok := silent[r.Alert]
		if !ok || s >= f {
			t.Errorf("%s: no unit test where it is still silent before firing at %s", r.Alert, f)
		}
	}
}

// Each alert carries for, severity, summary, a description with its value
// and a runbook_url whose anchor is a heading of docs/runbook.md.
func TestEveryAlertIsComplete(t *testing.T) {
	runbook, err := os.ReadFile(filepath.Join("..", "docs", "runbook.md"))
	if err != nil {
		t.Fatal(err)
	}
	heading := regexp.MustCompile(`(?m)^## (\S+)`)
	anchors := map[string]bool{}
	for _, m := range heading.FindAllStringSubmatch(string(runbook), -1) {
		anchors[strings.ToLower(m[1])] = true
	}
	severities := map[string]bool{"critical": true, "warning": true, "info": true}
	for _, r := range alertRules(t) {
		if r.For == "" {
			t.Errorf("%s: no for", r.Alert)
		}
		if !severities[r.Labels["severity"]] {
			t.Errorf("%s: severity %q", r.Alert, r.Labels["severity"])
		}
		if r.Annotations["summary"] == "" {
			t.Errorf("%s: no summary", r.Alert)
		}
		// An "== 0" alert's value is always 0: its labels are the values.
		if !strings.Contains(r.Annotations["description"], "$value") && !strings.HasSuffix(r.Expr, "== 0") {
			t.Errorf("%s: description does not show the value", r.Alert)
		}
		url := r.Annotations["runbook_url"]
		anchor, ok := strings.CutPrefix(url, alerts.RunbookBase)
		if !ok || !anchors[anchor] {
			t.Errorf("%s: runbook_url %q has no heading in docs/runbook.md", r.Alert, url)
		}
	}
}

// Every expression parses in a real Prometheus and reads only documented
// metrics or recording rules.
func TestRuleExpressionsAreValid(t *testing.T) {
	srv := promtest.Start(t, promtest.MinimalConfig, nil)
	var exprs []promqltest.Expr
	var recorded []string
	for _, g := range alerts.Groups(alerts.DefaultThresholds()) {
		for _, r := range g.Rules {
			exprs = append(exprs, promqltest.Expr{Where: g.Name + "/" + r.Record + r.Alert, Text: r.Expr})
			if r.Record != "" {
				recorded = append(recorded, r.Record)
			}
		}
	}
	promqltest.CheckExpressions(t, srv, exprs, promqltest.Known(t, recorded))
}

func alertRules(t *testing.T) []alerts.Rule {
	t.Helper()
	var out []alerts.Rule
	for _, g := range alerts.Groups(alerts.DefaultThresholds()) {
		for _, r := range g.Rules {
			if r.Alert != "" {
				out = append(out, r)
			}
		}
	}
	if len(out) < 9 {
		t.Fatalf("only %d alerts", len(out))
	}
	return out
}
