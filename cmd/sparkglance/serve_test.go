package main

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
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
	return addr, runServeAt(t, addr, args...)
}

// runServeAt is runServe on the address addr (a serve started again where
// a stopped one listened, say).
func runServeAt(t *testing.T, addr string, args ...string) (stop func()) {
	t.Helper()
	app := kingpin.New("sparkglance", "")
	cmd := newServeCommand(app.Command("serve", ""))
	if _, err := app.Parse(append([]string{"serve", "--web.listen-address=" + addr}, args...)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cmd.run(ctx) }()
	return func() {
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

// The README's node agent, with any of the energy flags, starts and gets
// ready (the event-log collector, on by default, has no log to read and
// leaves --energy.tdp-watts to the node agent), and it listens on the
// port of the systemd unit's node agent (here on loopback instead).
func TestServeReadmeNodeAgentWithEnergyFlags(t *testing.T) {
	args, listen := readmeNodeAgent(t)
	unit, err := os.ReadFile(filepath.Join("..", "..", "deploy", "systemd", "sparkglance-node.service"))
	if err != nil {
		t.Fatal(err)
	}
	if _, port, _ := net.SplitHostPort(listen); port == "" || !strings.Contains(string(unit), "--web.listen-address=:"+port+" ") {
		t.Errorf("the README's node agent listens on %q, not on the port of deploy/systemd/sparkglance-node.service", listen)
	}
	for _, flags := range [][]string{
		{"--energy.tdp-watts=100"},
		{"--energy.tdp-watts=100", "--energy.cpu-model=Intel Xeon Platinum 8375C", "--energy.node-packages=2",
			"--energy.core-watts=5", "--energy.idle-ratio=0.2", "--energy.carbon-intensity=300"},
	} {
		all := append(append(slices.Clone(args), "--log.level=warn"), flags...)
		addr, stop := runServe(t, all...)
		if code := waitReady(t, "http://"+addr+"/-/ready", 15*time.Second); code != http.StatusOK {
			t.Errorf("serve %v: /-/ready answered %d within 15 s, want 200", all, code)
		}
		stop()
	}
}

// readmeNodeAgent returns the flags of the README's node agent command
// but its listen address, and that address.
func readmeNodeAgent(t *testing.T) (args []string, listen string) {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(readme)) {
		cmd, comment, ok := strings.Cut(line, "#")
		if !ok || !strings.Contains(comment, "the node agent") || !strings.HasPrefix(cmd, "sparkglance serve ") {
			continue
		}
		for _, f := range strings.Fields(strings.TrimPrefix(cmd, "sparkglance serve ")) {
			if v, ok := strings.CutPrefix(f, "--web.listen-address="); ok {
				listen = v
			} else {
				args = append(args, f)
			}
		}
		return args, listen
	}
	t.Fatal("no `sparkglance serve … # the node agent` line in README.md")
	return nil, ""
}

// waitReady polls url until it answers 200 or timeout passes, and returns
// the last status (0: no answer).
func waitReady(t *testing.T, url string, timeout time.Duration) int {
	t.Helper()
	client := &http.Client{Timeout: 2 * time.Second}
	code := 0
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline) && code != http.StatusOK; time.Sleep(50 * time.Millisecond) {
		if resp, err := client.Get(url); err == nil {
			code = resp.StatusCode
			resp.Body.Close()
		}
	}
	return code
}
