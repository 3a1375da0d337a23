package stacks

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/jvm/threaddump"
)

// The stack formats of Spark 2.4 (one string), 3.x (elems with a holding
// suffix) and 4.x (elems with lock lines), as documented in the reference.
func TestRESTStackFormats(t *testing.T) {
	for _, tc := range []struct {
		name, json string
	}{
		{"spark2.4", `[{"threadId":61,"threadName":"Executor task launch worker for task 17","threadState":"WAITING",
			"stackTrace":"sun.misc.Unsafe.park(Native Method)\njava.util.concurrent.LinkedBlockingQueue.take(LinkedBlockingQueue.java:442)\norg.apache.spark.storage.ShuffleBlockFetcherIterator.next(ShuffleBlockFetcherIterator.scala:580)",
			"blockedByLock":"Lock(java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject@1385411893})","holdingLocks":[]}]`},
		{"spark3", `[{"threadId":61,"threadName":"Executor task launch worker for task 17","threadState":"WAITING",
			"stackTrace":{"elems":["java.base@17.0.15/jdk.internal.misc.Unsafe.park(Native Method)","java.base@17.0.15/java.util.concurrent.LinkedBlockingQueue.take(LinkedBlockingQueue.java:435)","app//org.apache.spark.storage.ShuffleBlockFetcherIterator.next(ShuffleBlockFetcherIterator.scala:580) => holding Monitor(java.lang.Object@1a2b})"]},
			"blockedByLock":"Lock(java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject@52f9})"}]`},
		{"spark4", `[{"threadId":61,"threadName":"Executor task launch worker for task 17","threadState":"WAITING",
			"stackTrace":{"elems":["jdk.internal.misc.Unsafe.park(Native Method)\n\t-  waiting on java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject@52f9\n","java.util.concurrent.LinkedBlockingQueue.take(LinkedBlockingQueue.java:435)\n","org.apache.spark.storage.ShuffleBlockFetcherIterator.next(ShuffleBlockFetcherIterator.scala:580)\n\t-  locked java.lang.Object@1a2b\n"]},
			"lockName":"java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject@52f9"}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var threads []restThread
			if err := json.Unmarshal([]byte(tc.json), &threads); err != nil {
				t.Fatal(err)
			}
			d, err := restDump(threads)
			if err != nil {
				t.Fatal(err)
			}
			th := d.Threads[0]
			if len(th.Frames) != 3 || th.Frames[1].Func() != "java.util.concurrent.LinkedBlockingQueue.take" ||
				th.Frames[2].Func() != "org.apache.spark.storage.ShuffleBlockFetcherIterator.next" || th.Frames[2].Line != 580 || !th.Frames[0].Native {
				t.Fatalf("frames %+v", th.Frames)
			}
			if l, ok := th.WaitingFor(); !ok || l.Class != "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject" {
				t.Errorf("waiting for %+v %v", l, ok)
			}
			got := DefaultClassifier().ClassifyDump(d)
			if len(got) != 1 || got[0].State != ShuffleFetch || got[0].TaskID != 17 {
				t.Errorf("classified %+v, want shuffle_fetch of TID 17", got)
			}
		})
	}
}

func TestParseStackElementEdgeCases(t *testing.T) {
	for in, want := range map[string]threaddump.Frame{
		"sgtest.Workload$$Lambda$14/0x0000000800c03000.run(Unknown Source)": {Class: "sgtest.Workload$$Lambda$14/0x0000000800c03000", Method: "run"},
		"java.base@17.0.15/java.lang.Thread.run(Thread.java:840)":           {Module: "java.base@17.0.15", Class: "java.lang.Thread", Method: "run", File: "Thread.java", Line: 840},
		"app//Foo.bar(Foo.java)": {Class: "Foo", Method: "bar", File: "Foo.java"},
	} {
		got, ok := parseStackElement(in)
		if !ok || got.Class != want.Class || got.Method != want.Method || got.Module != want.Module || got.File != want.File || got.Line != want.Line {
			t.Errorf("%q → %+v %v, want %+v", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "\t-  locked java.lang.Object@1", "noparen", "x(y)"} {
		if f, ok := parseStackElement(bad); ok {
			t.Errorf("%q parsed as %+v", bad, f)
		}
	}
	var threads []restThread
	_ = json.Unmarshal([]byte(`[{"threadName":"a","threadState":"RUNNABLE","stackTrace":42}]`), &threads)
	if _, err := restDump(threads); err == nil {
		t.Error("a numeric stackTrace was accepted")
	}
}

// A --stacks.spark-ui URL's password never reaches an error (errors are
// logged and shown by the profiles API).
func TestRESTErrorsHideCredentials(t *testing.T) {
	s := &RESTSource{}
	err := s.getJSON(context.Background(), "http://alice:s3cret@127.0.0.1:1", "/api/v1/applications", &struct{}{})
	if err == nil {
		t.Fatal("no error from a closed port")
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Errorf("error leaks the password: %v", err)
	}
	if !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("error does not name the target: %v", err)
	}
}
