package exporter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/klauspost/compress/gzhttp"
	"github.com/klauspost/compress/gzip"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// scrapeTimeoutHeader is how Prometheus tells a target its scrape timeout.
const scrapeTimeoutHeader = "X-Prometheus-Scrape-Timeout-Seconds"

// Gatherer returns a gatherer whose every Gather runs the enabled
// collectors under ctx, plus the exporter's own metrics (build info, Go
// runtime, process, promhttp).
func (e *Exporter) Gatherer(ctx context.Context) prometheus.Gatherer {
	return prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		s := &scrape{ctx: ctx, collectors: e.collectors, logger: e.logger}
		reg := prometheus.NewRegistry()
		reg.MustRegister(s)
		// Gatherers gathers in order: the scrape has run, and the
		// FamilyCollectors' families are known, by the time the last one
		// is asked for them. client_golang merges them with the other
		// collectors' series of the same family.
		return prometheus.Gatherers{e.self, reg, prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
			return familiesGatherer(s.collected()).Gather()
		})}.Gather()
	})
}

// metricsHandler serves the telemetry path. Each request gets its own
// deadline, so the collectors run per request.
func (e *Exporter) metricsHandler() http.Handler {
	opts := promhttp.HandlerOpts{
		ErrorLog:      slog.NewLogLogger(e.logger.Handler(), slog.LevelError),
		ErrorHandling: promhttp.ContinueOnError,
		Registry:      e.self, // counts promhttp_metric_handler_errors_total
		// gzhttp below compresses, faster than promhttp's default gzip.
		DisableCompression: true,
		// OpenMetrics when asked for (Prometheus asks for it first), as the
		// text path negotiates. Without _created samples: a Prometheus
		// that does not use them stores each as a series of its own,
		// doubling the counters' series; one that does (Prometheus 3's
		// created-timestamp-zero-ingestion) asks for protobuf first, which
		// carries the created timestamps.
		AcceptedFormats: expfmt.DefaultOpenMetricsAcceptedFormats(),
	}
	// Registers promhttp_metric_handler_errors_total now rather than at the
	// first scrape, so an OTLP push before any scrape carries it too; the
	// text fast path counts its errors in the same counter.
	e.handlerErrors = newHandlerErrors()
	if err := e.self.Register(e.handlerErrors); err != nil {
		var are prometheus.AlreadyRegisteredError
		if !errors.As(err, &are) {
			panic(err) // a constant, valid collector
		}
		e.handlerErrors = are.ExistingCollector.(*prometheus.CounterVec)
	}
	promhttp.HandlerFor(e.self, opts)
	fast := e.hasFamilyCollector()
	// promhttp's own MaxRequestsInFlight is per handler, and a handler is
	// built per request here, so the limit is kept across requests instead.
	var inFlight chan struct{}
	if e.cfg.MaxRequests > 0 {
		inFlight = make(chan struct{}, e.cfg.MaxRequests)
	}
	perRequest := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if inFlight != nil {
			select {
			case inFlight <- struct{}{}:
				defer func() { <-inFlight }()
			default:
				http.Error(w, fmt.Sprintf("limit of %d parallel scrapes reached, try again later", e.cfg.MaxRequests),
					http.StatusServiceUnavailable)
				return
			}
		}
		ctx, cancel := e.scrapeContext(r)
		defer cancel()
		format, text := textFormat(r)
		if text && fast {
			e.serveText(w, r, ctx, format)
			return
		}
		// promhttp answers the format negotiated here (a text/plain of
		// another version included) when asked for exactly that.
		asked := r.Clone(r.Context())
		asked.Header.Set("Accept", string(format))
		promhttp.HandlerFor(e.Gatherer(ctx), opts).ServeHTTP(w, asked)
	})
	// Level 1 compresses the 39 MB scrape of 100 applications × 100
	// executors to 1.6 MB in ~55 ms of CPU (promhttp's default level takes
	// several times that), spread over all cores by parallelGzip.
	compress, err := gzhttp.NewWrapper(gzhttp.CompressionLevel(gzip.BestSpeed), gzhttp.Implementation(parallelGzipFactory))
	if err != nil {
		panic(err) // constant, valid options
	}
	return promhttp.InstrumentMetricHandler(e.self, compress(perRequest))
}

// newHandlerErrors is promhttp's own error counter, which promhttp then
// reuses (it adopts an already registered identical collector).
func newHandlerErrors() *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "promhttp_metric_handler_errors_total",
		Help: "Total number of internal errors encountered by the promhttp metric handler.",
	}, []string{"cause"})
	c.WithLabelValues("gathering")
	c.WithLabelValues("encoding")
	return c
}

// scrapeContext derives the collectors' deadline from Prometheus' timeout
// header less the configured offset; without the header only the request's
// own cancellation applies.
func (e *Exporter) scrapeContext(r *http.Request) (context.Context, context.CancelFunc) {
	v := r.Header.Get(scrapeTimeoutHeader)
	if v == "" {
		return context.WithCancel(r.Context())
	}
	seconds, err := strconv.ParseFloat(v, 64)
	if err != nil || seconds <= 0 {
		e.logger.Warn("ignoring bad scrape timeout header", "header", scrapeTimeoutHeader, "value", v)
		return context.WithCancel(r.Context())
	}
	timeout := time.Duration(seconds * float64(time.Second))
	if e.cfg.TimeoutOffset < timeout {
		timeout -= e.cfg.TimeoutOffset
	} else {
		e.logger.Warn("timeout offset is not below the scrape timeout; using the scrape timeout",
			"offset", e.cfg.TimeoutOffset, "scrape_timeout", timeout)
	}
	return context.WithTimeout(r.Context(), timeout)
}
