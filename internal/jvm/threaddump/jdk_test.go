package threaddump

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/jvm/jvmtest"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// A dump printed by the installed JDK's jcmd parses without a skipped line
// and shows every workload thread in the state it was built to be in.
func TestParseInstalledJDKDump(t *testing.T) {
	jcmd := testkit.RequireTool(t, "jcmd")
	classes := jvmtest.Compile(t)
	jvm := jvmtest.Start(t, classes, jvmtest.Options{}, "spin=1", "blocked=1", "park=1", "shuffle=1", "sleep=1", "pool=20")
	out, err := exec.Command(jcmd, strconv.Itoa(jvm.PID), "Thread.print", "-l").CombinedOutput()
	if err != nil {
		t.Fatalf("jcmd: %v\n%s", err, out)
	}
	d, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if d.Skipped != 0 {
		t.Errorf("%d lines skipped: %v", d.Skipped, d.Problems)
	}
	wantState := map[string]string{"spin": "RUNNABLE", "blocked": "BLOCKED", "park": "WAITING",
		"shuffle": "WAITING", "sleep": "TIMED_WAITING", "pool": "TIMED_WAITING", "holder": "TIMED_WAITING"}
	for name, kind := range jvm.Kinds {
		th := d.Find(name)
		if th == nil {
			t.Errorf("thread %q missing", name)
			continue
		}
		if th.State != wantState[kind] || th.OwnableSynchronizers == nil || !th.HasCPU || th.JavaID <= 0 {
			t.Errorf("%s thread %q: state %s (want %s), %+v", kind, name, th.State, wantState[kind], th)
		}
	}
	if l, ok := d.Find(jvm.Names("park")[0]).WaitingFor(); !ok || l.Kind != ParkingToWaitFor ||
		!strings.HasPrefix(l.Class, "java.util.concurrent.locks.ReentrantLock") {
		t.Errorf("parked thread waits for %+v", l)
	}
	if h := d.Find("lock-holder"); len(h.OwnableSynchronizers) != 1 {
		t.Errorf("lock-holder owns %+v", h.OwnableSynchronizers)
	}
}
