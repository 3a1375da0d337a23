package exporter

import (
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"

	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// newBuildInfo returns the sparkglance_build_info gauge, always 1, labelled
// with what was built (labels in the schema's order).
func newBuildInfo(version string) prometheus.Collector {
	m := prometheus.MustNewConstMetric(sm.BuildInfo.Desc(), prometheus.GaugeValue, 1,
		version, vcsRevision(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return constCollector{m}
}

// constCollector always collects the same metrics.
type constCollector []prometheus.Metric

func (c constCollector) Describe(ch chan<- *prometheus.Desc) { prometheus.DescribeByCollect(c, ch) }

func (c constCollector) Collect(ch chan<- prometheus.Metric) {
	for _, m := range c {
		ch <- m
	}
}

// vcsRevision is the commit the binary was built from, as the go command
// stamps it, or "unknown" (e.g. in tests).
func vcsRevision() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && s.Value != "" {
				return s.Value
			}
		}
	}
	return "unknown"
}
