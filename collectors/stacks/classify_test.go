package stacks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/jvm/threaddump"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

func TestTaskThreadNames(t *testing.T) {
	for _, c := range []struct {
		name string
		want TaskThread
		ok   bool
	}{
		{"Executor task launch worker for task 0.0 in stage 1.0 (TID 1)", TaskThread{Spark, 1, 0}, true},
		{"Executor task launch worker for task 12 in stage 3 (TID 1234)", TaskThread{Spark, 1234, 0}, true},
		{"Executor task launch worker for task 17", TaskThread{Spark, 17, 0}, true},
		{"Executor task launch worker-3", TaskThread{Spark, -1, 0}, true},
		{"Source: Custom Source -> Map (2/4)#0", TaskThread{Flink, -1, 2}, true},
		{"Reduce (SUM(1)) (1/1)", TaskThread{Flink, -1, 1}, true},
		{"Legacy Source Thread - Source: Gen (3/8)#1", TaskThread{Flink, -1, 3}, true},
		{"OutputFlusher for Map (1/1)#0", TaskThread{}, false},
		{"Executor task launch worker for taskless", TaskThread{}, false},
		{"dispatcher-event-loop-1", TaskThread{}, false},
		{"main", TaskThread{}, false},
	} {
		got, ok := TaskThreadOf(c.name)
		if ok != c.ok || got != c.want {
			t.Errorf("TaskThreadOf(%q) = %+v, %v; want %+v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

// The shared sample: task TID 1 spins holding a monitor, TID 2 is BLOCKED
// on it, so each dump is one running and one lock sample.
func TestClassifySharedSample(t *testing.T) {
	b, err := os.ReadFile(testkit.Path(t, "reference", "sample-hotspot-thread-dump.txt"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(b), "\n==== second dump")
	d, err := threaddump.ParseString(first)
	if err != nil {
		t.Fatal(err)
	}
	got := DefaultClassifier().ClassifyDump(d)
	if len(got) != 2 || got[0].TaskID != 1 || got[0].State != Running || got[1].TaskID != 2 ||
		got[1].State != Lock || got[1].Rule != "monitor_blocked" {
		t.Fatalf("samples = %+v", got)
	}
}

// Stacks as Spark prints them (JDK 17 frame forms), checked by hand.
const sparkStacks = `
"Executor task launch worker for task 1" #40 daemon prio=5 os_prio=0 tid=0x1 nid=0x2 in Object.wait()  [0x0]
   java.lang.Thread.State: WAITING (on object monitor)
	at java.lang.Object.wait(java.base@17.0.15/Native Method)
	- waiting on <0x0000000700000000> (a org.apache.spark.memory.UnifiedMemoryManager)
	at java.lang.Object.wait(java.base@17.0.15/Object.java:338)
	at org.apache.spark.memory.ExecutionMemoryPool.acquireMemory(ExecutionMemoryPool.scala:140)
	- locked <0x0000000700000000> (a org.apache.spark.memory.UnifiedMemoryManager)
	at org.apache.spark.memory.UnifiedMemoryManager.acquireExecutionMemory(UnifiedMemoryManager.scala:174)
	at org.apache.spark.memory.TaskMemoryManager.acquireExecutionMemory(TaskMemoryManager.java:189)

"Executor task launch worker for task 2" #41 daemon prio=5 os_prio=0 tid=0x1 nid=0x3 runnable  [0x0]
   java.lang.Thread.State: RUNNABLE
	at java.io.FileOutputStream.writeBytes(java.base@17.0.15/Native Method)
	at java.io.FileOutputStream.write(java.base@17.0.15/FileOutputStream.java:349)
	at org.apache.spark.storage.DiskBlockObjectWriter.write(DiskBlockObjectWriter.scala:310)
	at org.apache.spark.util.collection.ExternalSorter.spillMemoryIteratorToDisk(ExternalSorter.scala:300)

"Executor task launch worker for task 3" #42 daemon prio=5 os_prio=0 tid=0x1 nid=0x4 waiting on condition  [0x0]
   java.lang.Thread.State: WAITING (parking)
	at jdk.internal.misc.Unsafe.park(java.base@17.0.15/Native Method)
	- parking to wait for  <0x0000000700000001> (a java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject)
	at java.util.concurrent.locks.LockSupport.park(java.base@17.0.15/LockSupport.java:341)
	at java.util.concurrent.LinkedBlockingQueue.take(java.base@17.0.15/LinkedBlockingQueue.java:435)
	at org.apache.spark.storage.ShuffleBlockFetcherIterator.next(ShuffleBlockFetcherIterator.scala:754)

"Executor task launch worker for task 4" #43 daemon prio=5 os_prio=0 tid=0x1 nid=0x5 runnable  [0x0]
   java.lang.Thread.State: RUNNABLE
	at sun.nio.ch.Net.poll(java.base@17.0.15/Native Method)
	at sun.nio.ch.NioSocketImpl.park(java.base@17.0.15/NioSocketImpl.java:186)
	at sun.nio.ch.NioSocketImpl.timedRead(java.base@17.0.15/NioSocketImpl.java:290)

"Executor task launch worker for task 5" #44 daemon prio=5 os_prio=0 tid=0x1 nid=0x6 waiting on condition  [0x0]
   java.lang.Thread.State: WAITING (parking)
	at jdk.internal.misc.Unsafe.park(java.base@17.0.15/Native Method)
	- parking to wait for  <0x0000000700000002> (a java.util.concurrent.CountDownLatch$Sync)
	at java.util.concurrent.locks.LockSupport.park(java.base@17.0.15/LockSupport.java:211)
	at java.util.concurrent.CountDownLatch.await(java.base@17.0.15/CountDownLatch.java:230)
`

func TestDefaultRulesOnSparkStacks(t *testing.T) {
	d, err := threaddump.ParseString(sparkStacks)
	if err != nil || d.Skipped != 0 {
		t.Fatalf("%v, skipped %v", err, d.Problems)
	}
	want := []State{MemoryWait, Spill, ShuffleFetch, IO, OtherWait}
	got := DefaultClassifier().ClassifyDump(d)
	if len(got) != len(want) {
		t.Fatalf("%d samples", len(got))
	}
	for i, s := range got {
		if s.State != want[i] {
			t.Errorf("task %d: %v by rule %q, want %v", s.TaskID, s.State, s.Rule, want[i])
		}
	}
}

func TestLoadRules(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "rules.json")
	os.WriteFile(good, []byte(`{"rules": [
  {"name": "latch_is_shuffle", "state": "shuffle_fetch", "framework": "spark",
   "thread_states": ["WAITING"], "any_frame": ["java.util.concurrent.CountDownLatch.await"], "depth": 4}
]}`), 0o644)
	rules, err := LoadRules(good)
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != len(DefaultRules())+1 || rules[0].Name != "latch_is_shuffle" {
		t.Fatalf("rules = %d, first %q", len(rules), rules[0].Name)
	}
	c, err := NewClassifier(rules)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := threaddump.ParseString(sparkStacks)
	if s := c.ClassifyDump(d)[4]; s.State != ShuffleFetch || s.Rule != "latch_is_shuffle" {
		t.Errorf("task 5 = %+v", s)
	}

	for body, wantErr := range map[string]string{
		`{"rules": [{"name": "x", "state": "sleepy", "thread_states": ["WAITING"]}]}`: `unknown state "sleepy"`,
		`{"rules": [{"name": "x", "state": "io", "any_frames": ["a.b"]}]}`:            `unknown field "any_frames"`,
		`{"rules": [{"name": "x", "state": "io"}]}`:                                   "no condition",
		`{"rules": [{"name": "x", "state": "io", "thread_states": ["SLEEPING"]}]}`:    `thread state "SLEEPING"`,
		"{\"rules\": [\n{\"name\": \"x\", \"state\": \"io\", \"depth\": \"3\"}]}":     "line 2",
		`{"rules": [{"name": "x", "state": "io", "any_frame": ["**"]}]}`:              "matches everything",
	} {
		p := filepath.Join(dir, "bad.json")
		os.WriteFile(p, []byte(body), 0o644)
		if _, err := LoadRules(p); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("LoadRules(%s) = %v, want error containing %q", body, err, wantErr)
		}
	}
}

func TestPatternMatch(t *testing.T) {
	for _, c := range []struct {
		glob, s string
		want    bool
	}{
		{"a.B.m", "a.B.m", true},
		{"a.B.m", "a.B.mm", false},
		{"a.*.request*Blocking", "a.Pool.requestBufferBuilderBlocking", true},
		{"a.*.request*Blocking", "a.Pool.requestBuffer", false},
		{"*Blocking", "Blocking", true},
		{"ab*ba", "aba", false},
	} {
		if got := compile([]string{c.glob})[0].match(c.s); got != c.want {
			t.Errorf("%q ~ %q = %v", c.glob, c.s, got)
		}
	}
}

func TestSamplerWindow(t *testing.T) {
	d, _ := threaddump.ParseString(sparkStacks) // 5 task threads, 4 blocked
	s := NewSampler(nil, 10*time.Second)
	t0 := time.Unix(1000, 0)
	for i := range 5 {
		s.Observe("app/1", t0.Add(time.Duration(i)*5*time.Second), d) // t0 … t0+20s
	}
	w := s.Window("app/1", t0.Add(20*time.Second)) // keeps t0+15s and t0+20s
	if w.Dumps != 2 || w.Counts.Total() != 10 || w.Counts[OtherWait] != 2 {
		t.Fatalf("window = %+v", w)
	}
	if r, ok := w.BlockedRatio(); !ok || r != 1 {
		t.Errorf("blocked ratio %v %v", r, ok)
	}
	if tot := s.Totals("app/1"); tot.Total() != 25 || tot[Spill] != 5 {
		t.Errorf("totals = %v", tot)
	}
	if _, ok := s.Window("other", t0).BlockedRatio(); ok {
		t.Error("ratio for an unknown target")
	}
	s.Forget("app/1")
	if len(s.Targets()) != 0 {
		t.Error("Forget kept the target")
	}
}

func TestBackpressureLevel(t *testing.T) {
	for r, want := range map[float64]Level{0: LevelOK, 0.10: LevelOK, 0.11: LevelLow, 0.5: LevelLow, 0.51: LevelHigh, 1: LevelHigh} {
		if got := BackpressureLevel(r); got != want {
			t.Errorf("BackpressureLevel(%v) = %s, want %s", r, got, want)
		}
	}
}
