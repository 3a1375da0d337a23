package spark

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// Every fault fails its own target only: spark_target_up 0, its reason
// counted once, one log line; the healthy target next to it keeps all its
// series and nothing panics.
func TestFaultsFailOnlyTheirTarget(t *testing.T) {
	const scrapeTimeout = 1500 * time.Millisecond
	truncated := readShared(t, "spark-api", "otel-contrib", "apps_stats_response.json")
	truncated = truncated[:len(truncated)/2]
	cases := []struct {
		name    string
		reason  string
		handler http.HandlerFunc // nil: a port where nothing listens
		timeout time.Duration    // --spark.timeout, 0 = default
	}{
		{"timeout", reasonTimeout, func(w http.ResponseWriter, r *http.Request) {
			select { // hangs until the client gives up, at most 10 s
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}, 0},
		{"refused", reasonRefused, nil, 0},
		{"redirect to login", reasonRedirect, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/login?next=%2Fapi%2Fv1", http.StatusFound)
		}, 0},
		{"html", reasonHTML, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html;charset=utf-8")
			_, _ = w.Write([]byte("<!DOCTYPE html><html><body>Sign in</body></html>"))
		}, 0},
		{"html without content type", reasonHTML, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte("\n  <html><body>proxy error</body></html>"))
		}, 0},
		{"truncated json", reasonInvalidBody, func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write(truncated)
		}, 0},
		{"50 MB body", reasonTooLarge, func(w http.ResponseWriter, r *http.Request) {
			chunk := []byte(strings.Repeat(" ", 1<<20)) // JSON whitespace, no Content-Length
			_, _ = w.Write([]byte("["))
			for range 50 {
				if _, err := w.Write(chunk); err != nil {
					return // the client stopped at its limit
				}
			}
		}, 0},
		{"404 on old Spark", reasonNotFound, func(w http.ResponseWriter, r *http.Request) {
			http.NotFound(w, r) // Spark before 1.4 has no /api/v1
		}, 0},
		{"500", reasonHTTPStatus, func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "boom", http.StatusInternalServerError)
		}, 0},
	}
	healthy := fakeSpark(t, otelRoutes(t, nil))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bad := faultyTarget(t, tc.handler)
			c, logs := newTestCollector(t, Options{URLs: []string{healthy.URL, bad}, Timeout: tc.timeout})
			// Whether the deadline was honoured shows in the error reason
			// (timeout) and the healthy target still being read; timing the
			// scrape would measure the machine's load.
			text := scrape(t, c, scrapeTimeout)
			badName := strings.TrimSuffix(bad, "/")
			for _, want := range []string{
				`spark_target_up{target="` + badName + `"} 0`,
				`spark_target_up{target="` + healthy.URL + `"} 1`,
				`spark_target_scrape_errors_total{reason="` + tc.reason + `",target="` + badName + `"} 1`,
				`spark_target_scrape_errors_total{reason="` + tc.reason + `",target="` + healthy.URL + `"} 0`,
				`spark_executor_cores{app_id="local-1682603253681",app_name="streaming-example",executor_id="driver"} 12`,
			} {
				if !hasLine(text, want) {
					t.Errorf("missing %s", want)
				}
			}
			if n := len(seriesLines(text, "spark_target_scrape_errors_total{")); n != 2*len(sm.TargetErrorLabel.Values) {
				t.Errorf("%d error counters, want %d (every reason for both targets)", n, 2*len(sm.TargetErrorLabel.Values))
			}
			lines := logs.Lines("Spark target read failed")
			if len(lines) != 1 || !strings.Contains(lines[0], "reason="+tc.reason) {
				t.Errorf("want one log line with reason=%s, got %q", tc.reason, lines)
			}
			if strings.Contains(strings.Join(lines, ""), "next=") {
				t.Errorf("log line leaks a query string: %q", lines)
			}
		})
	}
}

// faultyTarget returns the URL of a server running h, or of a loopback
// port where nothing listens.
func faultyTarget(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	if h == nil {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		_ = l.Close()
		return "http://" + addr
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// A metrics endpoint missing from a UI target (History Server) is not a
// fault, but a broken one is.
func TestMissingMetricsEndpointIsNotAFault(t *testing.T) {
	srv := fakeSpark(t, map[string][]byte{
		"/api/v1/applications": readShared(t, "oracle", "application_list_json_expectation.json"),
	})
	c, _ := newTestCollector(t, Options{URLs: []string{srv.URL}})
	if text := scrape(t, c, 2*time.Second); !hasLine(text, `spark_target_up{target="`+srv.URL+`"} 1`) {
		t.Errorf("History Server without /metrics/json should be up:\n%s", strings.Join(seriesLines(text, "spark_target"), "\n"))
	}
	routes := otelRoutes(t, []byte(`{"version":"4.0.0","gauges":{"x.driver.a.b":{"value":1}`))
	broken := fakeSpark(t, routes)
	c, logs := newTestCollector(t, Options{URLs: []string{broken.URL}})
	text := scrape(t, c, 2*time.Second)
	if !hasLine(text, `spark_target_up{target="`+broken.URL+`"} 0`) {
		t.Errorf("truncated /metrics/json should fail the target")
	}
	if l := logs.Lines("reason=invalid_body"); len(l) != 1 || !strings.Contains(l[0], "truncated JSON") {
		t.Errorf("want one log line naming truncated JSON, got %q", l)
	}
}
