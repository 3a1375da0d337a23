package exporter

import (
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/version"

	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// The build information lives in github.com/prometheus/common/version, which
// `make build` stamps with -ldflags -X (version, revision, branch, build user
// and date). `sparkglance --version` prints it and sparkglance_build_info
// carries it, so the two always agree.
func init() { fillUnstampedVersion(debug.ReadBuildInfo) }

// fillUnstampedVersion gives a binary built without the Makefile's -ldflags
// (a plain `go build`, `go run`, a test) values that say so instead of empty
// labels: the module version the go command recorded, or "(devel)", and
// "unknown" for what only the Makefile knows.
func fillUnstampedVersion(readBuildInfo func() (*debug.BuildInfo, bool)) {
	if version.Version == "" {
		version.Version = "(devel)"
		if bi, ok := readBuildInfo(); ok && bi.Main.Version != "" {
			version.Version = bi.Main.Version
		}
	}
	for _, v := range []*string{&version.Branch, &version.BuildUser, &version.BuildDate} {
		if *v == "" {
			*v = "unknown"
		}
	}
	if version.Revision == "" && version.GetRevision() == "" {
		version.Revision = "unknown"
	}
}

// newBuildInfo returns sparkglance_build_info: constant 1, labelled (in the
// schema's order) with the same values as client_golang's version collector
// and `sparkglance --version`.
func newBuildInfo() prometheus.Collector {
	m := prometheus.MustNewConstMetric(sm.BuildInfo.Desc(), prometheus.GaugeValue, 1,
		version.Version, version.GetRevision(), version.Branch, version.GoVersion, version.GoOS, version.GoArch, version.GetTags())
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
