package testkit

import (
	"os"
	"testing"
)

// TestMain fails the run when a test leaves anything in the temp dir.
func TestMain(m *testing.M) { os.Exit(RunCheckingTempDir(m, nil)) }
