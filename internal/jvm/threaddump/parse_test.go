package threaddump

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// sampleDumps returns the two dumps of the shared sample (jcmd, then jstack).
func sampleDumps(t testing.TB) (string, string) {
	b, err := os.ReadFile(testkit.Path(t, "reference", "sample-hotspot-thread-dump.txt"))
	if err != nil {
		t.Fatal(err)
	}
	first, second, ok := strings.Cut(string(b), "\n==== second dump")
	if !ok {
		t.Fatal("sample: separator line not found")
	}
	_, second, _ = strings.Cut(second, "\n") // drop the rest of the separator line
	return first, second
}

func TestParseSharedSample(t *testing.T) {
	first, second := sampleDumps(t)
	for i, text := range []string{first, second} {
		d, err := ParseString(text)
		if err != nil {
			t.Fatal(err)
		}
		if d.Skipped != 0 {
			t.Errorf("dump %d: %d lines skipped: %v", i, d.Skipped, d.Problems)
		}
		// 14 Java threads (SMR length=14) and 7 VM threads.
		java := 0
		for _, th := range d.Threads {
			if th.IsJava() {
				java++
			}
		}
		if len(d.Threads) != 21 || java != 14 {
			t.Fatalf("dump %d: %d threads, %d Java; want 21, 14", i, len(d.Threads), java)
		}
		if d.Timestamp != "2026-11-30 02:10:19" || d.VM != "OpenJDK 64-Bit Server VM (17.0.15+6-Debian-1deb12u1 mixed mode, sharing)" {
			t.Errorf("dump %d: timestamp %q, VM %q", i, d.Timestamp, d.VM)
		}
	}

	d, _ := ParseString(first)
	main := d.Find("main")
	if main == nil || main.JavaID != 1 || main.Daemon || main.Priority != 5 || main.OSPriority != 0 ||
		main.TID != 0x00007f4630017ed0 || main.OSThreadID != 0x66d6 || main.Status != "in Object.wait()" ||
		main.State != "WAITING" || main.StateDetail != "on object monitor" || len(main.Frames) != 4 {
		t.Fatalf("main = %+v", main)
	}
	if !main.HasCPU || main.CPU != 50240*time.Microsecond || main.Elapsed != 3870*time.Millisecond {
		t.Errorf("main cpu %v elapsed %v", main.CPU, main.Elapsed)
	}
	wait := main.Frames[0]
	if wait.Class != "java.lang.Object" || wait.Method != "wait" || !wait.Native || wait.Module != "java.base@17.0.15" ||
		len(wait.Locks) != 1 || wait.Locks[0] != (Lock{Kind: WaitingOn, Address: 0x000000069ec194c8, Class: "java.lang.Thread"}) {
		t.Errorf("main frame 0 = %+v", wait)
	}
	if f := main.Frames[1]; f.Func() != "java.lang.Thread.join" || f.File != "Thread.java" || f.Line != 1313 || f.Locks[0].Kind != Locked {
		t.Errorf("main frame 1 = %+v", f)
	}
	if f := main.Frames[3]; f.Func() != "DumpDemo.main" || f.Module != "" || f.File != "DumpDemo.java" || f.Line != 22 {
		t.Errorf("main frame 3 = %+v", f)
	}

	blocked := d.Find("Executor task launch worker for task 1.0 in stage 1.0 (TID 2)")
	if blocked == nil || blocked.State != "BLOCKED" || blocked.Status != "waiting for monitor entry" || !blocked.Daemon {
		t.Fatalf("blocked task = %+v", blocked)
	}
	if l, ok := blocked.WaitingFor(); !ok || l.Kind != WaitingToLock || l.Address != 0x69ec193e0 || l.Class != "java.lang.Object" {
		t.Errorf("blocked task waits for %+v", l)
	}
	if lambda := blocked.Frames[1]; lambda.Class != "DumpDemo$$Lambda$2/0x00007f45b0000c28" || lambda.Method != "run" || lambda.File != "" {
		t.Errorf("lambda frame = %+v", lambda)
	}
	running := d.Find("Executor task launch worker for task 0.0 in stage 1.0 (TID 1)")
	if running == nil || running.State != "RUNNABLE" || running.CPU != 3785610*time.Microsecond {
		t.Errorf("running task = %+v", running)
	}
	vm := d.Find("VM Thread")
	if vm == nil || vm.IsJava() || vm.JavaID != -1 || vm.Priority != -1 || vm.Status != "runnable" || vm.OSThreadID != 0x66dc {
		t.Errorf("VM Thread = %+v", vm)
	}
	if c2 := d.Find("C2 CompilerThread0"); c2 == nil || c2.State != "RUNNABLE" || len(c2.Frames) != 0 {
		t.Errorf("C2 = %+v", c2)
	}
}

