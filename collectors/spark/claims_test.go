package spark

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

type claimSet map[string]bool

func (c claimSet) Claimed(id string) bool { return c[id] }

// A claimed application loses exactly the shared series.
func TestClaimedAppOmitsSharedSeries(t *testing.T) {
	srv := fakeSpark(t, otelRoutes(t, nil))
	c, _ := newTestCollector(t, Options{URLs: []string{srv.URL}, Claims: claimSet{otelApp: true}})
	text := scrape(t, c, 2*time.Second)
	for _, name := range SharedSeries {
		if n := len(seriesLines(text, name+"{")); n != 0 {
			t.Errorf("%s: %d series for a claimed application, want 0", name, n)
		}
	}
	for _, name := range []string{"spark_executor_max_tasks{", "spark_stage_tasks{", "spark_metrics_executor_cpu_time_seconds_total{"} {
		if len(seriesLines(text, name)) != 1 {
			t.Errorf("%s missing: only shared series may be dropped", name)
		}
	}
	// Two targets showing the same application: one series each.
	twin := fakeSpark(t, otelRoutes(t, nil))
	c, _ = newTestCollector(t, Options{URLs: []string{srv.URL, twin.URL}})
	if n := len(seriesLines(scrape(t, c, 2*time.Second), "spark_executor_cores{")); n != 1 {
		t.Errorf("%d spark_executor_cores series for one executor seen twice, want 1", n)
	}
}

// In background mode scrapes serve the last good read while up shows the
// last attempt.
func TestBackgroundServesLastGoodRead(t *testing.T) {
	routes := otelRoutes(t, nil)
	var broken atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if broken.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		testkit.JSONRoutes(routes).ServeHTTP(w, r)
	}))
	defer srv.Close()
	c, _ := newTestCollector(t, Options{URLs: []string{srv.URL}, BackgroundInterval: 200 * time.Millisecond})
	if c.Ready() == nil {
		t.Fatal("ready before the first read")
	}
	rounds := make(chan struct{}, 1000)
	c.afterRound = func() {
		select {
		case rounds <- struct{}{}:
		default:
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	defer func() { cancel(); <-done }()

	waitRound(t, rounds)
	if err := c.Ready(); err != nil {
		t.Fatalf("not ready after the first round: %v", err)
	}
	// A round is bounded by the interval: on a loaded machine one may time
	// out, so wait for a round that read the target.
	for n := 1; !hasLine(scrape(t, c, time.Second), `spark_target_up{target="`+srv.URL+`"} 1`); n++ {
		if n == 100 {
			t.Fatal("no good read of the target in 100 rounds")
		}
		waitRound(t, rounds)
	}
	broken.Store(true)
	for len(rounds) > 0 { // rounds stored before the target broke
		<-rounds
	}
	// The first round stored from now may have begun before the target
	// broke; the one after it began after.
	waitRound(t, rounds)
	waitRound(t, rounds)
	text := scrape(t, c, time.Second)
	if !hasLine(text, `spark_target_up{target="`+srv.URL+`"} 0`) {
		t.Errorf("a round after the target broke, up is not 0:\n%s", text)
	}
	if len(seriesLines(text, "spark_executor_cores{")) != 1 {
		t.Error("the last good read should still be served")
	}
	if !strings.Contains(text, `reason="http_status",target="`+srv.URL+`"}`) {
		t.Error("the failure should be counted")
	}
}

// waitRound waits (at most 20 s) until the collector stored one more
// background round.
func waitRound(t *testing.T, rounds <-chan struct{}) {
	t.Helper()
	select {
	case <-rounds:
	case <-time.After(20 * time.Second):
		t.Fatal("no background round stored within 20 s")
	}
}
