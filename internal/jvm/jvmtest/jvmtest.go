// Package jvmtest compiles and starts the small Java programs the stacks
// tests sample: threads named like Spark and Flink task threads, each
// spinning or blocked in a known way. Needs javac and java (skipped on a
// developer machine without them, fatal under CI=true).
package jvmtest

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// Compile writes the Java sources into a fresh t.TempDir and compiles
// them; it returns the class directory.
func Compile(t testing.TB) string {
	t.Helper()
	javac := testkit.RequireTool(t, "javac")
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	var files []string
	for name, text := range sources {
		path := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
	}
	classes := filepath.Join(dir, "classes")
	args := append([]string{"-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC", "-nowarn", "-d", classes}, files...)
	if out, err := exec.Command(javac, args...).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	// Readable by any user, for JVMs started under another uid.
	for _, d := range []string{filepath.Dir(dir), dir, classes} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return classes
}

// JVM is a running workload.
type JVM struct {
	Cmd *exec.Cmd
	PID int
	// Kinds maps each started thread's name to its kind ("spin", "shuffle"…).
	Kinds map[string]string
	done  chan struct{}
	mu    sync.Mutex
	exit  error
}

// Options tune Start.
type Options struct {
	JVMArgs []string            // extra JVM flags, before the class name
	Env     []string            // extra environment
	Cred    *syscall.Credential // run as another user
	Dir     string              // working directory (default: a t.TempDir)
	// MainClass replaces sgtest.Workload, e.g. FakeExecutorMain; its
	// arguments (MainArgs) come before the workload's.
	MainClass string
	MainArgs  []string
}

// Start runs sgtest.Workload with the given kind=count arguments, waits
// (at most 20 s) for it to report "ready" and stops it at test cleanup.
func Start(t testing.TB, classes string, opt Options, workload ...string) *JVM {
	t.Helper()
	java := testkit.RequireTool(t, "java")
	dir := opt.Dir
	if dir == "" {
		dir = t.TempDir()
	}
	args := append([]string{"-Xmx48m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-Dspill.dir=" + dir, "-cp", classes}, opt.JVMArgs...)
	if opt.MainClass == "" {
		args = append(args, "sgtest.Workload")
	} else {
		args = append(append(args, opt.MainClass), opt.MainArgs...)
	}
	args = append(args, workload...)
	// Niced: the spinning threads share a small machine with other tests.
	cmd := exec.Command("nice", append([]string{"-n", "10", java}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), opt.Env...)
	cmd.Stderr = os.Stderr
	if opt.Cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: opt.Cred}
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start java: %v", err)
	}
	j := &JVM{Cmd: cmd, PID: cmd.Process.Pid, Kinds: map[string]string{}, done: make(chan struct{})}
	ready := make(chan struct{})
	go j.read(out, ready)
	t.Cleanup(j.Stop)
	select {
	case <-ready:
	case <-j.done:
		t.Fatalf("java exited before ready: %v", j.Err())
	case <-time.After(20 * time.Second):
		t.Fatal("java not ready within 20s")
	}
	return j
}

// read collects the thread lines, signals ready, then drains stdout (a
// SIGQUIT without attach listener prints a dump there) until exit.
func (j *JVM) read(out interface{ Read([]byte) (int, error) }, ready chan struct{}) {
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	isReady := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case isReady:
		case line == "ready":
			isReady = true
			close(ready)
		case strings.HasPrefix(line, "thread\t"):
			f := strings.SplitN(line, "\t", 3)
			if len(f) == 3 {
				j.Kinds[f[2]] = f[1]
			}
		}
	}
	err := j.Cmd.Wait()
	j.mu.Lock()
	j.exit = err
	j.mu.Unlock()
	close(j.done)
}

// Done is closed once the process has exited and been reaped.
func (j *JVM) Done() <-chan struct{} { return j.done }

// Err is the exit error once Done is closed.
func (j *JVM) Err() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.exit
}

// Stop ends the JVM with SIGTERM (so it removes its attach socket), then
// SIGKILL after 5 s, and waits (at most 5 s more) until it is reaped.
func (j *JVM) Stop() {
	_ = syscall.Kill(j.PID, syscall.SIGCONT) // in case a test stopped it
	_ = j.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-j.done:
		return
	case <-time.After(5 * time.Second):
	}
	_ = j.Cmd.Process.Kill()
	select {
	case <-j.done:
	case <-time.After(5 * time.Second):
	}
}

// Names returns the thread names of one kind.
func (j *JVM) Names(kind string) []string {
	var names []string
	for n, k := range j.Kinds {
		if k == kind {
			names = append(names, n)
		}
	}
	return names
}
