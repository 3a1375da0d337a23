package spark

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// readShared returns a file under ../shared.
func readShared(t *testing.T, elem ...string) []byte {
	t.Helper()
	data, err := os.ReadFile(testkit.Path(t, elem...))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// fakeSpark serves fixed bodies by path (query ignored) on 127.0.0.1;
// paths not listed get 404, as from Spark's Jetty.
func fakeSpark(t *testing.T, routes map[string][]byte) *httptest.Server {
	t.Helper()
	return testkit.ServeJSON(t, routes)
}

func newTestLogger(t *testing.T) (*slog.Logger, *testkit.SyncBuffer) {
	logs := &testkit.SyncBuffer{}
	return slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})), logs
}

func newTestCollector(t *testing.T, opts Options) (*Collector, *testkit.SyncBuffer) {
	t.Helper()
	logger, logs := newTestLogger(t)
	if opts.Claims == nil {
		opts.Claims = noClaims{}
	}
	c, err := New(opts, logger)
	if err != nil {
		t.Fatal(err)
	}
	return c, logs
}

// updateCollector adapts Update to a prometheus.Collector for a registry.
type updateCollector struct {
	c       *Collector
	timeout time.Duration
	err     error
}

func (u *updateCollector) Describe(chan<- *prometheus.Desc) {}
func (u *updateCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), u.timeout)
	defer cancel()
	u.err = u.c.Update(ctx, ch)
}

// scrape runs one Update under a deadline and returns the exposition text,
// failing on any registry inconsistency (duplicate series, HELP clash).
func scrape(t *testing.T, c *Collector, timeout time.Duration) string {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	u := &updateCollector{c: c, timeout: timeout}
	reg.MustRegister(u)
	families, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	if u.err != nil {
		t.Fatalf("Update: %v", u.err)
	}
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range families {
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	return buf.String()
}

// seriesLines returns the exposition lines (no comments) starting with prefix.
func seriesLines(text, prefix string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, prefix) {
			out = append(out, line)
		}
	}
	return out
}

// hasLine reports whether the exposition holds exactly this sample line.
func hasLine(text, line string) bool {
	for _, l := range strings.Split(text, "\n") {
		if l == line {
			return true
		}
	}
	return false
}
