package exporter

import (
	"fmt"
	"net/http"
	"strings"
)

// Route is an HTTP endpoint a collector serves next to the telemetry path.
// It is mounted on the same mux, so the web config (TLS, basic auth) that
// guards /metrics guards it too.
type Route struct {
	// Pattern is an http.ServeMux pattern, e.g. "/api/v1/profiles/".
	Pattern string
	Handler http.Handler
	// Text and Description, when Text is set, add a landing-page link.
	Text, Description string
	// Privileged, when set, names the flag that turned on a route acting on
	// the node (the JVM profiles API): like --web.enable-profiling, it is
	// refused on a non-loopback address without a web config that
	// authenticates, unless --profiling.allow-unauthenticated.
	Privileged string
}

// RouteProvider is implemented by collectors that serve endpoints of their
// own (the stack sampler's profiles API). Routes is called once, after the
// collector is built.
type RouteProvider interface {
	Routes() []Route
}

// reservedPrefixes are the exporter's own paths; a collector may not take them.
var reservedPrefixes = []string{"/-/", "/debug/"}

// collectorRoutes gathers the routes of the enabled collectors and checks
// they clash neither with the exporter's paths nor with each other.
func (e *Exporter) collectorRoutes() ([]Route, error) {
	var out []Route
	seen := map[string]string{}
	for _, nc := range e.collectors {
		rp, ok := nc.collector.source().(RouteProvider)
		if !ok {
			continue
		}
		for _, r := range rp.Routes() {
			path := r.Pattern
			if _, p, ok := strings.Cut(path, " "); ok { // "GET /x" patterns
				path = p
			}
			switch {
			case r.Handler == nil || !strings.HasPrefix(path, "/") || path == "/":
				return nil, fmt.Errorf("collector %s: route %q needs a handler and a path below /", nc.name, r.Pattern)
			case path == e.cfg.TelemetryPath || strings.HasPrefix(e.cfg.TelemetryPath, path):
				return nil, fmt.Errorf("collector %s: route %q clashes with the telemetry path %s", nc.name, r.Pattern, e.cfg.TelemetryPath)
			}
			for _, p := range reservedPrefixes {
				if strings.HasPrefix(path, p) {
					return nil, fmt.Errorf("collector %s: route %q is under the exporter's own %s", nc.name, r.Pattern, p)
				}
			}
			if other, dup := seen[r.Pattern]; dup {
				return nil, fmt.Errorf("collector %s: route %q already served by collector %s", nc.name, r.Pattern, other)
			}
			seen[r.Pattern] = nc.name
			out = append(out, r)
		}
	}
	return out, nil
}
