package eventlog

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// The workload pages and their JSON API are behind the web config like
// every page: with basic auth configured, no answer without credentials.
func TestWorkloadPagesBehindWebConfig(t *testing.T) {
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	webConfig := filepath.Join(t.TempDir(), "web-config.yml")
	if err := os.WriteFile(webConfig, []byte("basic_auth_users:\n  viewer: "+string(hash)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base, w := startExporter(t, testConfig(t.TempDir()), "--web.config.file="+webConfig)
	waitReady(t, w)
	auth := func(password string) http.Header {
		req, _ := http.NewRequest(http.MethodGet, "/", nil)
		req.SetBasicAuth("viewer", password)
		return req.Header
	}
	for _, path := range []string{"/workloads", "/api/v1/workloads", "/workloads/nightly", "/api/v1/workloads/nightly"} {
		for _, h := range []http.Header{nil, auth("wrong")} {
			if status, body := testkit.HTTPGet(t, nil, base+path, h); status != http.StatusUnauthorized {
				t.Errorf("GET %s without the right credentials: %d %s", path, status, body)
			}
		}
	}
	if status, body := testkit.HTTPGet(t, nil, base+"/workloads", auth("s3cret")); status != http.StatusOK || !strings.Contains(body, "workloads") {
		t.Errorf("GET /workloads with credentials: %d", status)
	}
	if status, body := testkit.HTTPGet(t, nil, base+"/api/v1/workloads", auth("s3cret")); status != http.StatusOK || strings.TrimSpace(body) != "[]" {
		t.Errorf("GET /api/v1/workloads with credentials: %d %s", status, body)
	}
}
