package main

import (
	"context"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/version"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// serve runs until cancelled and answers /metrics with its build info.
func TestServeRunsUntilCancelled(t *testing.T) {
	addr, stop := runServe(t, "--log.level=warn")
	body := testkit.PollGet("http://"+addr+"/metrics", 10*time.Second, 50*time.Millisecond, func(string) bool { return true })
	want := `sparkglance_build_info{`
	if !strings.Contains(body, want) || !strings.Contains(body, `version="`+version.Version+`"`) {
		t.Errorf("/metrics lacks build info with version %q:\n%.500s", version.Version, body)
	}
	stop()
}

func TestServeExitCodes(t *testing.T) {
	if code := quiet(t, func() int { return realMain([]string{"serve", "--otlp.protocol=smoke-signals"}) }); code != 2 {
		t.Errorf("bad --otlp.protocol: exit %d, want 2", code)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	if code := quiet(t, func() int {
		return realMain([]string{"serve", "--web.listen-address=" + busy.Addr().String(), "--log.level=error"})
	}); code != 1 {
		t.Errorf("port in use: exit %d, want 1", code)
	}
}

// quiet runs f with stderr sent to a file in the test's temp dir.
func quiet(t *testing.T, f func() int) int {
	t.Helper()
	saved := os.Stderr
	tmp, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	os.Stderr = tmp
	defer func() { os.Stderr = saved; tmp.Close() }()
	return f()
}

// runServe runs `serve args… --web.listen-address=<a free loopback port>`
// and returns that address and a stop that cancels the command and fails
// the test unless it returns cleanly within 10 s.
func runServe(t *testing.T, args ...string) (addr string, stop func()) {
	t.Helper()
	addr = testkit.FreeLoopbackAddr(t)
	app := kingpin.New("sparkglance", "")
	cmd := newServeCommand(app.Command("serve", ""))
	if _, err := app.Parse(append([]string{"serve", "--web.listen-address=" + addr}, args...)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cmd.run(ctx) }()
	return addr, func() {
		t.Helper()
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("run after cancel: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("serve %v did not stop within 10 s of cancellation", args)
		}
	}
}

// The command wires every collector: --profiling.enabled without the stack
// sampler that serves the API stops start-up instead of answering 404.
func TestServeProfilingNeedsStacks(t *testing.T) {
	if code := quiet(t, func() int {
		return realMain([]string{"serve", "--profiling.enabled", "--web.listen-address=127.0.0.1:0", "--log.level=error"})
	}); code == 0 {
		t.Error("--profiling.enabled without --collector.stacks: exit 0, want an error")
	}
}

// One catalog holds every collector, and the spark collector is handed the
// event-log collector's claims, the very value the command built.
func TestWiringRegistersEveryCollector(t *testing.T) {
	w := newWiring()
	if got := strings.Join(w.catalog.Names(), ","); got != "eventlog,process,spark,stacks" {
		t.Errorf("collectors %s, want eventlog,process,spark,stacks", got)
	}
	if w.claims == nil || w.discovery == nil || w.eventlog == nil {
		t.Error("a shared service is missing")
	}
}
