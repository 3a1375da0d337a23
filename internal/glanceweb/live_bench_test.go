package glanceweb_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/appdoc"
	"github.com/sparkglance/sparkglance/internal/glanceweb"
	"github.com/sparkglance/sparkglance/internal/report/reporttest"
	"github.com/sparkglance/sparkglance/internal/simulate"
	"github.com/sparkglance/sparkglance/internal/sparklog"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// bigLiveApp simulates a running application with `executors` executors
// (4 cores each, spilling on every executor in one stage) and analyses it
// with intervals narrow enough to make about `intervals` of them.
func bigLiveApp(tb testing.TB, executors, intervals int) analysis.Report {
	tb.Helper()
	cfg := simulate.DefaultConfig()
	cfg.Executors, cfg.TasksPerStage, cfg.Live = executors, executors*4*4, true
	var log bytes.Buffer
	if _, err := simulate.Write(&log, cfg); err != nil {
		tb.Fatal(err)
	}
	var events []sparkevent.Event
	for i, line := range bytes.Split(bytes.TrimSpace(log.Bytes()), []byte("\n")) {
		ev, err := sparkevent.DecodeLine(line)
		if err != nil {
			tb.Fatalf("simulated line %d: %v", i+1, err)
		}
		if ev != nil {
			events = append(events, ev)
		}
	}
	analyse := func(acfg analysis.Config) analysis.Report {
		app := analysis.New(acfg)
		for _, ev := range events {
			app.Add(ev)
		}
		return app.Report()
	}
	acfg := analysis.DefaultConfig()
	first := analyse(acfg)
	acfg.Interval = time.Duration(first.End-first.Start) * time.Millisecond / time.Duration(intervals)
	r := analyse(acfg)
	if n := len(r.Intervals); n < intervals*9/10 || n > intervals*11/10 {
		tb.Fatalf("%d intervals of %v, want about %d", n, acfg.Interval, intervals)
	}
	return r
}

// BenchmarkLiveUpdate200Executors2000Intervals serves a running
// application of 200 executors at once (300 in all: dynamic allocation
// replaces 100) and about 2,000 intervals on the live page,
// and times the page's own update path in headless Chromium: render-ms is
// the redraw (model, three charts, tables, layout) as the page measures it
// with performance.now (goal < 200 ms); fetch-ms is the fetch and JSON
// parse before it. The document alternates between two versions (the last
// interval missing or present), as between two polls of a live application.
func BenchmarkLiveUpdate200Executors2000Intervals(b *testing.B) {
	r := bigLiveApp(b, 200, 2000)
	short := r
	short.Intervals = slices.Clone(r.Intervals[:len(r.Intervals)-1])
	docs := []glanceweb.App{
		{Report: &r, Doc: &appdoc.Doc{Report: r, Events: map[string]int64{}, Problems: []sparklog.Problem{}}, Running: true},
		{Report: &short, Doc: &appdoc.Doc{Report: short, Events: map[string]int64{}, Problems: []sparklog.Problem{}}, Running: true},
	}
	var polls atomic.Int64
	br := openLivePage(b, func() []glanceweb.App { return []glanceweb.App{docs[polls.Add(1)%2]} }, r.AppID, 10*time.Minute)
	var sumRender, maxRender, sumFetch float64
	for b.Loop() {
		var ms [2]float64
		err := chromedp.Run(br.Ctx, chromedp.Evaluate(`window.glance.update().then(() => [window.glance.lastRenderMs, window.glance.lastFetchMs])`, &ms,
			func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
		if err != nil {
			b.Fatal(err)
		}
		sumRender += ms[0]
		maxRender = max(maxRender, ms[0])
		sumFetch += ms[1]
	}
	var steps map[string]float64
	br.Eval(b, `Object.assign({}, window.glance.lastRenderSteps, window.glance.state.drawMs)`, &steps)
	b.Logf("the last redraw's steps (ms): %v", steps)
	var execs, intervals int
	br.Eval(b, `window.glance.state.model.executors.length`, &execs)
	br.Eval(b, `window.glance.state.model.n`, &intervals)
	// 200 executors at once; dynamic allocation replaces 100 of them, so
	// the spill heatmap has 300 rows.
	if execs != 300 || intervals < 1800 {
		b.Fatalf("the page shows %d executors and %d intervals, want 300 (200 at once) and about 2000", execs, intervals)
	}
	if errs := br.Errors(); len(errs) > 0 {
		b.Errorf("page errors: %v", errs)
	}
	n := float64(b.N)
	b.ReportMetric(sumRender/n, "render-ms")
	b.ReportMetric(maxRender, "max-render-ms")
	b.ReportMetric(sumFetch/n, "fetch-ms")
}

// openLivePage serves the live pages of the applications src returns on
// loopback, opens src's application appID in Chromium, lets the page's own
// first poll pass and then stops it polling, so that only the updates a
// test or benchmark triggers run.
func openLivePage(tb testing.TB, src glanceweb.Source, appID string, timeout time.Duration) *reporttest.Browser {
	tb.Helper()
	mux := http.NewServeMux()
	for _, rt := range glanceweb.Routes(src) {
		mux.Handle(rt.Pattern, rt.Handler)
	}
	srv := httptest.NewServer(mux) // 127.0.0.1
	tb.Cleanup(srv.Close)
	br := reporttest.New(tb, 1400, 1000, timeout)
	br.Open(tb, srv.URL+"/apps/"+appID)
	if err := chromedp.Run(br.Ctx, chromedp.Evaluate(`window.glance.pollMs = 1e9`, nil),
		chromedp.Poll(`(window.glance.updates || 0) >= 1`, nil, chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		tb.Fatalf("the live page did not update itself: %v (errors %v)", err, br.Errors())
	}
	return br
}
