// Package testkit finds the project's shared test data (real Spark event
// logs, History Server answers) and the external tools some tests need, and
// holds the small loopback HTTP helpers many packages' tests share and a
// buffer that goroutines write to while a test awaits a line (SyncBuffer).
//
// The data lives beside the repository, in ../shared, and is never copied
// into it. When data or a tool is missing, a test is skipped on a developer
// machine but fails under CI=true, so CI can never pass by skipping.
package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Dir returns the shared data directory: $SPARKGLANCE_SHARED, or ../shared
// next to the module root.
func Dir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("SPARKGLANCE_SHARED"); d != "" {
		return mustExist(t, d)
	}
	root, err := ModuleRoot()
	if err != nil {
		missing(t, "module root: "+err.Error())
	}
	return mustExist(t, filepath.Join(root, "..", "shared"))
}

// Path returns a path inside the shared directory, e.g.
// Path(t, "spark-events", "local-1422981759269").
func Path(t testing.TB, elem ...string) string {
	t.Helper()
	return mustExist(t, filepath.Join(append([]string{Dir(t)}, elem...)...))
}

// Events returns a path under shared/spark-events.
func Events(t testing.TB, elem ...string) string {
	t.Helper()
	return Path(t, append([]string{"spark-events"}, elem...)...)
}

// RequireTool returns the full path of an external command (javac, promtool,
// …), skipping the test when it is absent — or failing it under CI=true.
func RequireTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		missing(t, "tool "+name+" not on PATH")
	}
	return p
}

// RequireFile is RequireTool for a file another package installs (a Debian
// jar, say).
func RequireFile(t testing.TB, path string) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		missing(t, "file "+path+" missing (see .ci/run for the package that installs it)")
	}
	return path
}

// InCI reports whether the tests run under CI (CI=true).
func InCI() bool { return os.Getenv("CI") == "true" }

func mustExist(t testing.TB, p string) string {
	t.Helper()
	if _, err := os.Stat(p); err != nil {
		missing(t, "shared test data "+p+" not found")
	}
	return p
}

func missing(t testing.TB, what string) {
	t.Helper()
	if InCI() {
		t.Fatalf("%s (required under CI=true)", what)
	}
	t.Skipf("%s; skipping (set CI=true to make this fatal)", what)
}

// ModuleRoot finds the directory holding go.mod at or above the working
// directory (a test's package directory).
func ModuleRoot() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", os.ErrNotExist
		}
		d = parent
	}
}
