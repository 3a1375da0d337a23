package main

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// serve --demo prints where to look, and the simulated application shows
// in /metrics within seconds.
func TestServeDemo(t *testing.T) {
	stdout := captureStdout(t)
	addr, stop := runServe(t, "--demo", "--log.level=warn", "--no-collector.spark")
	body := testkit.PollGet("http://"+addr+"/metrics", 15*time.Second, 100*time.Millisecond, func(body string) bool {
		return strings.Contains(body, "spark_app_info{")
	})
	if !strings.Contains(body, `app_name="sparkglance demo: nightly sales rollup"`) {
		t.Errorf("the demo application is not in /metrics within 15 s:\n%.800s", body)
	}
	stop()
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
