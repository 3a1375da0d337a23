package exporter_test

import (
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/exporter/exportertest"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// startWith runs an exporter with only a fast collector (a scrape must end
// well within WriteTimeout) and cfg adjusted by adjust; it returns host:port.
func startWith(t *testing.T, adjust func(*exporter.Config), args ...string) string {
	t.Helper()
	cat := exportertest.Catalog(map[string]exporter.Collector{"answer": exporter.FromUpdater(answerCollector{})})
	return strings.TrimPrefix(exportertest.StartWith(t, cat, adjust, args...).URL, "http://")
}

// closedWithin reports whether the server closed conn within d (a read
// ends with EOF or a reset rather than the client's own deadline).
func closedWithin(conn net.Conn, d time.Duration) bool {
	_ = conn.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, conn)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// 500 idle connections and a POST whose body never finishes are closed by
// the server within its (here shortened) timeouts, and it still answers.
func TestServerClosesIdleAndSlowConnections(t *testing.T) {
	addr := startWith(t, func(c *exporter.Config) {
		c.HTTP = exporter.HTTPTimeouts{ReadHeader: time.Second, Read: 2 * time.Second, Write: 5 * time.Second, Idle: time.Second}
	})
	var idle []net.Conn
	for range 500 {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("connection %d: %v", len(idle)+1, err)
		}
		idle = append(idle, conn)
	}
	defer func() {
		for _, c := range idle {
			_ = c.Close()
		}
	}()
	slow, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	if _, err := io.WriteString(slow, "POST /metrics HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000\r\n\r\npartial"); err != nil {
		t.Fatal(err)
	}
	// Bounded: every connection must be closed well within 10 s.
	deadline := time.Now().Add(10 * time.Second)
	for i, c := range idle {
		if !closedWithin(c, time.Until(deadline)) {
			t.Fatalf("idle connection %d still open after 10 s (ReadHeaderTimeout 1 s)", i+1)
		}
	}
	if !closedWithin(slow, time.Until(deadline)) {
		t.Fatalf("slow-body POST still open after 10 s (ReadTimeout 2 s)")
	}
	if body := testkit.HTTPGetOK(t, "http://"+addr+"/metrics"); !strings.Contains(body, "sparkglance_test_answer") {
		t.Errorf("no answer after the connections were closed")
	}
}

// --web.max-connections bounds open connections: past it a client waits
// (in the backlog) until a held connection is closed.
func TestMaxConnections(t *testing.T) {
	addr := startWith(t, func(c *exporter.Config) {
		c.HTTP = exporter.HTTPTimeouts{ReadHeader: time.Minute, Idle: time.Minute}
	}, "--web.max-connections=2")
	var held []net.Conn
	for range 2 {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, conn)
	}
	extra, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	if _, err := io.WriteString(extra, "GET /-/healthy HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	_ = extra.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
	if n, _ := extra.Read(make([]byte, 1)); n != 0 {
		t.Fatalf("a third connection was served while two were held")
	}
	for _, c := range held {
		_ = c.Close()
	}
	_ = extra.SetReadDeadline(time.Now().Add(10 * time.Second))
	answer, err := io.ReadAll(extra)
	if err != nil || !strings.HasPrefix(string(answer), "HTTP/1.1 200") {
		t.Fatalf("the waiting connection got %q, %v once the others closed", answer, err)
	}
}

// Profiling on an address beyond loopback without a web config is refused
// naming --web.config.file, unless explicitly allowed; on loopback it runs.
func TestProfilingNeedsWebConfigBeyondLoopback(t *testing.T) {
	cat, _ := testCatalog(t)
	for _, tc := range []struct {
		args    []string
		refused bool
	}{
		{[]string{"--web.enable-profiling"}, true}, // the default :18090
		{[]string{"--web.enable-profiling", "--web.listen-address=0.0.0.0:0"}, true},
		{[]string{"--web.enable-profiling", "--web.listen-address=127.0.0.1:0", "--web.listen-address=[::]:0"}, true},
		{[]string{"--web.enable-profiling", "--web.listen-address=0.0.0.0:0", "--profiling.allow-unauthenticated"}, false},
		{[]string{"--web.enable-profiling", "--web.listen-address=localhost:0"}, false},
		{[]string{"--web.enable-profiling", "--web.listen-address=[::1]:0"}, false},
		{[]string{"--web.listen-address=0.0.0.0:0"}, false},
	} {
		cfg := exportertest.ParseConfig(t, cat, tc.args...)
		_, err := exporter.New(*cfg, cat, exportertest.Logger(t))
		if tc.refused != (err != nil) {
			t.Errorf("%q: err %v, want refused=%v", tc.args, err, tc.refused)
		}
		if err != nil && !strings.Contains(err.Error(), "--web.config.file") {
			t.Errorf("%q: %v does not name --web.config.file", tc.args, err)
		}
	}
	if cfg := exportertest.ParseConfig(t, cat); (*cfg.Web.WebListenAddresses)[0] != exporter.DefaultListenAddress || exporter.DefaultListenAddress != ":18090" {
		t.Errorf("default listen address changed: %v", *cfg.Web.WebListenAddresses)
	}
}
