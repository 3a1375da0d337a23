package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alecthomas/kingpin/v2"
)

// serve --demo prints where to look, and the simulated application shows
// in /metrics within seconds.
func TestServeDemo(t *testing.T) {
	addr := freeAddr(t)
	app := kingpin.New("sparkglance", "")
	cmd := newServeCommand(app.Command("serve", ""))
	if _, err := app.Parse([]string{"serve", "--demo", "--web.listen-address=" + addr, "--log.level=warn", "--no-collector.spark"}); err != nil {
		t.Fatal(err)
	}
	stdout := captureStdout(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cmd.run(ctx) }()

	body := ""
	client := &http.Client{Timeout: 2 * time.Second}
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline) && !strings.Contains(body, "spark_app_info{"); time.Sleep(100 * time.Millisecond) {
		resp, err := client.Get("http://" + addr + "/metrics")
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body = string(b)
	}
	if !strings.Contains(body, `app_name="sparkglance demo: nightly sales rollup"`) {
		t.Errorf("the demo application is not in /metrics within 15 s:\n%.800s", body)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run after cancel: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve --demo did not stop within 10 s of cancellation")
	}
	if out := stdout(); !strings.Contains(out, "http://"+addr+"/metrics") {
		t.Errorf("banner does not say where to look:\n%s", out)
	}
}

// captureStdout redirects os.Stdout until the returned function is called.
func captureStdout(t *testing.T) func() string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	orig := os.Stdout
	os.Stdout = w
	var buf bytes.Buffer
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = io.Copy(&buf, r) })
	var once sync.Once
	restore := func() {
		once.Do(func() {
			os.Stdout = orig
			w.Close()
			wg.Wait()
		})
	}
	t.Cleanup(restore)
	return func() string { restore(); return buf.String() }
}
