package exporter_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/exporter/exportertest"
	"github.com/sparkglance/sparkglance/internal/report"
)

// The live pages as served: anything but GET and HEAD is 405 (not the
// landing page, not a read), every answer says nosniff, and the HTML pages
// carry their Content-Security-Policy with frame-ancestors 'none'.
func TestPagesServedReadOnlyWithTheirPolicy(t *testing.T) {
	app := liveApp(t)
	cat := exportertest.Catalog(map[string]exporter.Collector{"pages": exporter.FromUpdater(pagesCollector(app))})
	base := exportertest.Start(t, cat).URL
	id := app.Report.AppID
	for path, csp := range map[string]string{
		"/apps":              report.IndexCSP,
		"/apps/" + id:        report.PageCSP,
		"/api/v1/apps":       "",
		"/api/v1/apps/" + id: "",
	} {
		for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
			req, _ := http.NewRequest(method, base+path, strings.NewReader(`{}`))
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("%s %s: %d, Allow %q; want 405 with Allow: GET, HEAD", method, path, resp.StatusCode, resp.Header.Get("Allow"))
			}
		}
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			req, _ := http.NewRequest(method, base+path, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			h := resp.Header
			if resp.StatusCode != http.StatusOK || h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Content-Security-Policy") != csp {
				t.Errorf("%s %s: %d, nosniff %q, CSP %q; want 200, nosniff and CSP %q", method, path, resp.StatusCode,
					h.Get("X-Content-Type-Options"), h.Get("Content-Security-Policy"), csp)
			}
			if csp != "" && !strings.HasSuffix(csp, "frame-ancestors 'none'") {
				t.Errorf("%s: policy %q lacks frame-ancestors 'none'", path, csp)
			}
		}
	}
}
