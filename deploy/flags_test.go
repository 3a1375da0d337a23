package deploy_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	yamlv2 "go.yaml.in/yaml/v2"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// buildSparkglance builds ./cmd/sparkglance from this tree into a
// temporary directory.
func buildSparkglance(t *testing.T) string {
	t.Helper()
	goBin := testkit.RequireTool(t, "go")
	bin := filepath.Join(t.TempDir(), "sparkglance")
	build := exec.Command(goBin, "build", "-o", bin, "./cmd/sparkglance")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

var flagName = regexp.MustCompile(`--(?:\[no-\])?([a-z][a-z0-9-]*(?:\.[a-z0-9-]+)+)`)

// Every flag the shipped manifests, units and compose file pass to
// sparkglance exists.
func TestDeployedFlagsExist(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	out, err := exec.Command(buildSparkglance(t), "serve", "--help-long").CombinedOutput()
	if err != nil {
		t.Fatalf("serve --help-long: %v\n%s", err, out)
	}
	known := map[string]bool{}
	for _, m := range flagName.FindAllStringSubmatch(string(out), -1) {
		known[m[1]] = true
	}
	used := map[string]string{}
	for _, f := range []string{"kubernetes/base/deployment.yaml", "kubernetes/base/daemonset.yaml",
		"kubernetes/overlays/stacks/daemonset-stacks.yaml", "kubernetes/overlays/sharded/statefulset.yaml", "systemd/sparkglance.service",
		"systemd/sparkglance-node.service"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		used[f] = string(b)
	}
	used["compose/compose.yaml (service sparkglance)"] = strings.Join(composeCommand(t, "sparkglance"), " ")
	// The Helm chart's containers, with the default values, with every
	// option on, and unsharded with Spark targets.
	for name, vals := range map[string]map[string]any{
		"default values":  chartValues(t, nil, ""),
		"ci/all-values":   chartValues(t, []string{allValuesFile}, ""),
		"unsharded spark": chartValues(t, nil, "eventlog: {spark: {targets: [{targets: [\"http://h:18080\"]}], urls: [\"http://d:4040\"]}}"),
	} {
		for _, c := range containers(render(t, vals, true)) {
			used["helm chart, "+name] += " " + strings.Join(c.Args, " ")
		}
	}
	for f, text := range used {
		for _, m := range flagName.FindAllStringSubmatch(text, -1) {
			name := strings.TrimPrefix(m[1], "no-")
			if !known[name] {
				t.Errorf("%s passes --%s, which `sparkglance serve` does not have", f, m[1])
			}
		}
	}
}

func composeCommand(t *testing.T, service string) []string {
	t.Helper()
	var compose struct {
		Services map[string]struct {
			Command []string `yaml:"command"`
		} `yaml:"services"`
	}
	b, err := os.ReadFile("compose/compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yamlv2.Unmarshal(b, &compose); err != nil {
		t.Fatal(err)
	}
	return compose.Services[service].Command
}
