package jsonout

import (
	"os"
	"testing"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// TestMain fails the run when a test leaves anything in the temp dir.
func TestMain(m *testing.M) { os.Exit(testkit.RunCheckingTempDir(m, nil)) }
