package stacks_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/collectors/stacks"
	"github.com/sparkglance/sparkglance/internal/jvm/attach"
	"github.com/sparkglance/sparkglance/internal/jvm/jvmtest"
	"github.com/sparkglance/sparkglance/internal/jvm/threaddump"
)

// waitSettled returns once one thread dump of jvm shows every task thread of
// a kind in kindState in that kind's state: the JVM's threads reach their
// blocking calls in their own time after it printed "ready". It polls the
// external JVM (a dump every 20 ms at most) for up to 30 s.
func waitSettled(t testing.TB, jvm *jvmtest.JVM) {
	t.Helper()
	var c attach.Client
	s := stacks.NewSampler(nil, time.Minute)
	var pending []string
	for deadline, i := time.Now().Add(30*time.Second), 0; time.Now().Before(deadline); i++ {
		next := time.After(20 * time.Millisecond)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		text, err := c.ThreadDump(ctx, jvm.PID)
		cancel()
		if err != nil {
			t.Fatalf("dump of pid %d: %v", jvm.PID, err)
		}
		d, err := threaddump.Parse(text)
		if err != nil {
			t.Fatalf("dump of pid %d: %v", jvm.PID, err)
		}
		got := map[string]stacks.State{}
		for _, smp := range s.Observe("settle", time.Unix(int64(i), 0), d) {
			got[smp.Thread] = smp.State
		}
		pending = pending[:0]
		for name, kind := range jvm.Kinds {
			if want, isTask := kindState[kind]; isTask {
				if st, seen := got[name]; !seen || st != want {
					pending = append(pending, fmt.Sprintf("%q (%s) is %v", name, kind, st))
				}
			}
		}
		if len(pending) == 0 {
			return
		}
		<-next
	}
	slices.Sort(pending)
	t.Fatalf("pid %d: task threads not in their states within 30 s: %v", jvm.PID, pending)
}
