package stacks

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

var targetLabels = []string{"app_id", "executor_id", "framework"}

func withLabel(l string) []string {
	return sm.Labels(targetLabels, []string{l})
}

var (
	samples = sm.New("spark_thread_samples_total", sm.Counter, "{sample}", withLabel("state"),
		"Task-thread stack samples by classified state (running, shuffle_fetch, memory_wait, spill, io, lock, backpressure, other_wait), taken in the background.")
	blocked = sm.New("spark_executor_blocked_ratio", sm.Gauge, "1", targetLabels,
		"Share of task-thread samples not running over --stacks.window, computed in the background.")
	dumpDuration = sm.New("sparkglance_stacks_dump_duration_seconds", sm.Histogram, "s", targetLabels,
		"Time to take and parse one successful thread dump (attach or Spark REST).")
	dumpErrors = sm.New("sparkglance_stacks_errors_total", sm.Counter, "{error}", withLabel("reason"),
		"Thread dumps that failed, by reason (attach_disabled, not_jvm, process_gone, permission, timeout, rest_status, …).")
)

var (
	samplesDesc      = samples.Desc()
	blockedDesc      = blocked.Desc()
	dumpDurationDesc = dumpDuration.Desc()
	dumpErrorsDesc   = dumpErrors.Desc()
)

// Metrics lists every family of the stacks collector in documentation
// order.
func Metrics() []*sm.Metric {
	return []*sm.Metric{samples, blocked, dumpDuration, dumpErrors}
}

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
		l := id[:]
		if t.Durations.count > 0 || t.Totals.Total() > 0 {
			for _, st := range States() {
				ch <- prometheus.MustNewConstMetric(samplesDesc, prometheus.CounterValue, float64(t.Totals[st]), append(l, st.String())...)
			}
		}
		if r, ok := t.Window.BlockedRatio(); ok {
			ch <- prometheus.MustNewConstMetric(blockedDesc, prometheus.GaugeValue, r, l...)
		}
		if t.Durations.count > 0 {
			ch <- prometheus.MustNewConstHistogram(dumpDurationDesc, t.Durations.count, t.Durations.sum, t.Durations.cumulative(), l...)
		}
		for reason, n := range t.Errors {
			ch <- prometheus.MustNewConstMetric(dumpErrorsDesc, prometheus.CounterValue, float64(n), append(l, reason)...)
		}
	}
	return nil
}
