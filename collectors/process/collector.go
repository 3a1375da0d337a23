package process

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sparkglance/sparkglance/exporter"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// The collector's families, defined in package metricschema.
var (
	cpuSecondsDesc     = sm.ProcessCPUSeconds.Desc()
	cpuLoadDesc        = sm.ProcessCPULoad.Desc()
	executorEnergyDesc = sm.ExecutorEnergy.Desc()
	nodeEnergyDesc     = sm.NodeEnergy.Desc()
	tdpDesc            = sm.NodeCPUTDP.Desc()
	discoveredDesc     = sm.ProcessDiscovered.Desc()
)

// Metrics lists every family of the process collector in documentation
// order.
func Metrics() []*sm.Metric { return sm.For(sm.CollectorProcess) }

// Collector is the Prometheus view of an Agent: it reads the latest
// snapshot and builds const metrics, with no I/O of its own.
type Collector struct {
	Agent *Agent
}

// NewCollector wraps an agent.
func NewCollector(a *Agent) *Collector { return &Collector{Agent: a} }

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, m := range Metrics() {
		ch <- m.Desc()
	}
}

// Collect implements prometheus.Collector.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	_ = c.Update(context.Background(), ch)
}

// Update sends the metrics of the latest snapshot; it stops early when ctx
// is done.
func (c *Collector) Update(ctx context.Context, ch chan<- prometheus.Metric) error {
	snap := c.Agent.Snapshot()
	// since is a counter's created timestamp, when the agent began it (the
	// OTLP push's start time); gauges pass the zero time.
	send := func(desc *prometheus.Desc, vt prometheus.ValueType, since time.Time, v float64, labels ...string) {
		// Ids parsed from JVM command lines, cgroup paths and the CPU model
		// are bytes as the kernel holds them, not necessarily UTF-8.
		var m prometheus.Metric
		var err error
		if vt == prometheus.CounterValue && !since.IsZero() {
			m, err = prometheus.NewConstMetricWithCreatedTimestamp(desc, vt, v, since, exporter.LabelValues(labels)...)
		} else {
			m, err = prometheus.NewConstMetric(desc, vt, v, exporter.LabelValues(labels)...)
		}
		if err != nil {
			m = prometheus.NewInvalidMetric(desc, err)
		}
		ch <- m
	}
	send(tdpDesc, prometheus.GaugeValue, time.Time{}, snap.TDP.Watts, snap.TDP.CPUModel, snap.TDP.Source)
	for _, d := range snap.Discovered {
		send(discoveredDesc, prometheus.GaugeValue, time.Time{}, float64(d.Count), d.Framework, d.Role)
	}
	for _, n := range snap.Node {
		send(nodeEnergyDesc, prometheus.CounterValue, snap.Since, n.Joules, n.Source, n.Zone)
	}
	for _, s := range snap.Series {
		if err := ctx.Err(); err != nil {
			return err
		}
		l := []string{s.AppID, s.ExecutorID, s.Role, s.Framework, s.PodUID, s.ContainerID}
		send(cpuSecondsDesc, prometheus.CounterValue, s.Since, s.CPUSeconds, l...)
		send(cpuLoadDesc, prometheus.GaugeValue, time.Time{}, s.Load, l...)
		for source, j := range s.EnergyJoules {
			send(executorEnergyDesc, prometheus.CounterValue, s.Since, j, append(l, source)...)
		}
	}
	return nil
}

// Ready reports an error until the first sample has run.
func (c *Collector) Ready() error {
	if !c.Agent.Snapshot().Sampled {
		return errors.New("process: no sample yet")
	}
	return nil
}

// Run runs the agent's loop at Options.Interval until ctx is done.
func (c *Collector) Run(ctx context.Context) error {
	return c.Agent.Run(ctx, 0)
}
