package eventlog

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// Dropping one attempt of an application keeps the application claimed
// while another attempt is followed: the spark collector must not start
// emitting its series in between.
func TestClaimSurvivesDroppingOneAttempt(t *testing.T) {
	dir := t.TempDir()
	// Two attempts of local-1426533911241 (shared README: attempt 1 and 2).
	for _, name := range []string{"local-1426533911241", "local-1426633911242"} {
		if err := os.Symlink(testkit.Events(t, name), filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	w := startWatcher(t, testConfig(dir))
	waitReady(t, w)
	const app = "local-1426533911241"
	waitFor(t, 10*time.Second, "both attempts published", func() bool {
		n := 0
		for _, a := range w.snapshot() {
			if v := a.view.Load(); v != nil && v.appID == app {
				n++
			}
		}
		return n == 2
	})
	if !w.Claimed(app) {
		t.Fatal("application not claimed")
	}
	// Drop whichever attempt holds the claim.
	holder, _ := w.claims.byApp.Load(app)
	if err := os.Remove(holder.(string)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the removed attempt dropped", func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.apps[holder.(string)] == nil
	})
	if !w.Claimed(app) {
		t.Error("the remaining attempt lost the claim")
	}
	if k, _ := w.claims.byApp.Load(app); k == holder {
		t.Errorf("claim still held by the removed log %v", k)
	}
}
