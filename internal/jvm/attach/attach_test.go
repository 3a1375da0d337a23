package attach_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/jvm/attach"
	"github.com/sparkglance/sparkglance/internal/jvm/jvmtest"
	"github.com/sparkglance/sparkglance/internal/jvm/threaddump"
)

func dumpCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func TestThreadDumpOfRealJVM(t *testing.T) {
	classes := jvmtest.Compile(t)
	jvm := jvmtest.Start(t, classes, jvmtest.Options{}, "spin=1", "shuffle=1", "flinkbp=1")

	var c attach.Client
	for i := range 2 { // the second dump reuses the listener's socket
		start := time.Now()
		text, err := c.ThreadDump(dumpCtx(t, 10*time.Second), jvm.PID)
		if err != nil {
			t.Fatalf("dump %d: %v", i, err)
		}
		t.Logf("dump %d: %d bytes in %v", i, len(text), time.Since(start))
		d, err := threaddump.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(d.VM, "OpenJDK") && !strings.Contains(d.VM, "HotSpot") {
			t.Errorf("VM = %q", d.VM)
		}
		for name, kind := range jvm.Kinds {
			th := d.Find(name)
			if th == nil {
				t.Fatalf("dump %d: thread %q (%s) missing", i, name, kind)
			}
			if kind == "shuffle" && (th.State != "WAITING" || !hasFrame(th, "org.apache.spark.storage.ShuffleBlockFetcherIterator.next")) {
				t.Errorf("shuffle thread: state %s, frames %v", th.State, th.Frames)
			}
		}
	}
	// The trigger file is gone from both places HotSpot looks.
	for _, dir := range []string{jvm.Cmd.Dir, "/tmp"} {
		if _, err := os.Stat(filepath.Join(dir, ".attach_pid"+strconv.Itoa(jvm.PID))); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("trigger file left in %s (%v)", dir, err)
		}
	}
}

func TestJcmdThreadPrint(t *testing.T) {
	classes := jvmtest.Compile(t)
	jvm := jvmtest.Start(t, classes, jvmtest.Options{}, "park=1")
	var c attach.Client
	text, err := c.Execute(dumpCtx(t, 10*time.Second), jvm.PID, "jcmd", "Thread.print -l")
	if err != nil {
		t.Fatal(err)
	}
	d, err := threaddump.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	holder := d.Find("lock-holder")
	if holder == nil || len(holder.OwnableSynchronizers) != 1 ||
		!strings.HasPrefix(holder.OwnableSynchronizers[0].Class, "java.util.concurrent.locks.ReentrantLock") {
		t.Fatalf("lock-holder's ownable synchronizers (-l): %+v", holder)
	}
	// An unknown jcmd command is the JVM's error, not a protocol failure.
	if _, err := c.Execute(dumpCtx(t, 10*time.Second), jvm.PID, "nosuchcommand"); !errors.Is(err, attach.ErrCommand) {
		t.Fatalf("unknown command: %v, want ErrCommand", err)
	}
}

func TestDisableAttachMechanismOnCommandLine(t *testing.T) {
	classes := jvmtest.Compile(t)
	jvm := jvmtest.Start(t, classes, jvmtest.Options{JVMArgs: []string{"-XX:+DisableAttachMechanism"}}, "spin=1")
	// The flag is on the command line, so the client must answer without
	// waiting for a listener: with a wait longer than the context allows,
	// waiting would end in ErrTimeout instead of the flag's error.
	c := attach.Client{ListenerWait: time.Hour}
	_, err := c.ThreadDump(dumpCtx(t, 10*time.Second), jvm.PID)
	if !errors.Is(err, attach.ErrAttachDisabled) || errors.Is(err, attach.ErrTimeout) || !strings.Contains(err.Error(), "DisableAttachMechanism") {
		t.Fatalf("err = %v, want ErrAttachDisabled naming the flag, without waiting for a timeout", err)
	}
	if attach.Reason(err) != "attach_disabled" {
		t.Errorf("Reason = %q", attach.Reason(err))
	}
}

