package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kingpin/v2"
)

// serve runs until cancelled and answers /metrics with its build info.
func TestServeRunsUntilCancelled(t *testing.T) {
	addr := freeAddr(t)
	app := kingpin.New("sparkglance", "")
	cmd := newServeCommand(app.Command("serve", ""))
	if _, err := app.Parse([]string{"serve", "--web.listen-address=" + addr, "--log.level=warn"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cmd.run(ctx) }()

	body := ""
	client := &http.Client{Timeout: 2 * time.Second}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		resp, err := client.Get("http://" + addr + "/metrics")
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body = string(b)
		break
	}
	want := `sparkglance_build_info{goarch=`
	if !strings.Contains(body, want) || !strings.Contains(body, `version="`+versionString()+`"`) {
		t.Errorf("/metrics lacks build info with version %q:\n%.500s", versionString(), body)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run after cancel: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop within 10 s of cancellation")
	}
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

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
