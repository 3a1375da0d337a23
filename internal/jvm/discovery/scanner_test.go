package discovery

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeProc is a procfs tree in a temporary directory that a test changes
// between scans, as the kernel would.
type fakeProc struct {
	t    *testing.T
	root string
}

func newFakeProc(t *testing.T) *fakeProc {
	t.Helper()
	return &fakeProc{t: t, root: t.TempDir()}
}

func (f *fakeProc) write(rel, data string) {
	f.t.Helper()
	p := filepath.Join(f.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// process writes /proc/<pid>/{stat,cmdline,cgroup}.
func (f *fakeProc) process(pid int, comm string, start uint64, argv []string, cgroup string) {
	dir := strconv.Itoa(pid)
	f.write(dir+"/stat", fmt.Sprintf("%d (%s) S 1 %d %d 0 -1 4194560 100 0 0 0 10 0 0 0 20 0 30 0 %d 4000000000 50000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n",
		pid, comm, pid, pid, start))
	f.write(dir+"/cmdline", strings.Join(argv, "\x00")+"\x00")
	f.write(dir+"/cgroup", cgroup)
}

func (f *fakeProc) remove(pid int) {
	f.t.Helper()
	if err := os.RemoveAll(filepath.Join(f.root, strconv.Itoa(pid))); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fakeProc) scanner() *Scanner {
	f.t.Helper()
	s, err := NewScanner(Options{ProcfsPath: f.root}, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	return s
}

func executorArgv(app, id string) []string {
	return []string{"/usr/lib/jvm/bin/java", "-Xmx4g", "-cp", "/opt/spark/jars/*",
		"org.apache.spark.executor.CoarseGrainedExecutorBackend", "--executor-id", id, "--app-id", app}
}

func mustScan(t *testing.T, s *Scanner) []JVM {
	t.Helper()
	if err := s.Scan(); err != nil {
		t.Fatal(err)
	}
	return s.JVMs()
}

const podCgroup = "0::/kubepods.slice/kubepods-pod1c2d3e4f_5a6b_4c7d_8e9f_0a1b2c3d4e5f.slice/crio-aa11bb22cc33dd44ee55ff6600112233445566778899aabbccddeeff00112233.scope\n"

func TestScanFindsJVMsAndForgetsExits(t *testing.T) {
	f := newFakeProc(t)
	f.process(100, "bash", 10, []string{"/bin/bash", "-l"}, "0::/\n")
	f.process(200, "java", 20, executorArgv("app-1", "7"), podCgroup)
	f.process(300, "java", 30, []string{"java", "-cp", "zk.jar", "org.apache.zookeeper.server.quorum.QuorumPeerMain"}, "0::/\n")
	f.process(400, "java", 40, []string{"java", "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint",
		"-D", "kubernetes.cluster-id=flink-1"}, "0::/\n")
	s := f.scanner()
	got := mustScan(t, s)
	want := []JVM{
		{PID: 200, StartTime: 20, Identity: Identity{Framework: FrameworkSpark, Role: RoleExecutor, AppID: "app-1", ExecutorID: "7"},
			Placement: Placement{PodUID: "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f", ContainerID: "aa11bb22cc33dd44ee55ff6600112233445566778899aabbccddeeff00112233"}},
		{PID: 400, StartTime: 40, Identity: Identity{Framework: FrameworkFlink, Role: RoleJobManager, AppID: "flink-1", ExecutorID: "jobmanager"}},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("JVMs = %+v\nwant %+v", got, want)
	}
	f.remove(200)
	if got := mustScan(t, s); len(got) != 1 || got[0].PID != 400 {
		t.Fatalf("after pid 200 exited: %+v, want only pid 400", got)
	}
}

// A pid held by another process (other start time) is a new process: the
// old JVM is forgotten and the new one classified afresh.
func TestRecheckTellsReusedPidFromExit(t *testing.T) {
	f := newFakeProc(t)
	f.process(200, "java", 20, executorArgv("app-1", "7"), "0::/\n")
	f.process(201, "java", 21, executorArgv("app-1", "8"), "0::/\n")
	s := f.scanner()
	if got := mustScan(t, s); len(got) != 2 {
		t.Fatalf("JVMs = %+v, want 2", got)
	}
	if j, ok := s.Recheck(200); !ok || j.ExecutorID != "7" {
		t.Fatalf("Recheck of an unchanged JVM = %+v, %v", j, ok)
	}
	f.process(200, "java", 90, executorArgv("app-2", "1"), "0::/\n")
	j, ok := s.Recheck(200)
	if !ok || j.StartTime != 90 || j.AppID != "app-2" || j.ExecutorID != "1" {
		t.Fatalf("Recheck of a reused pid = %+v, %v; want app-2 executor 1 started at 90", j, ok)
	}
	f.remove(201)
	if j, ok := s.Recheck(201); ok {
		t.Fatalf("Recheck of an exited pid = %+v, want none", j)
	}
	f.process(200, "python3", 95, []string{"python3", "x.py"}, "0::/\n")
	s.RecheckAll()
	if got := s.JVMs(); len(got) != 0 {
		t.Fatalf("JVMs after exit and reuse by a non-JVM = %+v, want none", got)
	}
}

// A process that is not ours is not read again, unless it changed its comm
// (a launcher script that execs java keeps pid and start time).
func TestScanRereadsIgnoredProcessOnlyWhenItExecs(t *testing.T) {
	f := newFakeProc(t)
	f.process(300, "spark-class", 30, []string{"/bin/bash", "spark-class"}, "0::/\n")
	s := f.scanner()
	if got := mustScan(t, s); len(got) != 0 {
		t.Fatalf("JVMs = %+v, want none", got)
	}
	// The command line changes but the comm does not: still ignored, so
	// the scan did not read it.
	f.write("300/cmdline", strings.Join(executorArgv("app-1", "3"), "\x00")+"\x00")
	if got := mustScan(t, s); len(got) != 0 {
		t.Fatalf("ignored process read again: %+v", got)
	}
	f.process(300, "java", 30, executorArgv("app-1", "3"), "0::/\n")
	if got := mustScan(t, s); len(got) != 1 || got[0].ExecutorID != "3" {
		t.Fatalf("after exec into java: %+v, want executor 3", got)
	}
}

func TestServiceBuildsOneScanner(t *testing.T) {
	f := newFakeProc(t)
	d := NewService()
	d.Options.ProcfsPath = f.root
	a, err := d.Scanner(nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Sampled() {
		t.Fatal("Sampled before any sampler took the scanner")
	}
	b, err := d.SamplerScanner(nil)
	if err != nil {
		t.Fatal(err)
	}
	if a != b || !d.Sampled() {
		t.Fatalf("second scanner %p, first %p, sampled %v: want one scanner, sampled", b, a, d.Sampled())
	}
}

func TestOptionsRejectNegativeIntervals(t *testing.T) {
	_, err := NewScanner(Options{ProcfsPath: t.TempDir(), Interval: -time.Second}, nil)
	if err == nil || !strings.Contains(err.Error(), "-1s") {
		t.Fatalf("err = %v, want one naming the interval", err)
	}
	if _, err := NewScanner(Options{ProcfsPath: filepath.Join(t.TempDir(), "missing")}, nil); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("err = %v, want one naming the procfs path", err)
	}
}

// Run scans once at once and ends with its context.
func TestRunScansAtOnceUntilCancelled(t *testing.T) {
	f := newFakeProc(t)
	f.process(200, "java", 20, executorArgv("app-1", "7"), "0::/\n")
	s, err := NewScanner(Options{ProcfsPath: f.root, Interval: time.Hour, ExitCheckInterval: time.Hour}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Already cancelled: Run scans once, then returns.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	s.Run(ctx)
	if got := s.JVMs(); len(got) != 1 || got[0].PID != 200 {
		t.Fatalf("JVMs = %+v, want pid 200 from the first scan", got)
	}
}
