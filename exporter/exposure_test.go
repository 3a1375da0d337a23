package exporter_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/exporter/exportertest"
)

// routeCollector is a collector with routes of its own.
type routeCollector struct {
	answerCollector
	routes []exporter.Route
}

func (c routeCollector) Routes() []exporter.Route { return c.routes }

// webConfigs writes one web config per kind into a temporary directory.
func webConfigs(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	certPath, keyPath, _ := selfSignedCert(t, dir)
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	tls := fmt.Sprintf("tls_server_config:\n  cert_file: %s\n  key_file: %s\n", certPath, keyPath)
	files := map[string]string{
		"empty":                     "",
		"comment only":              "# nothing here\n",
		"tls only":                  tls,
		"tls, client cert if given": tls + "  client_auth_type: VerifyClientCertIfGiven\n  client_ca_file: " + certPath + "\n",
		"tls, any client cert":      tls + "  client_auth_type: RequireAnyClientCert\n",
		"tls, verified client cert": tls + "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: " + certPath + "\n",
		"basic auth":                fmt.Sprintf("basic_auth_users:\n  prometheus: %s\n", hash),
		"tls and basic auth":        tls + fmt.Sprintf("basic_auth_users:\n  prometheus: %s\n", hash),
	}
	out := map[string]string{}
	for name, text := range files {
		path := filepath.Join(dir, strings.NewReplacer(" ", "-", ",", "").Replace(name)+".yml")
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		out[name] = path
	}
	return out
}

// Privileged endpoints (Go's pprof, a collector's route acting on the node
// such as the JVM profiles API) beyond loopback need a web config that
// authenticates every request: basic auth or verified client certificates.
// An empty file or TLS alone is refused, naming the web config and the
// escape hatch; loopback and --profiling.allow-unauthenticated run.
func TestPrivilegedEndpointsNeedAuthenticatingWebConfig(t *testing.T) {
	privileged := routeCollector{routes: []exporter.Route{
		{Pattern: "/api/v1/act", Handler: http.NotFoundHandler(), Privileged: "--act.enabled"},
		{Pattern: "/api/v1/act/", Handler: http.NotFoundHandler(), Privileged: "--act.enabled"},
	}}
	plain := routeCollector{routes: []exporter.Route{{Pattern: "/api/v1/read", Handler: http.NotFoundHandler()}}}
	configs := webConfigs(t)
	authenticates := map[string]bool{"tls, verified client cert": true, "basic auth": true, "tls and basic auth": true}
	for _, kind := range []struct {
		name string
		c    routeCollector
		args []string
		says string
	}{
		{"pprof", plain, []string{"--web.enable-profiling"}, "--web.enable-profiling"},
		{"privileged route", privileged, nil, "--act.enabled (/api/v1/act)"},
	} {
		cat := exportertest.Catalog(map[string]exporter.Collector{"c": exporter.FromUpdater(kind.c)})
		check := func(args []string, wantRefused bool) {
			t.Helper()
			args = append(append([]string{}, kind.args...), args...)
			cfg := exportertest.ParseConfig(t, cat, args...)
			_, err := exporter.New(*cfg, cat, exportertest.Logger(t))
			if wantRefused != (err != nil) {
				t.Errorf("%s %q: err %v, want refused=%v", kind.name, args, err, wantRefused)
				return
			}
			if err != nil {
				for _, want := range []string{kind.says, "--web.config.file", "--profiling.allow-unauthenticated", "basic_auth_users", "RequireAndVerifyClientCert"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("%s %q: %q does not say %q", kind.name, args, err, want)
					}
				}
			}
		}
		check([]string{"--web.listen-address=0.0.0.0:0"}, true)
		check([]string{"--web.listen-address=127.0.0.1:0", "--web.listen-address=[::]:0"}, true)
		check([]string{"--web.listen-address=0.0.0.0:0", "--profiling.allow-unauthenticated"}, false)
		check([]string{"--web.listen-address=127.0.0.1:0"}, false)
		check([]string{"--web.listen-address=localhost:0"}, false)
		for name, path := range configs {
			check([]string{"--web.listen-address=0.0.0.0:0", "--web.config.file=" + path}, !authenticates[name])
		}
		check([]string{"--web.listen-address=0.0.0.0:0", "--web.config.file=" + filepath.Join(t.TempDir(), "absent.yml")}, true)
	}
	// A route that changes nothing on the node needs no web config.
	cat := exportertest.Catalog(map[string]exporter.Collector{"c": exporter.FromUpdater(plain)})
	if _, err := exporter.New(*exportertest.ParseConfig(t, cat, "--web.listen-address=0.0.0.0:0"), cat, exportertest.Logger(t)); err != nil {
		t.Errorf("an unprivileged route beyond loopback: %v", err)
	}
}

