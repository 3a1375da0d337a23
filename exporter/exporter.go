package exporter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/version"
	"github.com/prometheus/exporter-toolkit/web"
)

// shutdownGrace bounds how long in-flight requests may finish on shutdown.
const shutdownGrace = 5 * time.Second

// Exporter serves the enabled collectors over HTTP and, if configured,
// pushes them over OTLP.
type Exporter struct {
	cfg        Config
	logger     *slog.Logger
	collectors []namedCollector
	self       *prometheus.Registry // build info, Go runtime, process, promhttp
	handler    http.Handler
	// handlerErrors is promhttp_metric_handler_errors_total.
	handlerErrors *prometheus.CounterVec
	// extraRoutes are the collectors' own endpoints (see RouteProvider).
	extraRoutes []Route
	// otlpStats counts OTLP pushes; nil when there is no push.
	otlpStats *otlpStats

	listenMu  sync.Mutex
	listeners []net.Listener
}

// New builds every enabled collector of cat. A factory's error stops
// start-up: a collector the user asked for must work.
func New(cfg Config, cat *Catalog, logger *slog.Logger) (*Exporter, error) {
	if cfg.Web == nil || cfg.Web.WebConfigFile == nil || cfg.Web.WebListenAddresses == nil {
		return nil, errors.New("exporter: Config.Web is incomplete (use AddFlags or fill every field)")
	}
	if !strings.HasPrefix(cfg.TelemetryPath, "/") {
		return nil, fmt.Errorf("--web.telemetry-path %q must start with /", cfg.TelemetryPath)
	}
	if cfg.Version == "" {
		cfg.Version = version.Version
	}
	if err := cfg.OTLP.validate(); err != nil {
		return nil, err
	}
	if err := cat.check(); err != nil {
		return nil, err
	}
	e := &Exporter{cfg: cfg, logger: logger, self: prometheus.NewRegistry()}
	e.self.MustRegister(
		newBuildInfo(),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	if cfg.OTLP.enabled() {
		e.otlpStats = newOTLPStats()
		e.self.MustRegister(e.otlpStats)
	}
	for _, r := range cat.enabled() {
		c, err := r.factory(logger.With("collector", r.name))
		if err != nil {
			return nil, fmt.Errorf("collector %s: %w", r.name, err)
		}
		if !made(c) {
			return nil, fmt.Errorf("collector %s: its factory returned no collector", r.name)
		}
		e.collectors = append(e.collectors, namedCollector{name: r.name, collector: c})
		logger.Info("collector enabled", "collector", r.name)
	}
	extra, err := e.collectorRoutes()
	if err != nil {
		return nil, err
	}
	if err := cfg.checkExposure(extra); err != nil {
		return nil, err
	}
	e.extraRoutes = extra
	e.handler = e.routes()
	return e, nil
}

// Listen binds every --web.listen-address and returns the bound addresses
// (useful with port 0). Run calls it if it was not called before.
// Systemd sockets and vsock addresses are left to the exporter-toolkit and
// return no address.
func (e *Exporter) Listen() ([]net.Addr, error) {
	e.listenMu.Lock()
	defer e.listenMu.Unlock()
	if e.listeners != nil || e.toolkitListens() {
		return e.addrs(), nil
	}
	for _, address := range *e.cfg.Web.WebListenAddresses {
		l, err := net.Listen("tcp", address)
		if err != nil {
			for _, open := range e.listeners {
				_ = open.Close()
			}
			e.listeners = nil
			return nil, fmt.Errorf("--web.listen-address %s: %w", address, err)
		}
		e.listeners = append(e.listeners, l)
	}
	return e.addrs(), nil
}

func (e *Exporter) addrs() []net.Addr {
	out := make([]net.Addr, len(e.listeners))
	for i, l := range e.listeners {
		out[i] = l.Addr()
	}
	return out
}

// toolkitListens reports whether the toolkit must open the listeners itself.
func (e *Exporter) toolkitListens() bool {
	if e.cfg.Web.WebSystemdSocket != nil && *e.cfg.Web.WebSystemdSocket {
		return true
	}
	for _, a := range *e.cfg.Web.WebListenAddresses {
		if strings.HasPrefix(a, "vsock://") {
			return true
		}
	}
	return false
}

// Run serves until ctx is cancelled or a listener fails, running the
// collectors' background models and the OTLP push meanwhile. On the way out
// it lets requests finish and pushes OTLP one last time.
func (e *Exporter) Run(ctx context.Context) error {
	if _, err := e.Listen(); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	var background sync.WaitGroup
	defer func() {
		cancel() // also when a listener failed and ctx is still live
		background.Wait()
	}()
	e.startRunners(ctx, &background)

	if e.otlpStats != nil {
		push, err := startOTLP(ctx, e.cfg.OTLP, e.cfg.Version, e.otlpGatherer(), e.otlpStats, e.logger)
		if err != nil {
			for _, l := range e.listeners {
				_ = l.Close()
			}
			return err
		}
		defer func() {
			stopCtx, stop := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
			defer stop()
			if err := push.Shutdown(stopCtx); err != nil {
				e.logger.Error("OTLP final push failed", "err", err)
			}
		}()
	}

	servers, serveErr := e.serve(e.handler)
	var err error
	select {
	case <-ctx.Done():
	case err = <-serveErr:
	}
	stopCtx, stop := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer stop()
	for _, s := range servers {
		if serr := s.Shutdown(stopCtx); serr != nil {
			e.logger.Warn("HTTP shutdown", "err", serr)
		}
	}
	e.logger.Info("stopped serving", "err", err)
	return err
}

// serve starts one http.Server per listener: the toolkit's Serve wraps
// server.Handler, so servers must not be shared between listeners.
func (e *Exporter) serve(handler http.Handler) ([]*http.Server, <-chan error) {
	errs := make(chan error, len(e.listeners)+1)
	timeouts := e.cfg.HTTP.withDefaults()
	newServer := func() *http.Server {
		return &http.Server{
			Handler:           handler,
			ReadHeaderTimeout: timeouts.ReadHeader,
			ReadTimeout:       timeouts.Read,
			WriteTimeout:      timeouts.Write,
			IdleTimeout:       timeouts.Idle,
			ErrorLog:          slog.NewLogLogger(e.logger.Handler(), slog.LevelWarn),
		}
	}
	report := func(err error) {
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			errs <- err
		}
	}
	if e.toolkitListens() {
		s := newServer()
		go func() { report(web.ListenAndServe(s, e.cfg.Web, e.logger)) }()
		return []*http.Server{s}, errs
	}
	servers := make([]*http.Server, len(e.listeners))
	for i, l := range e.listeners {
		servers[i] = newServer()
		if n := e.cfg.MaxConnections; n > 0 {
			limiter := newConnLimiter(n)
			l = limiter.listener(l)
			servers[i].ConnState = limiter.connState
		}
		if tcp, ok := l.Addr().(*net.TCPAddr); ok && tcp.IP.IsLoopback() {
			servers[i].Handler = hostGuard(handler, e.cfg.AllowedHosts)
		}
		go func() { report(web.Serve(l, servers[i], e.cfg.Web, e.logger)) }()
	}
	return servers, errs
}

// startRunners starts the background model of every collector that has one.
func (e *Exporter) startRunners(ctx context.Context, wg *sync.WaitGroup) {
	for _, nc := range e.collectors {
		r, ok := nc.collector.source().(Runner)
		if !ok {
			continue
		}
		wg.Go(func() {
			if err := r.Run(ctx); err != nil && ctx.Err() == nil {
				e.logger.Error("collector background work stopped", "collector", nc.name, "err", err)
			}
		})
	}
}

// otlpGatherer gathers for the OTLP push with the same collectors as a
// scrape, under a deadline of its own since no Prometheus sets one.
func (e *Exporter) otlpGatherer() prometheus.Gatherer {
	timeout := e.cfg.OTLP.timeout()
	return prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		return e.Gatherer(ctx).Gather()
	})
}
