package process

import (
	"context"
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

var processLabels = []string{"app_id", "executor_id", "role", "framework", "pod_uid", "container_id"}

var (
	cpuSecondsDesc = prometheus.NewDesc("spark_process_cpu_seconds_total",
		"CPU time (user+system, reaped children included) of the Spark/Flink JVMs of an executor, sampled in the background.",
		processLabels, nil)
	cpuLoadDesc = prometheus.NewDesc("spark_process_cpu_load_ratio",
		"Share of host CPU the executor's JVMs used over the last sampling period (denominator: --energy.load-denominator).",
		processLabels, nil)
	executorEnergyDesc = prometheus.NewDesc("spark_executor_energy_joules_total",
		"Energy attributed to the executor: RAPL by share of busy CPU, or TDP × period × load; sampled in the background.",
		append(processLabels[:len(processLabels):len(processLabels)], "source"), nil)
	nodeEnergyDesc = prometheus.NewDesc("spark_node_energy_joules_total",
		"Energy of the node per zone (RAPL package/dram, plus \"idle\": the part not attributed to busy CPU; or the TDP model), sampled in the background.",
		[]string{"source", "zone"}, nil)
	tdpDesc = prometheus.NewDesc("spark_node_cpu_tdp_watts",
		"TDP the TDP model charges for the whole node, and where it came from.",
		[]string{"cpu_model", "source"}, nil)
	discoveredDesc = prometheus.NewDesc("sparkglance_process_discovered",
		"Spark/Flink JVMs currently tracked on this node.",
		[]string{"framework", "role"}, nil)
)

// Collector is the Prometheus view of an Agent: it reads the latest
// snapshot and builds const metrics, with no I/O of its own.
type Collector struct {
	Agent *Agent
}

// NewCollector wraps an agent.
func NewCollector(a *Agent) *Collector { return &Collector{Agent: a} }

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{cpuSecondsDesc, cpuLoadDesc, executorEnergyDesc, nodeEnergyDesc, tdpDesc, discoveredDesc} {
		ch <- d
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
	send := func(desc *prometheus.Desc, vt prometheus.ValueType, v float64, labels ...string) {
		m, err := prometheus.NewConstMetric(desc, vt, v, labels...)
		if err != nil {
			m = prometheus.NewInvalidMetric(desc, err)
		}
		ch <- m
	}
	send(tdpDesc, prometheus.GaugeValue, snap.TDP.Watts, snap.TDP.CPUModel, snap.TDP.Source)
	for _, d := range snap.Discovered {
		send(discoveredDesc, prometheus.GaugeValue, float64(d.Count), d.Framework, d.Role)
	}
	for _, n := range snap.Node {
		send(nodeEnergyDesc, prometheus.CounterValue, n.Joules, n.Source, n.Zone)
	}
	for _, s := range snap.Series {
		if err := ctx.Err(); err != nil {
			return err
		}
		l := []string{s.AppID, s.ExecutorID, s.Role, s.Framework, s.PodUID, s.ContainerID}
		send(cpuSecondsDesc, prometheus.CounterValue, s.CPUSeconds, l...)
		send(cpuLoadDesc, prometheus.GaugeValue, s.Load, l...)
		for source, j := range s.EnergyJoules {
			send(executorEnergyDesc, prometheus.CounterValue, j, append(l, source)...)
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
