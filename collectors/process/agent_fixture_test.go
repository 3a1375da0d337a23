package process

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/jvm/discovery"
)

var (
	executor7 = discovery.Identity{Framework: discovery.FrameworkSpark, Role: discovery.RoleExecutor, AppID: "spark-a1b2c3d4", ExecutorID: "7"}
	driver    = discovery.Identity{Framework: discovery.FrameworkSpark, Role: discovery.RoleDriver, AppID: "spark-a1b2c3d4", ExecutorID: "driver"}
	tm1       = discovery.Identity{Framework: discovery.FrameworkFlink, Role: discovery.RoleTaskManager, AppID: "flink-session", ExecutorID: "tm-1"}
	jm        = discovery.Identity{Framework: discovery.FrameworkFlink, Role: discovery.RoleJobManager, AppID: "flink-session", ExecutorID: "jobmanager"}
)

// t0 is a sampling instant after every fixture process started.
var t0 = fixtureBoot.Add(2000 * time.Second)

func TestDiscoverFixtureNode(t *testing.T) {
	f := newFixture(t, "node", "rapl-unreadable")
	a := f.agent(Options{})
	mustDiscover(t, a, t0)
	mustSample(t, a, t0)
	snap := a.Snapshot()
	want := map[discovery.Identity]discovery.Placement{
		executor7: {PodUID: "0b9a7e3c-4f5d-4a1b-9c2d-8e7f6a5b4c3d", ContainerID: "3f4e5d6c7b8a99887766554433221100ffeeddccbbaa00112233445566778899"},
		driver:    {PodUID: "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f", ContainerID: "aa11bb22cc33dd44ee55ff6600112233445566778899aabbccddeeff00112233"},
		tm1:       {PodUID: "", ContainerID: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
		jm:        {},
	}
	if len(snap.Series) != len(want) {
		t.Fatalf("series = %+v, want the 4 JVMs (not bash, not ZooKeeper)", snap.Series)
	}
	for id, p := range want {
		s, ok := snap.Find(id)
		if !ok {
			t.Errorf("%+v not discovered", id)
			continue
		}
		if s.Placement != p || s.Live != 1 || s.CPUSeconds != 0 {
			t.Errorf("%+v: placement %+v live %d cpu %v; want %+v, 1, 0 (first sample is a baseline)", id, s.Placement, s.Live, s.CPUSeconds, p)
		}
	}
	wantDiscovered := []DiscoveredProcess{{"flink", "jobmanager", 1}, {"flink", "taskmanager", 1}, {"spark", "driver", 1}, {"spark", "executor", 1}}
	if len(snap.Discovered) != 4 {
		t.Fatalf("discovered = %+v", snap.Discovered)
	}
	for i, d := range wantDiscovered {
		if snap.Discovered[i] != d {
			t.Errorf("discovered[%d] = %+v, want %+v", i, snap.Discovered[i], d)
		}
	}
}

// Host: 2 CPUs for 10 s = 2,000 ticks, 800 busy. Executor 7 used 500
// ticks, the driver 100. TDP: "11th Gen … i7-1165G7" fuzzily → 28 W.
func advanceTenSeconds(f *fixture) {
	f.addHostCPU(800, 1200)
	f.addProcTicks(4242, 500)
	f.addProcTicks(4343, 100)
}

func TestSampleTDPModel(t *testing.T) {
	f := newFixture(t, "node", "rapl-unreadable")
	a := f.agent(Options{})
	if a.PowerSource() != SourceTDP {
		t.Fatalf("power source %q: energy_uj is unreadable, want tdp", a.PowerSource())
	}
	if tdp := a.TDP(); tdp.Watts != 28 || tdp.Source != TDPSourceTable || tdp.CPUModel != "Intel Core i7-1165G7" {
		t.Fatalf("TDP = %+v, want 28 W from the table row Intel Core i7-1165G7", tdp)
	}
	mustDiscover(t, a, t0)
	mustSample(t, a, t0)
	advanceTenSeconds(f)
	mustSample(t, a, t0.Add(10*time.Second))
	snap := a.Snapshot()
	for _, c := range []struct {
		id                discovery.Identity
		cpu, load, joules float64
	}{
		{executor7, 5, 0.25, 28 * 10 * 0.25},
		{driver, 1, 0.05, 28 * 10 * 0.05},
		{tm1, 0, 0, 0},
	} {
		s, _ := snap.Find(c.id)
		if !near(s.CPUSeconds, c.cpu, 1e-9) || !near(s.Load, c.load, 1e-9) || !near(s.EnergyJoules[SourceTDP], c.joules, 1e-9) {
			t.Errorf("%s/%s: cpu %v load %v energy %v; want %v %v %v", c.id.Role, c.id.ExecutorID, s.CPUSeconds, s.Load, s.EnergyJoules, c.cpu, c.load, c.joules)
		}
	}
	// The node is 40 % busy: 28 W × 10 s × 0.4.
	if len(snap.Node) != 1 || snap.Node[0] != (NodeEnergy{SourceTDP, "package", 112}) {
		t.Errorf("node energy = %+v, want tdp/package 112 J", snap.Node)
	}
}

func TestSampleBusyDenominatorIsCcsparkLoad(t *testing.T) {
	f := newFixture(t, "node", "rapl-unreadable")
	a := f.agent(Options{LoadDenominator: DenominatorBusy, TDPWatts: 100})
	mustDiscover(t, a, t0)
	mustSample(t, a, t0)
	advanceTenSeconds(f)
	mustSample(t, a, t0.Add(10*time.Second))
	s, _ := a.Snapshot().Find(executor7)
	// 500 of 800 busy ticks: 0.625, charged 100 W × 10 s × 0.625.
	if !near(s.Load, 0.625, 1e-9) || !near(s.EnergyJoules[SourceTDP], 625, 1e-9) {
		t.Fatalf("load %v energy %v, want 0.625 and 625 J", s.Load, s.EnergyJoules)
	}
}

func TestSampleRAPLWrapAroundAndAttribution(t *testing.T) {
	f := newFixture(t, "node", "rapl")
	const pkgMax = 262143328850
	f.setRAPL("intel-rapl-0", pkgMax-20_000_000) // 20 J before the wrap
	a := f.agent(Options{})
	if a.PowerSource() != SourceRAPL {
		t.Fatalf("power source %q, want rapl", a.PowerSource())
	}
	mustDiscover(t, a, t0)
	mustSample(t, a, t0)
	advanceTenSeconds(f)
	f.setRAPL("intel-rapl-0", 30_000_000)   // wrapped: 20 J + 30 J
	f.setRAPL("intel-rapl-0-2", 10_500_000) // dram: 500,000 → 10,500,000 µJ = 10 J
	f.setRAPL("intel-rapl-0-0", 99_000_000) // core and psys overlap package:
	f.setRAPL("intel-rapl-1", 99_000_000)   // they must not count
	mustSample(t, a, t0.Add(10*time.Second))
	snap := a.Snapshot()
	// 60 J measured, 40 % busy: 24 J active, 36 J idle. Executor 7 had
	// 5 of the 8 busy seconds: 15 J; the driver 1 of 8: 3 J.
	wantNode := []NodeEnergy{{SourceRAPL, "dram-0", 10}, {SourceRAPL, "idle", 36}, {SourceRAPL, "package-0", 50}}
	if len(snap.Node) != len(wantNode) {
		t.Fatalf("node = %+v, want %+v", snap.Node, wantNode)
	}
	for i, n := range wantNode {
		if snap.Node[i].Zone != n.Zone || !near(snap.Node[i].Joules, n.Joules, 1e-6) {
			t.Errorf("node[%d] = %+v, want %+v", i, snap.Node[i], n)
		}
	}
	for id, want := range map[discovery.Identity]float64{executor7: 15, driver: 3} {
		s, _ := snap.Find(id)
		if !near(s.EnergyJoules[SourceRAPL], want, 1e-6) || s.EnergyJoules[SourceTDP] != 0 {
			t.Errorf("%s: energy %v, want rapl %v J only", id.Role, s.EnergyJoules, want)
		}
	}
}

func TestSampleFallsBackToTDPWhenRAPLFailsMidway(t *testing.T) {
	f := newFixture(t, "node", "rapl")
	var logs bytes.Buffer
	opts := Options{ProcfsPath: f.proc(), SysfsPath: f.sys(), TDPWatts: 50}
	a, err := New(opts, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	mustDiscover(t, a, t0)
	mustSample(t, a, t0)
	f.removeFile("sys/class/powercap/intel-rapl-0/energy_uj")
	for i := 1; i <= 3; i++ {
		advanceTenSeconds(f)
		mustSample(t, a, t0.Add(time.Duration(i)*10*time.Second))
	}
	s, _ := a.Snapshot().Find(executor7)
	if !near(s.EnergyJoules[SourceTDP], 3*50*10*0.25, 1e-9) {
		t.Errorf("energy %v, want 375 J from the TDP model", s.EnergyJoules)
	}
	if n := strings.Count(logs.String(), "RAPL unreadable"); n != 1 {
		t.Errorf("RAPL failure logged %d times, want once:\n%s", n, logs.String())
	}
}

func TestProcessExitKeepsCountersUntilRetention(t *testing.T) {
	f := newFixture(t, "node", "rapl-unreadable")
	a := f.agent(Options{TDPWatts: 100, Retention: time.Minute})
	mustDiscover(t, a, t0)
	mustSample(t, a, t0)
	advanceTenSeconds(f)
	mustSample(t, a, t0.Add(10*time.Second))
	f.removeProc(4343) // the driver exits between two samples
	f.addHostCPU(800, 1200)
	mustSample(t, a, t0.Add(20*time.Second))
	snap := a.Snapshot()
	s, ok := snap.Find(driver)
	if !ok || s.Live != 0 || s.Load != 0 || s.CPUSeconds != 1 || !near(s.EnergyJoules[SourceTDP], 50, 1e-9) {
		t.Fatalf("exited driver = %+v %v; want kept: live 0, load 0, 1 CPU s, 50 J", s, ok)
	}
	for _, d := range snap.Discovered {
		if d.Role == discovery.RoleDriver {
			t.Errorf("exited driver still counted as discovered: %+v", d)
		}
	}
	f.addHostCPU(800, 1200)
	mustSample(t, a, t0.Add(70*time.Second)) // 60 s after it was last seen alive: kept
	if _, ok := a.Snapshot().Find(driver); !ok {
		t.Fatal("driver forgotten at exactly the retention")
	}
	f.addHostCPU(800, 1200)
	mustSample(t, a, t0.Add(71*time.Second))
	if _, ok := a.Snapshot().Find(driver); ok {
		t.Fatal("driver still exported after the retention")
	}
	if _, ok := a.Snapshot().Find(executor7); !ok {
		t.Fatal("the live executor was forgotten")
	}
}

func TestPidReuseIsANewProcess(t *testing.T) {
	f := newFixture(t, "node", "rapl-unreadable")
	a := f.agent(Options{TDPWatts: 100})
	mustDiscover(t, a, t0)
	mustSample(t, a, t0)
	advanceTenSeconds(f) // executor 7 is at 20,500 ticks, 5 s counted
	mustSample(t, a, t0.Add(10*time.Second))

	// Executor 7 exits; a new executor 8 of another app gets pid 4242,
	// born 15 s after the previous sample, with 300 ticks already used.
	f.writeProc(4242, "java", 201500, 300, []string{"java", "-cp", "x",
		"org.apache.spark.executor.CoarseGrainedExecutorBackend", "--executor-id", "8", "--app-id", "app-2"}, "0::/\n")
	f.addHostCPU(800, 1200)
	mustSample(t, a, t0.Add(20*time.Second))
	f.addHostCPU(800, 1200)
	f.addProcTicks(4242, 200)
	mustSample(t, a, t0.Add(30*time.Second))

	snap := a.Snapshot()
	old, _ := snap.Find(executor7)
	if old.Live != 0 || old.CPUSeconds != 5 {
		t.Errorf("executor 7 = %+v; want exited with its 5 CPU s, nothing of the new process", old)
	}
	s, ok := snap.Find(discovery.Identity{Framework: discovery.FrameworkSpark, Role: discovery.RoleExecutor, AppID: "app-2", ExecutorID: "8"})
	// All 500 ticks of the newcomer count: it was born after the sample
	// before it was found. None of the old process's ticks do.
	if !ok || s.Live != 1 || !near(s.CPUSeconds, 5, 1e-9) {
		t.Errorf("executor 8 = %+v %v; want live with 5 CPU s", s, ok)
	}
}

func TestPidReuseBySameExecutorNeverGoesBackwards(t *testing.T) {
	f := newFixture(t, "node", "rapl-unreadable")
	a := f.agent(Options{TDPWatts: 100})
	mustDiscover(t, a, t0)
	mustSample(t, a, t0)
	advanceTenSeconds(f)
	mustSample(t, a, t0.Add(10*time.Second))
	// Same command line, other start time, fewer ticks than the old one.
	argv := []string{"java", "-cp", "x", "org.apache.spark.scheduler.cluster.k8s.KubernetesExecutorBackend",
		"--executor-id", "7", "--app-id", "spark-a1b2c3d4"}
	f.writeProc(4242, "java", 150000, 40, argv, "0::/\n")
	f.addHostCPU(800, 1200)
	mustSample(t, a, t0.Add(20*time.Second)) // notices the reuse; new baseline 40
	f.addHostCPU(800, 1200)
	f.addProcTicks(4242, 100)
	mustSample(t, a, t0.Add(30*time.Second))
	s, _ := a.Snapshot().Find(executor7)
	if !near(s.CPUSeconds, 6, 1e-9) || s.Live != 1 {
		t.Fatalf("cpu %v live %d; want 5 s of the first process + 1 s of the second", s.CPUSeconds, s.Live)
	}
}

func TestTDPDetection(t *testing.T) {
	for _, c := range []struct {
		cpuinfo string
		flag    float64
		want    TDPInfo
		warned  bool
	}{
		{"two-socket-xeon", 0, TDPInfo{230, "Intel Xeon E5-2670 v2", TDPSourceTable, 2}, false},
		{"unknown-epyc", 0, TDPInfo{85, "AMD EPYC 7B13 64-Core Processor", TDPSourceDefault, 1}, true},
		{"unknown-graviton", 0, TDPInfo{85, "unknown", TDPSourceDefault, 1}, true},
		{"unknown-epyc", 180, TDPInfo{180, "AMD EPYC 7B13 64-Core Processor", TDPSourceFlag, 1}, false},
	} {
		f := newFixture(t, "node", "rapl-unreadable")
		f.useCPUInfo(c.cpuinfo)
		var logs bytes.Buffer
		a, err := New(Options{ProcfsPath: f.proc(), SysfsPath: f.sys(), TDPWatts: c.flag},
			slog.New(slog.NewTextHandler(&logs, nil)))
		if err != nil {
			t.Fatal(err)
		}
		mustSample(t, a, t0)
		mustSample(t, a, t0.Add(time.Second))
		if a.TDP() != c.want {
			t.Errorf("%s flag %v: TDP = %+v, want %+v", c.cpuinfo, c.flag, a.TDP(), c.want)
		}
		if n := strings.Count(logs.String(), "TDP unknown"); n != map[bool]int{true: 1, false: 0}[c.warned] {
			t.Errorf("%s: default warned %d times, want warned=%v:\n%s", c.cpuinfo, n, c.warned, logs.String())
		}
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	for _, o := range []Options{
		{LoadDenominator: "idle"},
		{TDPWatts: -1},
		{ProcfsPath: "/nonexistent/proc"},
	} {
		if _, err := New(o, nil); err == nil {
			t.Errorf("New(%+v) succeeded", o)
		}
	}
}

func TestSampleRejectsTimeGoingBackwards(t *testing.T) {
	f := newFixture(t, "node", "rapl-unreadable")
	a := f.agent(Options{})
	mustSample(t, a, t0)
	if err := a.Sample(t0); err == nil {
		t.Fatal("a second sample at the same instant was accepted")
	}
}