// An @argfile hides the flag from /proc/<pid>/cmdline: the socket never
// comes, and the wait ends with an error that says why.
func TestDisableAttachMechanismHiddenTimesOut(t *testing.T) {
	classes := jvmtest.Compile(t)
	argfile := filepath.Join(t.TempDir(), "jvm.args")
	if err := os.WriteFile(argfile, []byte("-XX:+DisableAttachMechanism\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	jvm := jvmtest.Start(t, classes, jvmtest.Options{JVMArgs: []string{"@" + argfile}}, "spin=1")
	c := attach.Client{ListenerWait: 1500 * time.Millisecond}
	start := time.Now()
	_, err := c.ThreadDump(dumpCtx(t, 10*time.Second), jvm.PID)
	el := time.Since(start)
	if !errors.Is(err, attach.ErrAttachDisabled) || !errors.Is(err, attach.ErrTimeout) ||
		!strings.Contains(err.Error(), "DisableAttachMechanism") {
		t.Fatalf("err = %v, want ErrAttachDisabled+ErrTimeout naming the flag", err)
	}
	// A lower bound only: the client waited the listener wait out (an upper
	// bound would measure the machine's load; dumpCtx bounds the call).
	if el < 1500*time.Millisecond {
		t.Errorf("gave up after %v, before the 1.5s listener wait", el)
	}
	select {
	case <-jvm.Done():
		t.Fatal("the JVM died of the SIGQUIT")
	default:
	}
}

func TestNonJVMIsNeverSignalled(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	_, err := attach.ThreadDump(dumpCtx(t, 5*time.Second), cmd.Process.Pid)
	if !errors.Is(err, attach.ErrNotJVM) {
		t.Fatalf("err = %v, want ErrNotJVM", err)
	}
	if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("sleep died: %v", err)
	}
	if _, err := os.Stat(filepath.Join("/tmp", ".attach_pid"+strconv.Itoa(cmd.Process.Pid))); err == nil {
		t.Error("trigger file created for a non-JVM")
	}
}

func TestProcessGone(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	_, err := attach.ThreadDump(dumpCtx(t, 5*time.Second), cmd.Process.Pid)
	if !errors.Is(err, attach.ErrProcessGone) || attach.Reason(err) != "process_gone" {
		t.Fatalf("err = %v, want ErrProcessGone", err)
	}
}

// The target halts itself while the test dumps it in a loop: every call
// either succeeds or reports ErrProcessGone; nothing hangs.
func TestTargetExitsMidDump(t *testing.T) {
	classes := jvmtest.Compile(t)
	jvm := jvmtest.Start(t, classes, jvmtest.Options{}, "pool=150", "halt=1200")
	var c attach.Client
	ok := 0
	deadline := time.Now().Add(15 * time.Second)
	for {
		if time.Now().After(deadline) {
			t.Fatal("target still answering after 15s")
		}
		_, err := c.ThreadDump(dumpCtx(t, 5*time.Second), jvm.PID)
		if err == nil {
			ok++
			continue
		}
		if !errors.Is(err, attach.ErrProcessGone) {
			t.Fatalf("after %d dumps: %v, want ErrProcessGone", ok, err)
		}
		t.Logf("after %d dumps: %v", ok, err)
		break
	}
	if ok == 0 {
		t.Error("no dump succeeded before the exit")
	}
}

// A stopped JVM accepts the connection (the kernel queues it) but never
// answers: the reply deadline ends the call.
func TestReplyTimeout(t *testing.T) {
	classes := jvmtest.Compile(t)
	jvm := jvmtest.Start(t, classes, jvmtest.Options{}, "sleep=1")
	var c attach.Client
	if _, err := c.ThreadDump(dumpCtx(t, 10*time.Second), jvm.PID); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(jvm.PID, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(jvm.PID, syscall.SIGCONT) })
	// kill returns before the stop takes hold: one thread must run to stop
	// the others, and on a loaded machine the listener could answer first.
	waitStopped(t, jvm.PID)
	// The context's deadline is what ends the call: ErrTimeout says so
	// (the call cannot return before the JVM answers, and it never will).
	_, err := c.ThreadDump(dumpCtx(t, 800*time.Millisecond), jvm.PID)
	if !errors.Is(err, attach.ErrTimeout) || attach.Reason(err) != "timeout" {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
}

// waitStopped returns once every thread of pid is in the stopped state.
func waitStopped(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !allStopped(t, pid) {
		if time.Now().After(deadline) {
			t.Fatalf("pid %d not stopped 20s after SIGSTOP", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func allStopped(t *testing.T, pid int) bool {
	tasks, err := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/stat")
	if err != nil || len(tasks) == 0 {
		t.Fatalf("threads of pid %d: %v", pid, err)
	}
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			return false // a thread ended while we looked; look again
		}
		// The state follows the parenthesised command name, which may hold spaces.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 || i+2 >= len(b) || (b[i+2] != 'T' && b[i+2] != 't') {
			return false
		}
	}
	return true
}

// Root attaching to a JVM of another user acts with that user's ids.
func TestAttachAsTargetUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to start a JVM as nobody")
	}
	classes := jvmtest.Compile(t)
	dir := t.TempDir()
	// nobody must reach dir: open it and every directory above it up to the
	// temporary directory (the tests' private one is 0700).
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	for d := filepath.Dir(dir); strings.HasPrefix(d, os.TempDir()); d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		// Traversable by all, keeping any sticky bit (/tmp's).
		if err := os.Chmod(d, fi.Mode()&(os.ModePerm|os.ModeSticky)|0o755); err != nil {
			t.Fatal(err)
		}
		if d == filepath.Clean(os.TempDir()) {
			break
		}
	}
	const nobody = 65534
	jvm := jvmtest.Start(t, classes, jvmtest.Options{Dir: dir, Env: []string{"HOME=" + dir},
		Cred: &syscall.Credential{Uid: nobody, Gid: nobody}}, "spin=1")
	text, err := attach.ThreadDump(dumpCtx(t, 10*time.Second), jvm.PID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), `"monitor-holder"`) {
		t.Fatal("dump lacks the workload's threads")
	}
	fi, err := os.Stat(filepath.Join("/tmp", ".java_pid"+strconv.Itoa(jvm.PID)))
	if err != nil {
		t.Fatal(err)
	}
	if uid := fi.Sys().(*syscall.Stat_t).Uid; uid != nobody {
		t.Errorf("socket owned by %d", uid)
	}
}

func hasFrame(th *threaddump.Thread, fn string) bool {
	for _, f := range th.Frames {
		if f.Func() == fn {
			return true
		}
	}
	return false
}
