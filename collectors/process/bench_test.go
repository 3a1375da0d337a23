package process

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/jvm/discovery"
)

// manyExecutors is a generated procfs of n Spark executor JVMs (on top of
// testdata/node), every one of them tracked: the agent's worst case.
func manyExecutors(tb testing.TB, n int) (*fixture, *Agent) {
	tb.Helper()
	f := newFixture(tb, "node", "rapl-unreadable")
	for i := range n {
		pid := 10000 + i
		f.writeProc(pid, "java", 50000, uint64(i), []string{"/usr/bin/java", "-Xmx4g", "-cp", "/opt/spark/jars/*",
			"org.apache.spark.executor.CoarseGrainedExecutorBackend", "--driver-url", "spark://d:7078",
			"--executor-id", fmt.Sprint(i), "--hostname", "h", "--cores", "4", "--app-id", "app-bench"}, "")
	}
	a := f.agent(Options{})
	mustDiscover(tb, a, t0)
	mustSample(tb, a, t0)
	return f, a
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSample500 is one sampling pass over 500 tracked JVMs; the
// budget is 5 ms of CPU (reported as cpu-ms/op).
func BenchmarkSample500(b *testing.B) {
	_, a := manyExecutors(b, 500)
	now := t0
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for b.Loop() {
		now = now.Add(time.Second)
		if err := a.Sample(now); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

// BenchmarkDiscover500 is a discovery pass that finds nothing new among
// 505 known processes (the steady state between interval ticks).
func BenchmarkDiscover500(b *testing.B) {
	_, a := manyExecutors(b, 500)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := a.Discover(t0); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSample500Smoke checks the 500-process pass is right and, loosely
// (5× the budget, the machine is shared), that it stays cheap.
func TestSample500Smoke(t *testing.T) {
	f, a := manyExecutors(t, 500)
	if got := len(a.Snapshot().Series); got != 504 {
		t.Fatalf("%d series, want 500 executors + 4 fixture JVMs", got)
	}
	f.addHostCPU(1000, 1000)
	f.addProcTicks(10499, 10)
	const passes = 5
	cpu0 := cpuTime()
	for i := 1; i <= passes; i++ {
		mustSample(t, a, t0.Add(time.Duration(i)*time.Second))
	}
	perPass := (cpuTime() - cpu0) / passes
	t.Logf("one sampling pass over 504 JVMs: %v CPU", perPass)
	budget := 25 * time.Millisecond
	if raceEnabled {
		budget *= 4
	}
	if perPass > budget {
		t.Errorf("a pass costs %v of CPU, budget 5 ms", perPass)
	}
	s, _ := a.Snapshot().Find(discovery.Identity{Framework: discovery.FrameworkSpark, Role: discovery.RoleExecutor, AppID: "app-bench", ExecutorID: "499"})
	if !near(s.CPUSeconds, 0.1, 1e-9) || !near(s.Load, 0, 1e-9) {
		t.Errorf("executor 499: cpu %v load %v; want 0.1 s, then idle", s.CPUSeconds, s.Load)
	}
}
