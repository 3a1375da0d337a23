package exporter

import (
	"runtime/debug"
	"time"

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
// (a plain `go build`, `go run`, `go install`, a test) values that say what
// it is instead of empty labels: the module version the go command recorded
// (`go install module@v1.2.3`), else one made from the commit the go command
// stamped (vcs.revision and vcs.time, as Go's pseudo-versions are), and the
// commit's time as the build date. Only a build without either says
// "(devel)": no git, -buildvcs=false, or a plain `go run`, which the go
// command stamps only with -buildvcs=true. Branch and build user only the
// Makefile knows, so they say "unknown".
func fillUnstampedVersion(readBuildInfo func() (*debug.BuildInfo, bool)) {
	var rev, modified string
	var commitTime time.Time
	bi, ok := readBuildInfo()
	if ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value
			case "vcs.time":
				commitTime, _ = time.Parse(time.RFC3339, s.Value)
			}
		}
	}
	if version.Version == "" {
		switch {
		case ok && bi.Main.Version != "" && bi.Main.Version != "(devel)":
			version.Version = bi.Main.Version
		case rev != "" && !commitTime.IsZero():
			version.Version = "v0.0.0-" + commitTime.UTC().Format("20060102150405") + "-" + rev[:min(12, len(rev))]
			if modified == "true" {
				version.Version += "+dirty"
			}
		default:
			version.Version = "(devel)"
		}
	}
	if version.BuildDate == "" && !commitTime.IsZero() {
		// The Makefile's format (date -u +%Y%m%d-%H:%M:%S).
		version.BuildDate = commitTime.UTC().Format("20060102-15:04:05")
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
