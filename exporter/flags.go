package exporter

import (
	"time"

	"github.com/prometheus/common/promslog"
	promslogflag "github.com/prometheus/common/promslog/flag"
	"github.com/prometheus/exporter-toolkit/web"
	"github.com/prometheus/exporter-toolkit/web/kingpinflag"
)

// DefaultListenAddress is the default --web.listen-address (see the package
// documentation for why this port).
const DefaultListenAddress = ":18090"

// Config is everything the exporter needs from the command line.
type Config struct {
	// Web holds --web.listen-address, --web.config.file and
	// --web.systemd-socket, as the exporter-toolkit defines them.
	Web             *web.FlagConfig
	TelemetryPath   string
	EnableProfiling bool
	// AllowUnauthenticatedProfiling serves profiles (Go's and the JVM
	// profiles API) on a non-loopback address without a web config that
	// authenticates.
	AllowUnauthenticatedProfiling bool
	// AllowedHosts are Host header names accepted on loopback listeners
	// besides localhost and loopback IPs (a reverse proxy's name).
	AllowedHosts []string
	// TimeoutOffset is taken off Prometheus' scrape timeout so that the
	// answer arrives before Prometheus gives up.
	TimeoutOffset time.Duration
	// MaxRequests bounds parallel scrapes; 0 means no limit.
	MaxRequests int
	// MaxConnections bounds open connections per listener; 0 means no limit.
	// Idle connections are closed to make room.
	MaxConnections int
	// MaxPageRequests bounds the requests served at once by collectors'
	// routes (pages, JSON API, profiles); 0 means no limit.
	MaxPageRequests int
	// HTTP are the server's timeouts; zero fields take DefaultHTTPTimeouts.
	HTTP HTTPTimeouts
	OTLP OTLPConfig
	Log  promslog.Config
	// Version is shown on the landing page, in sparkglance_build_info and
	// as the OTLP service.version.
	Version string
}

// HTTPTimeouts bound how long a client may hold a connection: idle
// connections and slow or stalled requests would otherwise pile up.
type HTTPTimeouts struct {
	ReadHeader time.Duration // request line and headers
	Read       time.Duration // the whole request, body included
	// Write bounds producing and sending an answer, so it must exceed the
	// longest scrape (Prometheus' scrape timeouts stay well under it).
	Write time.Duration
	Idle  time.Duration // between requests on a kept-alive connection
}

// DefaultHTTPTimeouts are the timeouts of the served endpoints.
var DefaultHTTPTimeouts = HTTPTimeouts{
	ReadHeader: 10 * time.Second,
	Read:       30 * time.Second,
	Write:      2 * time.Minute,
	Idle:       2 * time.Minute,
}

func (t HTTPTimeouts) withDefaults() HTTPTimeouts {
	d := DefaultHTTPTimeouts
	if t.ReadHeader <= 0 {
		t.ReadHeader = d.ReadHeader
	}
	if t.Read <= 0 {
		t.Read = d.Read
	}
	if t.Write <= 0 {
		t.Write = d.Write
	}
	if t.Idle <= 0 {
		t.Idle = d.Idle
	}
	return t
}

// AddFlags declares the serve flags on g, including --collector.<name> for
// every collector in cat, and returns the Config they fill when parsed.
// Register every collector before calling it.
func AddFlags(g FlagGroup, cat *Catalog) *Config {
	c := &Config{Web: kingpinflag.AddFlags(g, DefaultListenAddress)}
	g.Flag("web.telemetry-path", "Path under which to expose metrics.").
		Default("/metrics").StringVar(&c.TelemetryPath)
	g.Flag("web.enable-profiling", "Serve /debug/pprof/ and /debug/fgprof (Go runtime and wall-clock profiles).").
		Default("false").BoolVar(&c.EnableProfiling)
	g.Flag("profiling.allow-unauthenticated", "Allow --web.enable-profiling and --profiling.enabled on a non-loopback address without a --web.config.file that authenticates (basic auth or verified client certificates).").
		Default("false").BoolVar(&c.AllowUnauthenticatedProfiling)
	g.Flag("web.allowed-hosts", "Host header name accepted on a loopback listen address besides localhost and loopback IPs, e.g. a reverse proxy's (repeatable); others get 421, against DNS rebinding.").
		StringsVar(&c.AllowedHosts)
	g.Flag("web.max-connections", "Maximum number of open connections per listen address (idle ones are closed to make room); 0 disables the limit.").
		Default("512").IntVar(&c.MaxConnections)
	g.Flag("web.max-page-requests", "Maximum number of requests served at once by the pages and APIs (/apps, /api/v1/...); 4 times as many wait up to 5s, others get 503. 0 disables the limit.").
		Default("4").IntVar(&c.MaxPageRequests)
	g.Flag("web.timeout-offset", "Subtracted from Prometheus' X-Prometheus-Scrape-Timeout-Seconds to get the collectors' deadline.").
		Default("250ms").DurationVar(&c.TimeoutOffset)
	g.Flag("web.max-requests", "Maximum number of parallel scrape requests; 0 disables the limit.").
		Default("40").IntVar(&c.MaxRequests)

	c.Log = promslog.Config{Level: promslog.NewLevel(), Format: promslog.NewFormat()}
	g.Flag(promslogflag.LevelFlagName, promslogflag.LevelFlagHelp).
		Default("info").HintOptions(promslog.LevelFlagOptions...).SetValue(c.Log.Level)
	g.Flag(promslogflag.FormatFlagName, promslogflag.FormatFlagHelp).
		Default("logfmt").HintOptions(promslog.FormatFlagOptions...).SetValue(c.Log.Format)

	addOTLPFlags(g, &c.OTLP)
	cat.declareFlags(g)
	return c
}
