package spark

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sparkglance/sparkglance/exporter"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// Options configure a [Collector]; the zero values of the numbers take the
// flag defaults.
type Options struct {
	URLs        []string // --spark.url
	TargetsFile string   // --spark.targets-file (Prometheus file_sd, JSON or YAML)
	// BackgroundInterval > 0 reads targets on this period instead of at
	// scrape time; scrapes then serve each target's last good read.
	BackgroundInterval time.Duration
	Timeout            time.Duration // per target read, capped by the scrape deadline
	MaxBodyBytes       int64
	MaxApps            int    // applications kept per target, newest first
	MetricsPath        string // metrics endpoint under a UI target ("metrics/json")
	// Claims are the applications another collector exports (the event-log
	// collector's, handed over by the command); nil claims nothing.
	Claims AppClaims
}

const (
	defaultTimeout      = 10 * time.Second
	defaultMaxBodyBytes = 16 << 20
	defaultMaxApps      = 100
	defaultMetricsPath  = "metrics/json"
)

// Collector reads Spark drivers, History Servers and metrics servlets.
type Collector struct {
	opts    Options
	targets *targetSet
	reader  *reader
	logger  *slog.Logger

	mu     sync.Mutex
	errs   map[string]map[string]float64 // target → reason → failed reads
	latest map[string]targetResult       // background: last read per target
	good   map[string]targetResult       // background: last good read per target
	ready  chan struct{}                 // closed after the first background round
	// afterRound, if a test sets it before Run, is called after each
	// background round's reads are stored, so that the test can wait for
	// a round instead of sleeping.
	afterRound func()
}

// New checks opts and builds a collector.
func New(opts Options, logger *slog.Logger) (*Collector, error) {
	if len(opts.URLs) == 0 && opts.TargetsFile == "" {
		return nil, errors.New("no Spark targets: set --spark.url or --spark.targets-file")
	}
	if opts.Timeout <= 0 {
		opts.Timeout = defaultTimeout
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = defaultMaxBodyBytes
	}
	if opts.MaxApps <= 0 {
		opts.MaxApps = defaultMaxApps
	}
	if opts.MetricsPath == "" {
		opts.MetricsPath = defaultMetricsPath
	}
	if opts.BackgroundInterval < 0 {
		return nil, fmt.Errorf("--spark.background-interval %v is negative", opts.BackgroundInterval)
	}
	ts, err := newTargetSet(opts.URLs, opts.TargetsFile, logger)
	if err != nil {
		return nil, err
	}
	return &Collector{
		opts:    opts,
		targets: ts,
		reader: &reader{client: newClient(opts.MaxBodyBytes), maxApps: opts.MaxApps,
			metricsPath: opts.MetricsPath, timeout: opts.Timeout, logger: logger},
		logger: logger,
		errs:   map[string]map[string]float64{},
		latest: map[string]targetResult{},
		good:   map[string]targetResult{},
		ready:  make(chan struct{}),
	}, nil
}

// Update reads every target now (or, in background mode, takes the last
// reads) and sends their metrics.
func (c *Collector) Update(ctx context.Context, ch chan<- prometheus.Metric) error {
	targets := c.targets.current()
	var status, data []targetResult
	if c.opts.BackgroundInterval > 0 {
		status, data = c.lastReads(targets)
	} else {
		status = c.readAll(ctx, targets)
		data = status
	}
	claims := c.opts.Claims
	if claims == nil {
		claims = noClaims{}
	}
	e := newEmitter(ch, claims, c.logger)
	apps := newAppResolver(data)
	for _, res := range data {
		e.emitREST(res)
		e.emitSamples(res, apps)
	}
	c.emitHealth(ch, status)
	return nil
}

// Run is the background model: with --spark.background-interval it reads
// every target on that period, each read bounded by the interval.
func (c *Collector) Run(ctx context.Context) error {
	if c.opts.BackgroundInterval <= 0 {
		return nil
	}
	ticker := time.NewTicker(c.opts.BackgroundInterval)
	defer ticker.Stop()
	for {
		round, cancel := context.WithTimeout(ctx, c.opts.BackgroundInterval)
		results := c.readAll(round, c.targets.current())
		cancel()
		c.mu.Lock()
		for _, r := range results {
			c.latest[r.name] = r
			if r.fault == nil {
				c.good[r.name] = r
			}
		}
		c.mu.Unlock()
		select {
		case <-c.ready:
		default:
			close(c.ready)
		}
		if c.afterRound != nil {
			c.afterRound()
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
	}
}

// Ready is nil at once in scrape-time mode, and after the first round of
// reads in background mode.
func (c *Collector) Ready() error {
	if c.opts.BackgroundInterval <= 0 {
		return nil
	}
	select {
	case <-c.ready:
		return nil
	default:
		return errors.New("first read of the Spark targets not finished")
	}
}

// readAll reads targets concurrently, counts and logs each failure once.
func (c *Collector) readAll(ctx context.Context, targets []target) []targetResult {
	results := make([]targetResult, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		wg.Go(func() { results[i] = c.reader.read(ctx, t) })
	}
	wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range results {
		counts := c.errs[r.name]
		if counts == nil {
			counts = map[string]float64{}
			c.errs[r.name] = counts
		}
		if r.fault != nil {
			counts[r.fault.reason]++
			c.logger.Warn("Spark target read failed", "target", r.name, "reason", r.fault.reason,
				"duration_seconds", r.duration.Seconds(), "err", r.fault)
		}
	}
	return results
}

// lastReads returns, for the current targets, the last read (its health)
// and the last good read (its data).
func (c *Collector) lastReads(targets []target) (status, data []targetResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range targets {
		if r, ok := c.latest[t.name()]; ok {
			status = append(status, r)
		}
		if r, ok := c.good[t.name()]; ok {
			data = append(data, r)
		}
	}
	return status, data
}

func (c *Collector) emitHealth(ch chan<- prometheus.Metric, status []targetResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range status {
		name := exporter.LabelValue(r.name) // a targets file is read as it is
		ch <- prometheus.MustNewConstMetric(targetUp.Desc(), prometheus.GaugeValue, boolValue(r.fault == nil), name)
		ch <- prometheus.MustNewConstMetric(targetDuration.Desc(), prometheus.GaugeValue, r.duration.Seconds(), name)
		for _, reason := range sm.TargetErrorLabel.Values {
			ch <- prometheus.MustNewConstMetric(targetErrors.Desc(), prometheus.CounterValue, c.errs[r.name][string(reason)], name, string(reason))
		}
	}
	if c.opts.TargetsFile != "" {
		ch <- prometheus.MustNewConstMetric(targetsFile.Desc(), prometheus.GaugeValue, boolValue(c.targets.fileHealthy()))
	}
}
