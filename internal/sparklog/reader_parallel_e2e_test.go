//go:build e2e

package sparklog

import "testing"

// TestParallelReadMatchesSequentialBigLogs is TestParallelReadMatchesSequential
// on the biggest shared logs (nds_q88, nds_q72 and the other compressed
// logs of tens of MB), which take minutes under the race detector.
func TestParallelReadMatchesSequentialBigLogs(t *testing.T) {
	compareSharedLogs(t, func(big bool) bool { return big })
}
