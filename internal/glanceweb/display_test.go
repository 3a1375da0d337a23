package glanceweb_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/glanceweb"
	"github.com/sparkglance/sparkglance/internal/report"
)

func serveApps(t *testing.T, src glanceweb.Source) string {
	t.Helper()
	mux := http.NewServeMux()
	for _, r := range glanceweb.Routes(src) {
		mux.Handle(r.Pattern, r.Handler)
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

func get(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return b
}

// An application whose name is 3 MB is shown with the name cut to
// report.MaxDisplayString and marked, on its page and in its document.
func TestLiveDocumentTruncatesHugeStrings(t *testing.T) {
	r := &analysis.Report{AppID: "app-1", AppName: strings.Repeat("x", 3<<20)}
	base := serveApps(t, func() []glanceweb.App { return []glanceweb.App{{Report: r, Doc: r, Running: true}} })
	doc := get(t, base+"/api/v1/apps/app-1")
	var got analysis.Report
	if err := json.Unmarshal(doc, &got); err != nil {
		t.Fatal(err)
	}
	if want := strings.Repeat("x", report.MaxDisplayString) + "…[truncated]"; got.AppName != want {
		t.Errorf("document's appName is %d bytes, want the first %d and the mark", len(got.AppName), report.MaxDisplayString)
	}
	if page := get(t, base+"/apps/app-1"); len(page) > 2*report.MaxDisplayString+len(get(t, base+"/apps")) {
		t.Errorf("the page is %d bytes for a name of %d", len(page), len(r.AppName))
	}
}

// The document of an application is encoded once per version: polls of an
// unchanged document get the same bytes; a new version is served as soon
// as it is published.
func TestLiveDocumentEncodedOncePerVersion(t *testing.T) {
	v1 := &analysis.Report{AppID: "app-1", AppName: "first"}
	v2 := &analysis.Report{AppID: "app-1", AppName: "second"}
	var current atomic.Pointer[analysis.Report]
	current.Store(v1)
	base := serveApps(t, func() []glanceweb.App {
		r := current.Load()
		return []glanceweb.App{{Report: r, Doc: r, Running: true}}
	})
	a, b := get(t, base+"/api/v1/apps/app-1"), get(t, base+"/api/v1/apps/app-1")
	if !bytes.Equal(a, b) || !bytes.Contains(a, []byte(`"first"`)) {
		t.Fatalf("two polls of one version differ or miss it: %.80s / %.80s", a, b)
	}
	v1.AppName = "changed in place" // not a new version: the cache answers
	if c := get(t, base+"/api/v1/apps/app-1"); !bytes.Equal(a, c) {
		t.Errorf("a document already encoded was encoded again: %.80s", c)
	}
	current.Store(v2)
	if c := get(t, base+"/api/v1/apps/app-1"); !bytes.Contains(c, []byte(`"second"`)) {
		t.Errorf("a new version is not served: %.80s", c)
	}
}
