package eventlog

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A link in the watched directory that leads outside it is not followed
// unless --eventlog.follow-external-links says so; it is counted.
func TestExternalLinksFollowedOnlyWhenEnabled(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	writeLog(t, dir, "app-20261130160000-0001", time.Now().Add(-time.Minute), false, "plain")
	outside := writeLog(t, elsewhere, "app-20261130160000-0002", time.Now().Add(-time.Minute), false, "plain")
	if err := os.Symlink(outside, filepath.Join(dir, filepath.Base(outside))); err != nil {
		t.Fatal(err)
	}
	for _, follow := range []bool{false, true} {
		cfg := testConfig(dir)
		cfg.FollowExternalLinks = follow
		w := startWatcher(t, cfg)
		waitReady(t, w)
		if !exported(t, w, "app-20261130160000-0001") {
			t.Errorf("follow=%v: the log inside the directory is not exported", follow)
		}
		if got := exported(t, w, "app-20261130160000-0002"); got != follow {
			t.Errorf("follow=%v: linked log exported %v", follow, got)
		}
		if n := errorsFor(w, "external-link"); (n == 1) == follow {
			t.Errorf("follow=%v: external-link counted %v times", follow, n)
		}
	}
}
