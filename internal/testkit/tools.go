package testkit

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ToolsDir is where .ci/run installs the tools the tests use that no
// Debian package has (Azurite from npm; Prometheus 3 and the OpenTelemetry
// Collector built by tools/build.sh): $SPARKGLANCE_TOOLS, else
// ~/.cache/sparkglance-tools.
func ToolsDir() string {
	if d := os.Getenv("SPARKGLANCE_TOOLS"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "sparkglance-tools")
	}
	return filepath.Join(home, ".cache", "sparkglance-tools")
}

// Prometheus is one Prometheus release the tests run: its server and its
// promtool.
type Prometheus struct {
	Name       string // "2.42 (Debian)", "3.16.0 (tools/go.mod)"
	Major      int    // 2 or 3
	Prometheus string // the server's path
	Promtool   string // promtool's path
}

// DebianPrometheus is Debian's prometheus and promtool, on PATH.
func DebianPrometheus(t testing.TB) Prometheus {
	t.Helper()
	return Prometheus{Name: "2 (Debian)", Major: 2,
		Prometheus: RequireTool(t, "prometheus"), Promtool: RequireTool(t, "promtool")}
}

// Prometheus3 is the Prometheus 3 that tools/build.sh builds from the
// version tools/go.mod pins, into ToolsDir.
func Prometheus3(t testing.TB) Prometheus {
	t.Helper()
	version := toolVersion(t, "github.com/prometheus/prometheus")
	dir := filepath.Join(ToolsDir(), "prometheus-"+version)
	return Prometheus{Name: "3 (" + version + ")", Major: 3,
		Prometheus: requireBuilt(t, filepath.Join(dir, "prometheus")), Promtool: requireBuilt(t, filepath.Join(dir, "promtool"))}
}

// ForEachPrometheus runs f as a subtest for Debian's Prometheus 2 and for
// Prometheus 3, each skipped when its binaries are missing (failed under
// CI=true).
func ForEachPrometheus(t *testing.T, f func(t *testing.T, p Prometheus)) {
	t.Helper()
	t.Run("prometheus2", func(t *testing.T) { f(t, DebianPrometheus(t)) })
	t.Run("prometheus3", func(t *testing.T) { f(t, Prometheus3(t)) })
}

// availablePrometheuses are Debian's Prometheus 2 and Prometheus 3, those
// whose binaries are there; a missing one fails the test under CI=true, and
// with neither the test skips.
func availablePrometheuses(t testing.TB) []Prometheus {
	t.Helper()
	var ps []Prometheus
	var absent []string
	if server, err := exec.LookPath("prometheus"); err != nil {
		absent = append(absent, "Debian's prometheus (not on PATH)")
	} else if promtool, err := exec.LookPath("promtool"); err != nil {
		absent = append(absent, "Debian's promtool (not on PATH)")
	} else {
		ps = append(ps, Prometheus{Name: "2 (Debian)", Major: 2, Prometheus: server, Promtool: promtool})
	}
	version := toolVersion(t, "github.com/prometheus/prometheus")
	dir := filepath.Join(ToolsDir(), "prometheus-"+version)
	p3 := Prometheus{Name: "3 (" + version + ")", Major: 3,
		Prometheus: filepath.Join(dir, "prometheus"), Promtool: filepath.Join(dir, "promtool")}
	if _, err := os.Stat(p3.Promtool); err != nil {
		absent = append(absent, p3.Promtool+" (tools/build.sh builds it)")
	} else {
		ps = append(ps, p3)
	}
	if len(absent) > 0 && (InCI() || len(ps) == 0) {
		missing(t, "Prometheus missing: "+strings.Join(absent, ", "))
	}
	for _, a := range absent {
		t.Logf("left out, missing: %s", a)
	}
	return ps
}

// OTelCollector is the OpenTelemetry Collector that tools/build.sh builds
// (tools/otelcol) at the version tools/go.mod pins, in ToolsDir.
func OTelCollector(t testing.TB) string {
	t.Helper()
	version := toolVersion(t, "go.opentelemetry.io/collector/otelcol")
	return requireBuilt(t, filepath.Join(ToolsDir(), "otelcol-"+version, "otelcol"))
}

func requireBuilt(t testing.TB, path string) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		missing(t, path+" missing (tools/build.sh builds it; .ci/run runs that)")
	}
	return path
}

// toolVersion is the version tools/go.mod requires of module.
func toolVersion(t testing.TB, module string) string {
	t.Helper()
	root, err := ModuleRoot()
	if err != nil {
		t.Fatalf("module root: %v", err)
	}
	v, err := requiredVersion(filepath.Join(root, "tools", "go.mod"), module)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// requiredVersion reads the version of a require line of a go.mod file.
func requiredVersion(gomod, module string) (string, error) {
	f, err := os.Open(gomod)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(sc.Text()), "require "))
		if len(fields) >= 2 && fields[0] == module {
			return fields[1], nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("%s: %w", gomod, err)
	}
	return "", fmt.Errorf("%s: no require line for %s", gomod, module)
}
