package exporter_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/exporter/exportertest"
	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/appdoc"
	"github.com/sparkglance/sparkglance/internal/glanceweb"
	"github.com/sparkglance/sparkglance/internal/simulate"
	"github.com/sparkglance/sparkglance/internal/sparklog"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// liveApp is the document of a simulated running application, as the
// event-log collector serves it.
func liveApp(t *testing.T) glanceweb.App {
	t.Helper()
	cfg := simulate.DefaultConfig()
	cfg.Live = true
	var log bytes.Buffer
	if _, err := simulate.Write(&log, cfg); err != nil {
		t.Fatal(err)
	}
	app := analysis.New(analysis.DefaultConfig())
	for i, line := range bytes.Split(bytes.TrimSpace(log.Bytes()), []byte("\n")) {
		ev, err := sparkevent.DecodeLine(line)
		if err != nil {
			t.Fatalf("simulated line %d: %v", i+1, err)
		}
		if ev != nil {
			app.Add(ev)
		}
	}
	r := app.Report()
	return glanceweb.App{Report: &r, Doc: &appdoc.Doc{Report: r, Events: map[string]int64{}, Problems: []sparklog.Problem{}}, Running: true}
}

// pagesCollector serves the live glance pages of one application.
func pagesCollector(app glanceweb.App) routeCollector {
	var routes []exporter.Route
	for _, r := range glanceweb.Routes(func() []glanceweb.App { return []glanceweb.App{app} }) {
		routes = append(routes, exporter.Route{Pattern: r.Pattern, Handler: r.Handler, Text: r.Text, Description: r.Description})
	}
	return routeCollector{routes: routes}
}

// holdIdle opens a connection, makes one request on it and leaves it open
// and idle, as a kept-alive client does.
func holdIdle(addr string) (net.Conn, error) {
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return nil, err
	}
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, "GET /-/healthy HTTP/1.1\r\nHost: localhost\r\n\r\n"); err != nil {
		conn.Close()
		return nil, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		conn.Close()
		return nil, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return conn, nil
}

// With the default limits, 512 kept-alive idle connections (the whole of
// --web.max-connections) and 500 clients polling the live pages every
// 3 s do not keep Prometheus out: every scrape, each on a new
// connection, is answered within a second, while the pollers are served.
func TestScrapesAnsweredUnderIdleConnectionsAndPagePolling(t *testing.T) {
	if testing.Short() {
		t.Skip("opens over 1,000 connections")
	}
	app := liveApp(t)
	cat := exportertest.Catalog(map[string]exporter.Collector{"pages": exporter.FromUpdater(pagesCollector(app))})
	addr := strings.TrimPrefix(exportertest.Start(t, cat).URL, "http://")

	var idle []net.Conn
	defer func() {
		for _, c := range idle {
			_ = c.Close()
		}
	}()
	for range 512 {
		conn, err := holdIdle(addr)
		if err != nil {
			t.Fatalf("idle connection %d: %v", len(idle)+1, err)
		}
		idle = append(idle, conn)
	}

	// 500 pollers, each with its own kept-alive connection, fetching the
	// application's document every 3 s as its live page does.
	ctx, stop := context.WithCancel(t.Context())
	var pollers sync.WaitGroup
	defer func() { stop(); pollers.Wait() }()
	const pollEvery = 3 * time.Second
	var served, refused, failed atomic.Int64
	steady := make(chan struct{}) // closed at the 1000th poll served
	docURL := "http://" + addr + "/api/v1/apps/" + app.Report.AppID
	for i := range 500 {
		pollers.Go(func() {
			client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
			defer client.CloseIdleConnections()
			tick := time.NewTicker(pollEvery)
			defer tick.Stop()
			// Spread the first polls over the first period.
			first := time.NewTimer(time.Duration(i) * pollEvery / 500)
			defer first.Stop()
			select {
			case <-first.C:
			case <-ctx.Done():
				return
			}
			for {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, docURL, nil)
				resp, err := client.Do(req)
				switch {
				case err != nil:
					if ctx.Err() == nil {
						failed.Add(1)
					}
				default:
					_, _ = io.Copy(io.Discard, resp.Body)
					_ = resp.Body.Close()
					if resp.StatusCode == http.StatusOK {
						if served.Add(1) == 1000 {
							close(steady)
						}
					} else {
						refused.Add(1)
					}
				}
				select {
				case <-tick.C:
				case <-ctx.Done():
					return
				}
			}
		})
	}
	// Wait (bounded) until the pollers have been served twice over: every
	// poller has connected and the load is steady.
	select {
	case <-steady:
	case <-time.After(60 * time.Second):
		t.Fatalf("only %d polls served in 60 s (%d refused, %d failed)", served.Load(), refused.Load(), failed.Load())
	}

	// Scrape as Prometheus does, each on a new connection, bounded by its
	// default scrape timeout. The median must be within the second; a
	// shared, busy test machine may stall any one request a little longer.
	var took []time.Duration
	for i := range 5 {
		client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
		start := time.Now()
		resp, err := client.Get("http://" + addr + "/metrics")
		if err != nil {
			t.Fatalf("scrape %d under load: %v (polls served %d, refused %d, failed %d)", i+1, err, served.Load(), refused.Load(), failed.Load())
		}
		body, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		took = append(took, time.Since(start))
		if err != nil || resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte("sparkglance_test_answer")) {
			t.Fatalf("scrape %d under load: %d %v, %d bytes", i+1, resp.StatusCode, err, len(body))
		}
	}
	slices.Sort(took)
	t.Logf("scrapes took %v; polls served %d, refused %d, failed %d", took, served.Load(), refused.Load(), failed.Load())
	if median := took[len(took)/2]; median > time.Second {
		t.Errorf("scrapes took %v under 512 idle connections and 500 pollers, want the median within 1 s", took)
	}
	if n := failed.Load(); n > 0 {
		t.Errorf("%d polls failed outright (connection errors), want each served or refused with 503", n)
	}
}
