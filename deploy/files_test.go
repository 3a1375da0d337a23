package deploy_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	yamlv2 "go.yaml.in/yaml/v2"

	"github.com/sparkglance/sparkglance/alerts"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

func yamlV2Unmarshal(b []byte, v any) error { return yamlv2.Unmarshal(b, v) }

func run(t *testing.T, tool string, args ...string) string {
	t.Helper()
	out, err := exec.Command(testkit.RequireTool(t, tool), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", tool, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func TestPrometheusConfigs(t *testing.T) {
	for _, f := range []string{"prometheus/prometheus-static.yml", "prometheus/prometheus-file-sd.yml"} {
		out := run(t, "promtool", "check", "config", f)
		if !strings.Contains(out, "SUCCESS: "+ruleCount()+" rules found") {
			t.Errorf("%s: the rule file was not checked with it:\n%s", f, out)
		}
	}
	// The compose file's rule path exists only inside its container.
	run(t, "promtool", "check", "config", "--syntax-only", "compose/prometheus.yml")

	var groups []struct {
		Targets []string          `json:"targets"`
		Labels  map[string]string `json:"labels"`
	}
	b, err := os.ReadFile("prometheus/targets/sparkglance.json")
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&groups); err != nil || len(groups) == 0 || len(groups[0].Targets) == 0 {
		t.Fatalf("file_sd targets: %v (%d groups)", err, len(groups))
	}
}

func TestAlertmanagerConfig(t *testing.T) {
	out := run(t, "amtool", "check-config", "alertmanager/alertmanager.yml")
	if !strings.Contains(out, "SUCCESS") || !strings.Contains(out, "3 receivers") {
		t.Errorf("amtool check-config:\n%s", out)
	}
	// Each severity reaches its own receiver.
	for severity, receiver := range map[string]string{"critical": "pager", "warning": "spark-team", "info": "digest"} {
		out := run(t, "amtool", "config", "routes", "test", "--config.file=alertmanager/alertmanager.yml",
			"alertname=SparkStageSingleCore", "severity="+severity)
		// amtool prints a warning line first; the receiver comes last.
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if got := lines[len(lines)-1]; got != receiver {
			t.Errorf("severity=%s routed to %q, want %s", severity, got, receiver)
		}
	}
}

// systemd units: the sections and keys systemd needs; the node agent keeps
// no capability.
func TestSystemdUnits(t *testing.T) {
	for _, f := range []string{"systemd/sparkglance.service", "systemd/sparkglance-node.service"} {
		keys := unitKeys(t, f)
		for _, k := range []string{"Unit.Description", "Service.ExecStart", "Service.Restart", "Install.WantedBy"} {
			if keys[k] == "" {
				t.Errorf("%s: no %s", f, k)
			}
		}
		if !strings.Contains(keys["Service.ExecStart"], "/usr/local/bin/sparkglance serve") {
			t.Errorf("%s: ExecStart %q", f, keys["Service.ExecStart"])
		}
		if _, ok := keys["Service.CapabilityBoundingSet"]; !ok {
			t.Errorf("%s: CapabilityBoundingSet not set", f)
		}
	}
}

func unitKeys(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	keys, section, cont := map[string]string{}, "", ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case cont != "":
			keys[cont] += " " + strings.TrimSuffix(line, "\\")
			if !strings.HasSuffix(line, "\\") {
				cont = ""
			}
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = strings.Trim(line, "[]")
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok || section == "" {
				t.Fatalf("%s:%d: not a key=value line in a section: %q", path, n, line)
			}
			key := section + "." + k
			keys[key] = strings.TrimSuffix(v, "\\")
			if strings.HasSuffix(v, "\\") {
				cont = key
			}
		}
	}
	return keys
}

// The Spark snippets set what sparkglance relies on.
func TestSparkSnippets(t *testing.T) {
	conf := properties(t, "spark/spark-defaults.conf", " ")
	for k, v := range map[string]string{
		"spark.eventLog.enabled": "true", "spark.eventLog.rolling.enabled": "true", "spark.eventLog.compress": "true",
	} {
		if conf[k] != v {
			t.Errorf("spark-defaults.conf: %s = %q, want %q", k, conf[k], v)
		}
	}
	metrics := properties(t, "spark/metrics.properties", "=")
	if metrics["*.sink.servlet.class"] != "org.apache.spark.metrics.sink.MetricsServlet" || metrics["*.sink.servlet.path"] != "/metrics/json" {
		t.Errorf("metrics.properties does not enable the JSON servlet at /metrics/json: %v", metrics)
	}
}

func properties(t *testing.T, path, sep string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for n, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, sep)
		if !ok {
			t.Fatalf("%s:%d: no %q in %q", path, n+1, sep, line)
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out
}

func ruleCount() string {
	n := 0
	for _, g := range alerts.Groups(alerts.DefaultThresholds()) {
		n += len(g.Rules)
	}
	return strconv.Itoa(n)
}
