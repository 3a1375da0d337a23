// Package exportertest runs the real exporter in-process on a loopback port
// for other packages' tests, as the serve command would build it, and the
// OpenTelemetry Collector's own OTLP receiver in process (otlpreceiver.go)
// to receive its pushes.
package exportertest

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kingpin/v2"
	dto "github.com/prometheus/client_model/go"

	"github.com/sparkglance/sparkglance/exporter"
)

// Version is the build version every test exporter reports.
const Version = "9.9.9-test"

// stopTimeout bounds how long a test waits for the exporter to stop.
const stopTimeout = 15 * time.Second

// Server is an exporter running until its test ends.
type Server struct {
	URL      string // base URL, http://127.0.0.1:port
	Exporter *exporter.Exporter
}

// Fixed is a factory always handing out c.
func Fixed(c exporter.Collector) exporter.Factory {
	return func(*slog.Logger) (exporter.Collector, error) { return c, nil }
}

// Catalog registers each collector under its name, enabled.
func Catalog(collectors map[string]exporter.Collector) *exporter.Catalog {
	cat := exporter.NewCatalog()
	for name, c := range collectors {
		cat.Register(name, true, Fixed(c))
	}
	return cat
}

// ParseConfig parses args as the serve command would, with Version set.
func ParseConfig(t testing.TB, cat *exporter.Catalog, args ...string) *exporter.Config {
	t.Helper()
	app := kingpin.New("test", "")
	cfg := exporter.AddFlags(app, cat)
	if _, err := app.Parse(args); err != nil {
		t.Fatalf("parse %q: %v", args, err)
	}
	cfg.Version = Version
	return cfg
}

// Start runs an exporter of cat on 127.0.0.1 (an ephemeral port) with the
// serve flags args until the test ends, and fails the test if it does not
// stop cleanly. Logs go to t.Log under -v, nowhere otherwise.
func Start(t testing.TB, cat *exporter.Catalog, args ...string) *Server {
	t.Helper()
	return StartWith(t, cat, nil, args...)
}

// StartWith is Start with the parsed configuration changed by adjust (if
// not nil) before the exporter is built: for settings no flag reaches, such
// as test-short HTTP timeouts.
func StartWith(t testing.TB, cat *exporter.Catalog, adjust func(*exporter.Config), args ...string) *Server {
	t.Helper()
	return start(t, cat, adjust, Logger(t), args...)
}

// StartLogging is Start with the exporter's log written to logs as well.
func StartLogging(t testing.TB, cat *exporter.Catalog, logs io.Writer, args ...string) *Server {
	t.Helper()
	return start(t, cat, nil, slog.New(slog.NewTextHandler(io.MultiWriter(logs, logWriterOrDiscard(t)), nil)), args...)
}

func start(t testing.TB, cat *exporter.Catalog, adjust func(*exporter.Config), logger *slog.Logger, args ...string) *Server {
	t.Helper()
	cfg := ParseConfig(t, cat, append([]string{"--web.listen-address=127.0.0.1:0"}, args...)...)
	if adjust != nil {
		adjust(cfg)
	}
	e, err := exporter.New(*cfg, cat, logger)
	if err != nil {
		t.Fatal(err)
	}
	addrs, err := e.Listen()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("exporter Run: %v", err)
			}
		case <-time.After(stopTimeout):
			t.Errorf("exporter did not stop within %v", stopTimeout)
		}
	})
	return &Server{URL: "http://" + addrs[0].String(), Exporter: e}
}

// Gather collects every enabled collector once, as a scrape would, bounded
// by 10 s.
func (s *Server) Gather() ([]*dto.MetricFamily, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.Exporter.Gatherer(ctx).Gather()
}

func logWriterOrDiscard(t testing.TB) io.Writer {
	if testing.Verbose() {
		return logWriter{t}
	}
	return io.Discard
}

// Logger discards unless the tests run with -v, then writes to t.Log.
func Logger(t testing.TB) *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(logWriter{t}, nil))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

type logWriter struct{ t testing.TB }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
