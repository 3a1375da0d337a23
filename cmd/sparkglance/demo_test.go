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

// From the demo's first seconds, the counter families with a known label
// set (errors and skips by reason) and the settled counters the glance
// dashboard's top charts query are exported, so those panels are not empty
// for lack of an event.
func TestServeDemoExportsCountersFromTheStart(t *testing.T) {
	captureStdout(t)
	addr, stop := runServe(t, "--demo", "--log.level=warn", "--no-collector.spark")
	defer stop()
	want := []string{
		`sparkglance_eventlog_errors_total{reason="malformed-json"} 0`,
		`sparkglance_eventlog_skipped_total{reason="retention"} 0`,
		`sparkglance_eventlog_skipped_total{reason="max-apps"} 0`,
		`spark_app_settled_task_seconds_total{`,
		`spark_app_settled_core_seconds_total{`,
		`spark_executor_settled_spill_bytes_total{`,
	}
	body := testkit.PollGet("http://"+addr+"/metrics", 20*time.Second, 100*time.Millisecond, func(body string) bool {
		for _, w := range want {
			if !strings.Contains(body, w) {
				return false
			}
		}
		return true
	})
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("/metrics lacks %s within 20 s of the demo's start", w)
		}
	}
}
