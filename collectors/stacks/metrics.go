package stacks

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sparkglance/sparkglance/exporter"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// The collector's families, defined in package metricschema.
var (
	samplesDesc      = sm.ThreadSamples.Desc()
	blockedDesc      = sm.ExecutorBlockedRatio.Desc()
	dumpDurationDesc = sm.StacksDumpDuration.Desc()
	dumpErrorsDesc   = sm.StacksErrors.Desc()
)

// Metrics lists every family of the stacks collector in documentation
// order.
func Metrics() []*sm.Metric { return sm.For(sm.CollectorStacks) }

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, m := range Metrics() {
		ch <- m.Desc()
	}
}

// Collect implements prometheus.Collector.
func (c *Collector) Collect(ch chan<- prometheus.Metric) { _ = c.Update(context.Background(), ch) }

// Update sends the metrics of the latest snapshot: no I/O, no sampling.
func (c *Collector) Update(ctx context.Context, ch chan<- prometheus.Metric) error {
	snap := c.snap.Load()
	if snap == nil {
		return nil
	}
	seen := map[[3]string]bool{}
	for _, t := range snap.Targets {
		if err := ctx.Err(); err != nil {
			return err
		}
		// An executor reached both by attach and by REST is exported once,
		// attach first (keys sort "pid" before "ui").
		id := [3]string{t.AppID, t.ExecutorID, t.Framework}
		if seen[id] {
			continue
		}
		seen[id] = true
		// Ids come from JVM command lines or a Spark UI, as bytes, and
		// MustNewConstMetric panics on invalid UTF-8.
		l := exporter.LabelValues(id[:])
		if t.Durations.count > 0 || t.Totals.Total() > 0 {
			for _, st := range States() {
				ch <- counter(samplesDesc, float64(t.Totals[st]), t.FirstSeen, append(l, st.String())...)
			}
		}
		if r, ok := t.Window.BlockedRatio(); ok {
			ch <- prometheus.MustNewConstMetric(blockedDesc, prometheus.GaugeValue, r, l...)
		}
		if t.Durations.count > 0 {
			ch <- prometheus.MustNewConstHistogram(dumpDurationDesc, t.Durations.count, t.Durations.sum, t.Durations.cumulative(), l...)
		}
		for reason, n := range t.Errors {
			ch <- counter(dumpErrorsDesc, float64(n), t.FirstSeen, append(l, exporter.LabelValue(reason))...)
		}
	}
	return nil
}

// counter is a counter series that began at created (the time sampling of
// its target began), which OTLP carries as its start time; zero: unknown.
func counter(d *prometheus.Desc, v float64, created time.Time, lvs ...string) prometheus.Metric {
	if created.IsZero() {
		return prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, lvs...)
	}
	return prometheus.MustNewConstMetricWithCreatedTimestamp(d, prometheus.CounterValue, v, created, lvs...)
}
