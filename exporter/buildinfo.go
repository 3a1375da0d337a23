package exporter

import (
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
)

// newBuildInfo returns the sparkglance_build_info gauge, always 1, labelled
// with what was built.
func newBuildInfo(version string) prometheus.Collector {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: namespace,
		Name:      "build_info",
		Help:      "sparkglance: constant 1, labelled by the version, VCS revision and Go toolchain it was built from.",
		ConstLabels: prometheus.Labels{
			"version":   version,
			"revision":  vcsRevision(),
			"goversion": runtime.Version(),
			"goos":      runtime.GOOS,
			"goarch":    runtime.GOARCH,
		},
	})
	g.Set(1)
	return g
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
