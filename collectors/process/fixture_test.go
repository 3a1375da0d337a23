package process

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fixtureBoot is btime in testdata/node/proc/stat; process start times
// there are ≤ 1,100 s after it.
var fixtureBoot = time.Unix(1767225600, 0)

// fixture is a writable copy of a testdata tree (proc/ and sys/) that a
// test changes between samples, as the kernel would.
type fixture struct {
	t    testing.TB
	root string
}

func newFixture(t testing.TB, trees ...string) *fixture {
	t.Helper()
	f := &fixture{t: t, root: t.TempDir()}
	for _, tree := range trees {
		if err := os.CopyFS(f.root, os.DirFS(filepath.Join("testdata", tree))); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func (f *fixture) proc() string { return filepath.Join(f.root, "proc") }
func (f *fixture) sys() string  { return filepath.Join(f.root, "sys") }

func (f *fixture) write(rel, data string) {
	f.t.Helper()
	p := filepath.Join(f.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// setHostCPU writes /proc/stat with the aggregate line in ticks.
func (f *fixture) setHostCPU(user, system, idle uint64) {
	f.write("proc/stat", fmt.Sprintf("cpu  %d 0 %d %d 0 0 0 0 0 0\nbtime %d\nprocesses 5000\n",
		user, system, idle, fixtureBoot.Unix()))
}

// addHostCPU advances /proc/stat by busy and idle ticks.
func (f *fixture) addHostCPU(busy, idle uint64) {
	f.t.Helper()
	data, err := os.ReadFile(filepath.Join(f.proc(), "stat"))
	if err != nil {
		f.t.Fatal(err)
	}
	var u, n, s, i uint64
	if _, err := fmt.Sscanf(string(data), "cpu %d %d %d %d", &u, &n, &s, &i); err != nil {
		f.t.Fatalf("proc/stat: %v", err)
	}
	f.setHostCPU(u+busy, s, i+idle)
}

func procStatLine(pid int, comm string, start, utime uint64) string {
	return fmt.Sprintf("%d (%s) S 1 %d %d 0 -1 4194560 100 0 0 0 %d 0 0 0 20 0 30 0 %d 4000000000 50000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n",
		pid, comm, pid, pid, utime, start)
}

// writeProc creates /proc/<pid> with its stat, cmdline and cgroup.
func (f *fixture) writeProc(pid int, comm string, start, utime uint64, argv []string, cgroup string) {
	dir := "proc/" + strconv.Itoa(pid)
	f.write(dir+"/stat", procStatLine(pid, comm, start, utime))
	f.write(dir+"/cmdline", strings.Join(argv, "\x00")+"\x00")
	if cgroup != "" {
		f.write(dir+"/cgroup", cgroup)
	}
}

// addProcTicks adds user ticks to a process, keeping its other fields.
func (f *fixture) addProcTicks(pid int, ticks uint64) {
	f.t.Helper()
	rel := fmt.Sprintf("proc/%d/stat", pid)
	data, err := os.ReadFile(filepath.Join(f.root, rel))
	if err != nil {
		f.t.Fatal(err)
	}
	r := strings.LastIndexByte(string(data), ')')
	fields := strings.Fields(string(data[r+2:]))
	utime, err := strconv.ParseUint(fields[11], 10, 64) // field 14 of proc(5)
	if err != nil {
		f.t.Fatal(err)
	}
	fields[11] = strconv.FormatUint(utime+ticks, 10)
	f.write(rel, string(data[:r+2])+strings.Join(fields, " ")+"\n")
}

func (f *fixture) removeProc(pid int) {
	if err := os.RemoveAll(filepath.Join(f.proc(), strconv.Itoa(pid))); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) setRAPL(zoneDir string, uj uint64) {
	f.write("sys/class/powercap/"+zoneDir+"/energy_uj", fmt.Sprintf("%d\n", uj))
}

func (f *fixture) useCPUInfo(name string) {
	f.t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "cpuinfo", name))
	if err != nil {
		f.t.Fatal(err)
	}
	f.write("proc/cpuinfo", string(data))
}

func (f *fixture) agent(opts Options) *Agent {
	f.t.Helper()
	opts.ProcfsPath, opts.SysfsPath = f.proc(), f.sys()
	a, err := New(opts, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	return a
}

func mustSample(t testing.TB, a *Agent, now time.Time) {
	t.Helper()
	if err := a.Sample(now); err != nil {
		t.Fatal(err)
	}
}

func mustDiscover(t testing.TB, a *Agent, now time.Time) {
	t.Helper()
	if err := a.Discover(now); err != nil {
		t.Fatal(err)
	}
}

func near(got, want, tol float64) bool {
	d := got - want
	return d <= tol && d >= -tol
}

func (f *fixture) removeFile(rel string) {
	if err := os.Remove(filepath.Join(f.root, rel)); err != nil {
		f.t.Fatal(err)
	}
}