// request sends one request with the given headers (Host is set as such)
// and returns the status, bounded by 10 s.
func request(t *testing.T, method, url string, header map[string]string, body string) int {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode
}

// A browser's cross-site POST (Sec-Fetch-Site, or an Origin other than
// the Host) never reaches a handler; same-origin requests and clients that
// send neither header (curl, scripts) do, and cross-site GETs are reads.
func TestCrossOriginStateChangesRefused(t *testing.T) {
	var reached atomic.Int64
	act := routeCollector{routes: []exporter.Route{{Pattern: "/api/v1/act", Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		reached.Add(1)
		w.WriteHeader(http.StatusAccepted)
	})}}}
	base := exportertest.Start(t, exportertest.Catalog(map[string]exporter.Collector{"c": exporter.FromUpdater(act)})).URL
	host := strings.TrimPrefix(base, "http://")
	for _, tc := range []struct {
		name   string
		method string
		header map[string]string
		want   int
	}{
		{"cross-site fetch", http.MethodPost, map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}, http.StatusForbidden},
		{"same-site other origin", http.MethodPost, map[string]string{"Sec-Fetch-Site": "same-site"}, http.StatusForbidden},
		{"other origin, old browser", http.MethodPost, map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
		{"other origin, PUT", http.MethodPut, map[string]string{"Origin": "http://evil.example:80"}, http.StatusForbidden},
		{"same origin", http.MethodPost, map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": base}, http.StatusAccepted},
		{"same origin, old browser", http.MethodPost, map[string]string{"Origin": "http://" + host}, http.StatusAccepted},
		{"typed URL", http.MethodPost, map[string]string{"Sec-Fetch-Site": "none"}, http.StatusAccepted},
		{"curl", http.MethodPost, nil, http.StatusAccepted},
		{"cross-site GET", http.MethodGet, map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}, http.StatusAccepted},
	} {
		before := reached.Load()
		got := request(t, tc.method, base+"/api/v1/act", tc.header, `{}`)
		if got != tc.want || (got == http.StatusForbidden) != (reached.Load() == before) {
			t.Errorf("%s: %d (handler reached %d times), want %d", tc.name, got, reached.Load()-before, tc.want)
		}
	}
}

// On a loopback listener, a Host that is not a loopback name (a page whose
// domain was re-pointed at 127.0.0.1: DNS rebinding) gets 421 on every
// path, pprof included; localhost, loopback IPs on any port (port
// forwards) and --web.allowed-hosts pass.
func TestLoopbackListenerChecksHost(t *testing.T) {
	cat := exportertest.Catalog(map[string]exporter.Collector{"answer": exporter.FromUpdater(answerCollector{})})
	base := exportertest.Start(t, cat, "--web.enable-profiling", "--web.allowed-hosts=glance.internal.example").URL
	for _, tc := range []struct {
		host string
		want int
	}{
		{"rebound.evil.example:18090", http.StatusMisdirectedRequest},
		{"rebound.evil.example", http.StatusMisdirectedRequest},
		{"127.0.0.1.evil.example", http.StatusMisdirectedRequest},
		{"localhost.evil.example:80", http.StatusMisdirectedRequest},
		{"10.0.0.1:18090", http.StatusMisdirectedRequest},
		{"localhost:8080", http.StatusOK},
		{"LOCALHOST.", http.StatusOK},
		{"app.localhost:18090", http.StatusOK},
		{"127.0.0.1:1", http.StatusOK},
		{"127.1.2.3", http.StatusOK},
		{"[::1]:18090", http.StatusOK},
		{"glance.internal.example", http.StatusOK},
		{"Glance.Internal.Example:443", http.StatusOK},
	} {
		for _, path := range []string{"/debug/pprof/", "/metrics", "/-/healthy"} {
			if got := request(t, http.MethodGet, base+path, map[string]string{"Host": tc.host}, ""); got != tc.want {
				t.Errorf("GET %s with Host %s: %d, want %d", path, tc.host, got, tc.want)
			}
		}
	}
}
