package sparklog

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/sparklog/objstore"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
	"github.com/sparkglance/sparkglance/internal/testkit/objstoretest"
)

// stalledS3Log puts a log of about 1 MB on a loopback S3 whose object
// bodies stop after 64 KiB, and returns it discovered.
func stalledS3Log(t *testing.T) (Log, *objstoretest.S3) {
	t.Helper()
	s3 := objstoretest.StartS3(t)
	var b strings.Builder
	b.WriteString(`{"Event":"SparkListenerLogStart","Spark Version":"3.5.0"}` + "\n")
	b.WriteString(`{"Event":"SparkListenerApplicationStart","App Name":"stall","App ID":"app-stall","Timestamp":1,"User":"u"}` + "\n")
	for b.Len() < 1<<20 {
		b.WriteString(`{"Event":"SparkListenerJobEnd","Job ID":1,"Completion Time":2,"Job Result":{"Result":"JobSucceeded"}}` + "\n")
	}
	s3.Put(t, "logs/app-stall", []byte(b.String()))
	logs, err := DiscoverGiven(s3.URL("logs/app-stall"))
	if err != nil || len(logs) != 1 {
		t.Fatalf("discover: %v (%d logs)", err, len(logs))
	}
	s3.StallBodies(64 << 10)
	return logs[0], s3
}

// A read blocked inside an object's body, the store having stopped
// sending, ends as soon as the reading's context is cancelled (it waited
// for the next byte: two minutes, or for ever on a black-holed connection).
func TestObjectReadStalledMidBodyStopsOnCancel(t *testing.T) {
	log, s3 := stalledS3Log(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reading := make(chan struct{})
	var once bool
	h := HandlerFuncs{OnEvent: func(Position, sparkevent.Event) error {
		if !once {
			once = true
			close(reading) // the body is flowing; it stalls at 64 KiB
		}
		return nil
	}}
	done := make(chan error, 1)
	go func() {
		_, err := ReadContext(ctx, log, h, Options{})
		done <- err
	}()
	select {
	case <-reading:
	case err := <-done:
		t.Fatalf("read ended before any event: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("no event within 30 s")
	}
	// The barrier: the store has stopped sending, the read waits.
	for s3.Stalls() == 0 {
		select {
		case err := <-done:
			t.Fatalf("read ended before the body stalled: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("read of a stalled body after cancel: %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the read still waits for the stalled body 10 s after its context was cancelled")
	}
}

// A body that sends nothing for objstore.IdleTimeout is cut: the file gets an
// I/O problem saying so, and reading goes on with the next log.
func TestObjectReadStalledMidBodyIsCutWhenIdle(t *testing.T) {
	old := objstore.IdleTimeout
	objstore.IdleTimeout = 300 * time.Millisecond
	t.Cleanup(func() { objstore.IdleTimeout = old })
	log, _ := stalledS3Log(t)
	done := make(chan *recorder, 1)
	go func() {
		rec := &recorder{}
		if _, err := Read(log, rec, Options{}); err != nil {
			t.Error(err)
		}
		done <- rec
	}()
	select {
	case rec := <-done:
		ps := rec.problemsOf(ProblemIO)
		if len(ps) != 1 || !strings.Contains(ps[0].Reason, "stopped sending") || len(rec.events) == 0 {
			t.Errorf("%d events, I/O problems %v: want the events before the stall and one problem saying the store stopped sending", len(rec.events), ps)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the read of a stalled body is not cut after an idle timeout of 300 ms (waited 30 s)")
	}
}
