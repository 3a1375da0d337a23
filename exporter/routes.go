package exporter

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/pprof"
	"strconv"
	"strings"

	"github.com/felixge/fgprof"
	"github.com/prometheus/exporter-toolkit/web"
)

// Handler returns every HTTP route of the exporter: the telemetry path, the
// landing page, /-/healthy, /-/ready, the collectors' routes and, with
// --web.enable-profiling, /debug/pprof/ and /debug/fgprof; cross-origin
// state-changing requests are refused. (Serving on a loopback listener
// also checks the Host header.)
func (e *Exporter) Handler() http.Handler { return e.handler }

func (e *Exporter) routes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle(e.cfg.TelemetryPath, e.metricsHandler())
	mux.HandleFunc("/-/healthy", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "Healthy")
	})
	mux.HandleFunc("/-/ready", e.serveReady)
	if e.cfg.EnableProfiling {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
		mux.Handle("/debug/fgprof", fgprof.Handler())
	}
	var pages *pageLimiter
	if n := e.cfg.MaxPageRequests; n > 0 {
		pages = newPageLimiter(n)
	}
	for _, r := range e.extraRoutes {
		h := r.Handler
		if pages != nil {
			h = pages.wrap(h)
		}
		mux.Handle(r.Pattern, h)
	}
	if e.cfg.TelemetryPath != "/" {
		landing, err := web.NewLandingPage(e.landingConfig())
		if err != nil {
			// The template is the toolkit's own and our values are plain text.
			e.logger.Error("landing page disabled", "err", err)
		} else {
			mux.Handle("/", landing)
		}
	}
	return crossOriginGuard(mux)
}

func (e *Exporter) landingConfig() web.LandingConfig {
	links := []web.LandingLinks{
		{Address: e.cfg.TelemetryPath, Text: "Metrics", Description: "Prometheus metrics of Spark applications and of the exporter"},
		{Address: "/-/healthy", Text: "Health", Description: "200 while the process serves"},
		{Address: "/-/ready", Text: "Readiness", Description: "200 once every collector has its first snapshot"},
	}
	if e.cfg.EnableProfiling {
		links = append(links,
			web.LandingLinks{Address: "/debug/pprof/", Text: "pprof", Description: "Go runtime profiles"},
			web.LandingLinks{Address: "/debug/fgprof?seconds=10", Text: "fgprof", Description: "10 s wall-clock profile (on- and off-CPU)"},
		)
	}
	for _, r := range e.extraRoutes {
		if r.Text != "" {
			links = append(links, web.LandingLinks{Address: strings.TrimPrefix(r.Pattern, "GET "), Text: r.Text, Description: r.Description})
		}
	}
	return web.LandingConfig{
		Name:        "sparkglance",
		Description: "Where a Spark cluster's time goes: Prometheus exporter and OTLP pusher",
		Version:     e.cfg.Version,
		Links:       links,
		Profiling:   strconv.FormatBool(e.cfg.EnableProfiling),
	}
}

// serveReady answers 200 once every collector that reports readiness is
// ready, else 503 with the reasons.
func (e *Exporter) serveReady(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if err := e.Ready(); err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintln(w, "Not ready:", err)
		return
	}
	fmt.Fprintln(w, "Ready")
}

// Ready returns nil when every enabled collector can answer a scrape.
func (e *Exporter) Ready() error {
	var errs []error
	for _, nc := range e.collectors {
		if r, ok := nc.collector.source().(Readier); ok {
			if err := r.Ready(); err != nil {
				errs = append(errs, fmt.Errorf("collector %s: %w", nc.name, err))
			}
		}
	}
	return errors.Join(errs...)
}
