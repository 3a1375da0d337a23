package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// buildBinary builds sparkglance once per test run into a temp dir.
var buildBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "sparkglance-bin-")
	if err != nil {
		return "", err
	}
	binDir = dir
	bin := filepath.Join(dir, "sparkglance")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		return "", errors.New(string(out))
	}
	return bin, nil
})

// binDir is removed by TestMain once every test is done with the binary.
var binDir string

func TestMain(m *testing.M) {
	os.Exit(testkit.RunCheckingTempDir(m, func() {
		if binDir != "" {
			os.RemoveAll(binDir)
		}
	}))
}

func binary(t *testing.T) string {
	t.Helper()
	bin, err := buildBinary()
	if err != nil {
		t.Fatalf("go build: %v", err)
	}
	return bin
}

// runBinary runs the built command and returns its output and exit status.
func runBinary(t *testing.T, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	return runBinaryEnv(t, nil, args...)
}

// runBinaryEnv is runBinary with env added to this process's environment.
func runBinaryEnv(t *testing.T, env []string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

// The statuses a script sees, through the real main.
func TestBinaryExitStatuses(t *testing.T) {
	good := testkit.Events(t, "local-1422981780767")
	damaged := testkit.Events(t, "extra", "spark-rapids-tools", "spark-events-profiling", "malformed_json_eventlog.zstd")
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"analyze", good}, exitOK},
		{[]string{"analyze", t.TempDir()}, exitNothingRead},
		{[]string{"analyze", "hdfs://nn/logs"}, exitUsage},
		{[]string{"analyze", "--no-such-flag", good}, exitUsage},
		{[]string{"analyze", damaged}, exitPartial},
	} {
		if _, stderr, got := runBinary(t, tc.args...); got != tc.want {
			t.Errorf("%v: exit %d, want %d; stderr:\n%s", tc.args, got, tc.want, stderr)
		}
	}
	stdout, stderr, _ := runBinary(t, "analyze", "--help")
	help := strings.Join(strings.Fields(stdout+stderr), " ") // undo kingpin's wrapping
	if !strings.Contains(help, "Exit status: 0 read cleanly, 1 nothing readable, 2 usage error, 3 read with problems") {
		t.Errorf("analyze --help does not document the exit statuses:\n%s%s", stdout, stderr)
	}
}

// Ctrl-C stops analyze inside one big log, promptly and with a message.
// Bounded rather than timed: 5 s is far above the expected fraction of a
// second, yet far below reading the inputs to their end.
func TestBinaryInterruptStopsAnalyze(t *testing.T) {
	// 142 MB decompressed (../shared/spark-events/README.md).
	big, err := filepath.EvalSymlinks(testkit.Events(t, "extra", "spark-rapids-tools",
		"spark-events-qualification", "nds_q88_photon_db_13_3.zstd"))
	if err != nil {
		t.Fatal(err)
	}
	if big, err = filepath.Abs(big); err != nil {
		t.Fatal(err)
	}
	args := []string{"analyze", "--json"}
	for range 20 {
		args = append(args, big)
	}
	cmd := exec.Command(binary(t), args...)
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Started means the log is open: reading is under way.
	fdDir := filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "fd")
	deadline := time.Now().Add(30 * time.Second)
	for !hasOpen(fdDir, big) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-done
			t.Fatalf("analyze did not open %s within 30 s", big)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatal("analyze still running 5 s after SIGINT")
	}
	if got := cmd.ProcessState.ExitCode(); got != exitInterrupted {
		t.Errorf("exit %d, want %d", got, exitInterrupted)
	}
	if !strings.Contains(errOut.String(), "interrupted while reading "+big) {
		t.Errorf("stderr does not say what was interrupted:\n%s", errOut.String())
	}
}

// hasOpen reports whether a process (by its /proc/PID/fd directory) has
// path open.
func hasOpen(fdDir, path string) bool {
	entries, _ := os.ReadDir(fdDir)
	for _, e := range entries {
		if target, err := os.Readlink(filepath.Join(fdDir, e.Name())); err == nil && target == path {
			return true
		}
	}
	return false
}

// No simulate flag value panics: a bad one is a usage error naming the
// flag, and no --out file is left behind.
func TestBinarySimulateFlags(t *testing.T) {
	out := filepath.Join(t.TempDir(), "app.json")
	if _, stderr, got := runBinary(t, "simulate", "--tasks-per-stage=1", "--executors=1", "--out", out); got != exitOK {
		t.Errorf("one executor, one task per stage: exit %d; stderr:\n%s", got, stderr)
	}
	os.Remove(out)
	for _, bad := range []string{"--executors=0", "--cores=-4", "--tasks-per-stage=0", "--repeat=0", "--app-id=../x", "--executors=99999999999"} {
		_, stderr, got := runBinary(t, "simulate", bad, "--out", out)
		name := strings.SplitN(bad, "=", 2)[0]
		if got != exitUsage || !strings.Contains(stderr, name) || strings.Contains(stderr, "panic") {
			t.Errorf("%s: exit %d, want %d and a message naming %s; stderr:\n%s", bad, got, exitUsage, name, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s left %s behind", bad, out)
			os.Remove(out)
		}
	}
}
