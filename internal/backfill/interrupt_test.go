package backfill_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/sparkglance/sparkglance/internal/backfill"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// An interruption stops the reading and writes nothing: the error wraps
// the context's and names the log it stopped at.
func TestBackfillInterrupted(t *testing.T) {
	path := testkit.Events(t, "local-1642039451826")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out bytes.Buffer
	sum, err := backfill.WriteContext(ctx, &out, []string{path}, options())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want one wrapping context.Canceled", err)
	}
	if out.Len() != 0 || sum.Apps != 0 {
		t.Errorf("%d bytes and %d applications written after the interruption", out.Len(), sum.Apps)
	}
}
