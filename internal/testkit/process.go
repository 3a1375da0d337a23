package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// StartProcess runs bin with args in dir until the test ends, and returns
// the path of its log (stdout and stderr, dir/name.log). Its own temp files
// (serve --demo's log directory) land in dir too, removed with it even if
// the process cannot clean up. At the end: SIGTERM first, so the process
// removes what it made, SIGKILL if it has not exited 10 s later; the log's
// tail is printed when the test failed.
func StartProcess(t testing.TB, dir, name, bin string, args ...string) (logPath string) {
	t.Helper()
	log, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, log, log
	cmd.Env = append(os.Environ(), "TMPDIR="+dir)
	if err := cmd.Start(); err != nil {
		log.Close()
		t.Fatalf("starting %s: %v", name, err)
	}
	t.Cleanup(func() {
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		log.Close()
		if t.Failed() {
			b, _ := os.ReadFile(log.Name())
			t.Logf("%s log (tail):\n%s", name, b[max(0, len(b)-4000):])
		}
	})
	return log.Name()
}