// Lines of a JDK 25 dump (jcmd Thread.print -l on Temurin 25.0.3 with a
// virtual thread spinning), checked by hand against the JVM's output.
const jdk25 = `16686:
2026-11-30 03:02:43
Full thread dump OpenJDK 64-Bit Server VM (25.0.3+9-LTS mixed mode, sharing):

"main" #3 [16688] prio=5 os_prio=0 cpu=28.77ms elapsed=1.76s allocated=509K defined_classes=25 tid=0x00007f787802a840 nid=16688 waiting on condition  [0x00007f787fffe000]
   java.lang.Thread.State: TIMED_WAITING (sleeping)
	at java.lang.Thread.sleepNanos0(java.base@25.0.3/Native Method)
	at java.lang.Thread.sleepNanos(java.base@25.0.3/Thread.java:509)
	at java.lang.Thread.sleep(java.base@25.0.3/Thread.java:540)
	at V.main(V.java:4)

   Locked ownable synchronizers:
	- None

"ForkJoinPool-1-worker-1" #23 [16770] daemon prio=5 os_prio=0 cpu=1700.58ms elapsed=1.72s tid=0x00007f82500e4a90  [0x00007f81f7cfd000]
   Carrying virtual thread #22
	at jdk.internal.vm.Continuation.run(java.base@25.0.3/Continuation.java:251)
	at java.lang.VirtualThread.runContinuation(java.base@25.0.3/VirtualThread.java:297)
	at java.lang.VirtualThread$$Lambda/0x0000000016002ff0.run(java.base@25.0.3/Unknown Source)
   Mounted virtual thread #22
	at V.lambda$main$0(V.java:2)
	at V$$Lambda/0x0000000016040210.run(Unknown Source)
	at java.lang.Thread.runWith(java.base@25.0.3/Thread.java:1487)

   Locked ownable synchronizers:
	- <0x000000069ec50380> (a java.util.concurrent.locks.ReentrantLock$NonfairSync)

"VM Thread" os_prio=0 cpu=1.06ms elapsed=1.74s tid=0x00007f82500affe0 nid=16759 runnable  
`

func TestParseJDK25(t *testing.T) {
	d, err := ParseString(jdk25)
	if err != nil {
		t.Fatal(err)
	}
	if d.Skipped != 0 || len(d.Threads) != 3 {
		t.Fatalf("%d threads, skipped %d: %v", len(d.Threads), d.Skipped, d.Problems)
	}
	main := d.Threads[0]
	if main.JavaID != 3 || main.OSThreadID != 16688 || main.State != "TIMED_WAITING" || main.StateDetail != "sleeping" ||
		main.Status != "waiting on condition" || main.OwnableSynchronizers == nil || len(main.OwnableSynchronizers) != 0 {
		t.Errorf("main = %+v", main)
	}
	carrier := d.Threads[1]
	if carrier.OSThreadID != 16770 || !carrier.Daemon || carrier.State != "" || carrier.Carried == nil ||
		carrier.Carried.JavaID != 22 || len(carrier.Frames) != 3 || len(carrier.Carried.Frames) != 3 {
		t.Fatalf("carrier = %+v", carrier)
	}
	if f := carrier.Carried.Frames[0]; f.Func() != "V.lambda$main$0" || f.Line != 2 {
		t.Errorf("virtual frame 0 = %+v", f)
	}
	if f := carrier.Frames[2]; f.Class != "java.lang.VirtualThread$$Lambda/0x0000000016002ff0" || f.Module != "java.base@25.0.3" {
		t.Errorf("hidden-class frame = %+v", f)
	}
	if s := carrier.OwnableSynchronizers; len(s) != 1 || s[0].Address != 0x69ec50380 || s[0].Class != "java.util.concurrent.locks.ReentrantLock$NonfairSync" {
		t.Errorf("synchronizers = %+v", s)
	}
	if vm := d.Threads[2]; vm.OSThreadID != 16759 || vm.Status != "runnable" {
		t.Errorf("VM Thread = %+v", vm)
	}
}

