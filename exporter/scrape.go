package exporter

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// The scrape's health per collector, defined in package metricschema.
var (
	scrapeDurationDesc = sm.ScrapeCollectorDuration.Desc()
	scrapeSuccessDesc  = sm.ScrapeCollectorSuccess.Desc()
)

// namedCollector is an enabled collector with the name its metrics carry.
type namedCollector struct {
	name      string
	collector Collector
}

// scrape is the prometheus.Collector for one gather: it runs every enabled
// collector concurrently under ctx, whose deadline is the scrape's.
type scrape struct {
	ctx        context.Context
	collectors []namedCollector
	logger     *slog.Logger
	mu         sync.Mutex
	// families are the FamilyCollectors' families of this scrape.
	families []Family
}

// collected returns the FamilyCollectors' families once Collect has run.
func (s *scrape) collected() []Family {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.families
}

// Describe sends nothing: collectors' metric sets vary (applications come
// and go), so the scrape is an unchecked collector.
func (s *scrape) Describe(chan<- *prometheus.Desc) {}

// Collect runs the collectors and always emits success and duration for each.
func (s *scrape) Collect(ch chan<- prometheus.Metric) {
	var wg sync.WaitGroup
	for _, nc := range s.collectors {
		wg.Go(func() { s.execute(nc, ch) })
	}
	wg.Wait()
}

func (s *scrape) execute(nc namedCollector, ch chan<- prometheus.Metric) {
	start := time.Now()
	var err error
	switch c := nc.collector.(type) {
	case familyCollector:
		var families []Family
		families, err = familiesWithin(s.ctx, c.FamilyCollector)
		s.mu.Lock()
		s.families = append(s.families, families...)
		s.mu.Unlock()
	case updaterCollector:
		var metrics []prometheus.Metric
		metrics, err = updateWithin(s.ctx, c.Updater)
		for _, m := range metrics {
			ch <- m
		}
	}
	took := time.Since(start)
	success := 1.0
	if err != nil {
		success = 0
		s.logger.Error("collector failed", "collector", nc.name, "duration_seconds", took.Seconds(), "err", err)
	} else {
		s.logger.Debug("collector succeeded", "collector", nc.name, "duration_seconds", took.Seconds())
	}
	ch <- prometheus.MustNewConstMetric(scrapeDurationDesc, prometheus.GaugeValue, took.Seconds(), nc.name)
	ch <- prometheus.MustNewConstMetric(scrapeSuccessDesc, prometheus.GaugeValue, success, nc.name)
}

// updateWithin runs c.Update and gathers what it sends. If ctx ends first it
// returns ctx's error and no metrics; the collector keeps a drained channel
// so that a late send neither blocks it nor reaches a finished scrape.
func updateWithin(ctx context.Context, c Updater) ([]prometheus.Metric, error) {
	sent := make(chan prometheus.Metric)
	result := make(chan error, 1)
	go func() {
		defer close(sent)
		result <- safeUpdate(ctx, c, sent)
	}()
	var metrics []prometheus.Metric
	for {
		select {
		case m, open := <-sent:
			if !open {
				return metrics, <-result
			}
			metrics = append(metrics, m)
		case <-ctx.Done():
			go func() {
				for range sent {
				}
			}()
			return nil, fmt.Errorf("scrape deadline: %w", context.Cause(ctx))
		}
	}
}

// familiesWithin is updateWithin for a FamilyCollector's Families.
func familiesWithin(ctx context.Context, c FamilyCollector) ([]Family, error) {
	type result struct {
		families []Family
		err      error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		defer func() {
			if p := recover(); p != nil {
				r = result{err: fmt.Errorf("collector panicked: %v", p)}
			}
			done <- r
		}()
		r.families, r.err = c.Families(ctx)
	}()
	select {
	case r := <-done:
		return r.families, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("scrape deadline: %w", context.Cause(ctx))
	}
}

// safeUpdate turns a collector's panic into an error, so that one broken
// collector cannot take the exporter down.
func safeUpdate(ctx context.Context, c Updater, ch chan<- prometheus.Metric) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("collector panicked: %v", p)
		}
	}()
	return c.Update(ctx, ch)
}
