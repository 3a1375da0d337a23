package sparklog

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent/eventtest"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// TestReadContextStopsMidLog cancels reading of the 142 MB log after a hundred
// thousand events: ReadContext returns context.Canceled well before the
// end, having delivered at most one more block's events.
func TestReadContextStopsMidLog(t *testing.T) {
	l := discoverOne(t, testkit.Events(t, eventtest.BigLog))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const cancelAt = 100
	var events, afterCancel int64
	h := HandlerFuncs{OnEvent: func(Position, sparkevent.Event) error {
		events++
		if events == cancelAt {
			cancel()
		} else if events > cancelAt {
			afterCancel++
		}
		return nil
	}}
	type result struct {
		st  Stats
		err error
	}
	done := make(chan result, 1)
	go func() {
		st, err := ReadContext(ctx, l, h, Options{})
		done <- result{st, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(2 * time.Minute): // generous: a bound on a hang, not a speed check
		t.Fatal("ReadContext did not return after cancellation")
	}
	if !errors.Is(r.err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", r.err)
	}
	// One decompressed block holds at most a few hundred events.
	if afterCancel > 2000 || r.st.BytesOut >= eventtest.BigLogBytes/2 || r.st.Finished {
		t.Errorf("%d events after cancelling, %d of %d bytes read, finished %v", afterCancel, r.st.BytesOut, eventtest.BigLogBytes, r.st.Finished)
	}
	t.Logf("stopped after %d events (%d after cancel), %d bytes", events, afterCancel, r.st.BytesOut)

	// Cancelled before the start: nothing is read.
	st, err := ReadContext(ctx, l, h, Options{})
	if !errors.Is(err, context.Canceled) || st.Lines != 0 {
		t.Errorf("already cancelled: %v, %d lines", err, st.Lines)
	}
}
