package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sparkglance/sparkglance/internal/report/reporttest"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// The live page of a running demo application loads, updates itself from
// the JSON API, and requests nothing outside the exporter's origin; the
// API answers unknown and invalid ids with a JSON 404. With
// SPARKGLANCE_SCREENSHOTS=DIR (make screenshots) it also writes the
// screenshots of docs/images.
func TestLiveGlanceInBrowser(t *testing.T) {
	shots := os.Getenv("SPARKGLANCE_SCREENSHOTS")
	b := reporttest.New(t, 1400, 1000, 5*time.Minute)
	addr, stop := runServe(t, "--demo", "--demo.tmpdir="+t.TempDir(), "--log.level=warn", "--no-collector.spark")
	defer stop()
	base := "http://" + addr
	// The demo's running application (its earlier runs are listed too,
	// finished): running ones come first.
	var list []struct {
		Page, Doc string
		Running   bool
	}
	testkit.PollGet(base+"/api/v1/apps", 30*time.Second, 200*time.Millisecond, func(body string) bool {
		return json.Unmarshal([]byte(body), &list) == nil && len(list) > 0 && list[0].Running
	})
	if len(list) == 0 || !list[0].Running {
		t.Fatal("no running application in /api/v1/apps within 30 s")
	}
	if !strings.Contains(testkit.HTTPGetOK(t, base+"/"), `href="/apps"`) {
		t.Error("the landing page does not link /apps")
	}
	for _, bad := range []string{"/api/v1/apps/app-nope", "/api/v1/apps/..%2F..%2Fetc", "/api/v1/apps/x/..."} {
		code, body := testkit.HTTPGet(t, nil, base+bad, nil)
		var e struct{ Error string }
		if code != 404 || json.Unmarshal([]byte(body), &e) != nil || e.Error == "" {
			t.Errorf("GET %s: %d %q, want 404 with a JSON error", bad, code, body)
		}
	}

	// A shorter poll than the page's own 3 s, to see several updates.
	b.Open(t, base+list[0].Page)
	if err := chromedp.Run(b.Ctx, chromedp.Evaluate(`window.glance.pollMs = 500`, nil),
		chromedp.Poll(`(window.glance.updates || 0) >= 3`, nil, chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		t.Fatalf("the live page did not update: %v (errors %v)", err, b.Errors())
	}
	var render float64
	b.Eval(t, `window.glance.lastRenderMs`, &render)
	t.Logf("live update rendered in %.1f ms", render)
	if errs := b.Errors(); len(errs) > 0 {
		t.Errorf("page errors: %v", errs)
	}
	for _, u := range b.Requests() {
		if !strings.HasPrefix(u, base+"/") {
			t.Errorf("the live page requested %s, outside %s", u, base)
		}
	}
	if shots == "" {
		return
	}
	// Let the demo finish a stage and run the next, so the screenshot
	// shows work done and work going on. The demo runs its stages one
	// after another (never two at once), and a job's JobStart lists all
	// its stages as pending: so wait, on the page's own document, for one
	// COMPLETE and one ACTIVE stage.
	if err := chromedp.Run(b.Ctx, chromedp.Poll(`(() => { const ss = window.glance.state.doc.stages || [];
	  return ss.some(s => s.status === "COMPLETE") && ss.some(s => s.status === "ACTIVE"); })()`, nil,
		chromedp.WithPollingTimeout(150*time.Second), chromedp.WithPollingInterval(500*time.Millisecond))); err != nil {
		t.Fatalf("the demo has not completed a stage and started the next within 150 s: %v", err)
	}
	writeShot(t, filepath.Join(shots, "live.png"), b.Screenshot(t))
	b.Open(t, base+list[0].Page) // back to a page, then to the index
	if err := chromedp.Run(b.Ctx, chromedp.Navigate(base+"/apps")); err != nil {
		t.Fatal(err)
	}
	writeShot(t, filepath.Join(shots, "apps.png"), b.Screenshot(t))

	out := filepath.Join(t.TempDir(), "report")
	if code := realMain([]string{"report", "-o", out, testkit.Events(t, "extra", "spark-rapids-tools", "spark-events-qualification", "nds_q88_photon_db_13_3.zstd"),
		testkit.Events(t, "app-20200706201101-0003")}); code != 0 {
		t.Fatalf("report exit %d", code)
	}
	b.Open(t, "file://"+filepath.Join(out, "app-20240919162642-0000.html"))
	writeShot(t, filepath.Join(shots, "report.png"), b.Screenshot(t))
	if err := chromedp.Run(b.Ctx, chromedp.Navigate("file://"+filepath.Join(out, "index.html"))); err != nil {
		t.Fatal(err)
	}
	writeShot(t, filepath.Join(shots, "index.png"), b.Screenshot(t))
}

func writeShot(t *testing.T, path string, png []byte) {
	t.Helper()
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}