// JDK 8 headers have no cpu=/elapsed=; the deadlock report quotes thread
// names in lines that must not be read as headers.
const jdk8 = `Full thread dump Java HotSpot(TM) 64-Bit Server VM (25.202-b08 mixed mode):

"Thread-1" #9 prio=5 os_prio=0 tid=0x00007f0c9c0e8800 nid=0x2b1c waiting for monitor entry [0x00007f0c86ffd000]
   java.lang.Thread.State: BLOCKED (on object monitor)
	at Deadlock.lambda$main$1(Deadlock.java:20)
	- waiting to lock <0x000000076ab62208> (a java.lang.Object)
	- locked <0x000000076ab62218> (a java.lang.Object)
	at Deadlock$$Lambda$2/531885035.run(Unknown Source)
	at java.lang.Thread.run(Thread.java:748)

"VM Thread" os_prio=0 tid=0x00007f0c9c073000 nid=0x2b0c runnable 

JNI global references: 7


Found one Java-level deadlock:
=============================
"Thread-1":
  waiting to lock monitor 0x00007f0c68003828 (object 0x000000076ab62208, a java.lang.Object),
  which is held by "Thread-0"

Java stack information for the threads listed above:
===================================================
"Thread-1":
	at Deadlock.lambda$main$1(Deadlock.java:20)
	- waiting to lock <0x000000076ab62208> (a java.lang.Object)

Found 1 deadlock.

`

func TestParseJDK8WithDeadlock(t *testing.T) {
	d, err := ParseString(jdk8)
	if err != nil {
		t.Fatal(err)
	}
	if d.Skipped != 0 || len(d.Threads) != 2 || d.Deadlocks != 1 {
		t.Fatalf("%d threads, %d deadlocks, skipped %d: %v", len(d.Threads), d.Deadlocks, d.Skipped, d.Problems)
	}
	th := d.Threads[0]
	if th.JavaID != 9 || th.HasCPU || th.OSThreadID != 0x2b1c || len(th.Frames) != 3 || len(th.Frames[0].Locks) != 2 {
		t.Fatalf("Thread-1 = %+v", th)
	}
	if f := th.Frames[2]; f.Module != "" || f.File != "Thread.java" || f.Line != 748 {
		t.Errorf("frame = %+v", f)
	}
}

func TestParseSkipsJunk(t *testing.T) {
	first, _ := sampleDumps(t)
	junk := "[0.512s][warning][gc] interleaved log line\n\tat broken\n- locked <0x1>\n\"unterminated\n"
	text := strings.Replace(first, "\n\n\"Finalizer\"", "\n"+junk+"\n\"Finalizer\"", 1)
	d, err := ParseString(text)
	if err != nil {
		t.Fatal(err)
	}
	// The stray lock line is kept: it follows a frame of "Reference Handler".
	if len(d.Threads) != 21 || d.Skipped != 3 || len(d.Problems) != 3 || d.Problems[0].Line != 27 {
		t.Fatalf("%d threads, skipped %d: %v", len(d.Threads), d.Skipped, d.Problems)
	}
	if _, err := ParseString("no dump here\n"); !errors.Is(err, ErrNoThreads) {
		t.Errorf("err = %v, want ErrNoThreads", err)
	}
}

func TestFrameForms(t *testing.T) {
	for _, c := range []struct {
		in                 string
		class, method, mod string
		file               string
		line               int
		native, ok         bool
	}{
		{"java.lang.Object.wait(Native Method)", "java.lang.Object", "wait", "", "", 0, true, true},
		{"java.base@17/java.lang.Object.wait(Native Method)", "java.lang.Object", "wait", "java.base@17", "", 0, true, true},
		{"app//com.x.Main.run(Main.java:10)", "com.x.Main", "run", "", "Main.java", 10, false, true},
		{"Foo$$Lambda$1/0x0000000800c0b000.run(Unknown Source)", "Foo$$Lambda$1/0x0000000800c0b000", "run", "", "", 0, false, true},
		{"noparen", "", "", "", "", 0, false, false},
		{"nomethod(X.java:1)", "", "", "", "", 0, false, false},
	} {
		f, ok := parseFrame(c.in)
		if ok != c.ok || f.Class != c.class || f.Method != c.method || f.Module != c.mod || f.File != c.file || f.Line != c.line || f.Native != c.native {
			t.Errorf("parseFrame(%q) = %+v, %v", c.in, f, ok)
		}
	}
}

func FuzzParse(f *testing.F) {
	first, second := sampleDumps(f)
	f.Add(first)
	f.Add(second)
	f.Add(jdk25)
	f.Add(jdk8)
	f.Add("\"x\" tid=\n\tat (\n- waiting on <0x>\n")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseString(s)
		if err == nil && len(d.Threads) == 0 {
			t.Fatal("no error and no threads")
		}
		if len(d.Problems) > maxProblems || d.Skipped < len(d.Problems) {
			t.Fatalf("problems %d, skipped %d", len(d.Problems), d.Skipped)
		}
	})
}
