package testkit

import (
	"fmt"
	"os"
	"testing"
)

// RunCheckingTempDir runs a package's tests (call it from TestMain:
// os.Exit(testkit.RunCheckingTempDir(m, nil))) with TMPDIR pointing at a
// fresh private directory, and fails the run when anything is left in it
// afterwards: a file or directory not made with t.TempDir, or a child
// process' temp files nobody cleaned up. cleanup, if not nil, runs after the
// tests and before the check, for what TestMain itself created there.
// The private directory is removed either way, so leaks never pile up.
func RunCheckingTempDir(m *testing.M, cleanup func()) int {
	dir, err := os.MkdirTemp("", "sparkglance-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testkit:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	saved, had := os.LookupEnv("TMPDIR")
	os.Setenv("TMPDIR", dir)
	code := m.Run()
	if cleanup != nil {
		cleanup()
	}
	if had {
		os.Setenv("TMPDIR", saved)
	} else {
		os.Unsetenv("TMPDIR")
	}
	return checkEmpty(dir, code)
}

// checkEmpty turns a passing status into a failure when dir is not empty,
// listing what was left.
func checkEmpty(dir string, code int) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testkit:", err)
		return 1
	}
	if len(entries) == 0 {
		return code
	}
	fmt.Fprintf(os.Stderr, "FAIL: tests left %d entr(ies) in the temp dir (use t.TempDir and clean up child processes' files):\n", len(entries))
	for _, e := range entries {
		fmt.Fprintf(os.Stderr, "  %s\n", e.Name())
	}
	return 1
}
