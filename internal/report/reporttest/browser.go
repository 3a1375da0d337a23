// Package reporttest drives the glance pages in a real headless Chromium
// (Debian's chromium package) for tests: it records console errors,
// uncaught exceptions and every network request a page makes.
package reporttest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// Browser is one headless Chromium tab.
type Browser struct {
	Ctx context.Context

	mu       sync.Mutex
	errors   []string
	requests []string
}

// New starts Chromium for the test (skipped locally, failed under CI=true
// when chromium is not installed) with a tab of width × height CSS pixels.
// Everything it does is bounded by timeout.
func New(t testing.TB, width, height int, timeout time.Duration) *Browser {
	t.Helper()
	exe := testkit.RequireTool(t, "chromium")
	// Chromium's profile and its shared-memory files go to a directory the
	// test removes. Not t.TempDir(): its long path would make Chromium's
	// singleton socket path exceed the 108 bytes a Unix socket allows.
	tmp, err := os.MkdirTemp("", "chromium")
	if err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.Headless, chromedp.DisableGPU,
		chromedp.UserDataDir(filepath.Join(tmp, "profile")), chromedp.Env("TMPDIR="+tmp),
		chromedp.WindowSize(width, height),
		chromedp.Flag("hide-scrollbars", true), chromedp.Flag("force-device-scale-factor", "1"),
	)
	ctx, cancelTimeout := context.WithTimeout(context.Background(), timeout)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(func() {
		// chromedp.Cancel closes the browser and waits for its process;
		// plain cancelling returns at once, and Chromium's helpers still
		// wrote into tmp after it had been removed.
		_ = chromedp.Cancel(bctx)
		cancelBrowser()
		cancelAlloc()
		cancelTimeout()
		removeAllBounded(t, tmp, 10*time.Second)
	})
	b := &Browser{Ctx: bctx}
	chromedp.ListenTarget(bctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError || e.Type == runtime.APITypeWarning {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				b.errors = append(b.errors, fmt.Sprintf("console.%s: %s", e.Type, strings.Join(args, " ")))
			}
		case *runtime.EventExceptionThrown:
			msg := e.ExceptionDetails.Text
			if e.ExceptionDetails.Exception != nil {
				msg += " " + e.ExceptionDetails.Exception.Description
			}
			b.errors = append(b.errors, "exception: "+msg)
		case *log.EventEntryAdded:
			if e.Entry.Level == log.LevelError || e.Entry.Level == log.LevelWarning {
				b.errors = append(b.errors, fmt.Sprintf("log %s: %s (%s)", e.Entry.Level, e.Entry.Text, e.Entry.URL))
			}
		case *network.EventRequestWillBeSent:
			b.requests = append(b.requests, e.Request.URL)
		}
	})
	if err := chromedp.Run(bctx, network.Enable(), log.Enable(), runtime.Enable()); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	return b
}

// Errors are the console errors and warnings, exceptions and log errors so far.
func (b *Browser) Errors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errors...)
}

// Requests are the URLs of every request the tab made so far.
func (b *Browser) Requests() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.requests...)
}

// Open navigates to url and waits until the glance has drawn its charts.
func (b *Browser) Open(t testing.TB, url string) {
	t.Helper()
	b.OpenWhen(t, url, `window.glance && window.glance.state.charts.length === 3`)
}

// OpenWhen navigates to url and waits until the expression ready is true
// (another page than the glance: the comparison page).
func (b *Browser) OpenWhen(t testing.TB, url, ready string) {
	t.Helper()
	err := chromedp.Run(b.Ctx, chromedp.Navigate(url),
		chromedp.Poll(ready, nil, chromedp.WithPollingTimeout(20*time.Second)))
	if err != nil {
		t.Fatalf("opening %s: %v (page errors: %v)", url, err, b.Errors())
	}
}

// Eval evaluates a JavaScript expression in the page into out.
func (b *Browser) Eval(t testing.TB, expr string, out any) {
	t.Helper()
	if err := chromedp.Run(b.Ctx, chromedp.Evaluate(expr, out)); err != nil {
		t.Fatalf("evaluating %.80s: %v", expr, err)
	}
}

// Screenshot captures the whole page as PNG.
func (b *Browser) Screenshot(t testing.TB) []byte {
	t.Helper()
	var png []byte
	if err := chromedp.Run(b.Ctx, chromedp.FullScreenshot(&png, 100)); err != nil {
		t.Fatal(err)
	}
	return png
}

// removeAllBounded removes dir, retrying while exiting helper processes
// may still create files in it, for at most limit.
func removeAllBounded(t testing.TB, dir string, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for {
		err := os.RemoveAll(dir)
		if err == nil {
			if _, statErr := os.Stat(dir); os.IsNotExist(statErr) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Errorf("Chromium's temp dir %s not removed within %v: %v", dir, limit, err)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}
