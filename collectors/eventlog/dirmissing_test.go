package eventlog

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// serve --eventlog.dir on a directory that does not exist yet: /-/ready
// answers 503 naming the directory and the reason, and the collector's
// scrape success is 0; once the directory appears, both recover.
func TestMissingDirectoryNotReadyUntilItAppears(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "spark-events")
	base, w := startExporter(t, testConfig(dir))
	waitFor(t, 10*time.Second, "the first listing", func() bool { return w.scanned.Load() })

	status, body := getStatus(t, base+"/-/ready")
	if status != http.StatusServiceUnavailable || !strings.Contains(body, dir) || !strings.Contains(body, "no such file or directory") {
		t.Errorf("/-/ready = %d %q, want 503 naming %s and the reason", status, body, dir)
	}
	if m := httpGet(t, base+"/metrics"); !strings.Contains(m, `sparkglance_scrape_collector_success{collector="eventlog"} 0`) {
		t.Errorf("collector success is not 0 while the directory is missing")
	}

	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeSimulatedLog(t, dir, "app-20261130090000-0041", false)
	waitFor(t, 10*time.Second, "ready once the directory exists", func() bool {
		status, _ := getStatus(t, base+"/-/ready")
		return status == http.StatusOK
	})
	waitFor(t, 10*time.Second, "the collector succeeds and shows the application", func() bool {
		m := httpGet(t, base+"/metrics")
		return strings.Contains(m, `sparkglance_scrape_collector_success{collector="eventlog"} 1`) && strings.Contains(m, `app_id="app-20261130090000-0041"`)
	})
}

func getStatus(t *testing.T, u string) (int, string) {
	t.Helper()
	c := http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b := new(strings.Builder)
	if _, err := io.Copy(b, resp.Body); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b.String()
}
