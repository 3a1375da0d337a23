package exporter

import (
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
	versioncollector "github.com/prometheus/client_golang/prometheus/collectors/version"
	"github.com/prometheus/common/version"
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

// newBuildInfo returns sparkglance_build_info: constant 1, labelled by
// version, revision, branch, Go version, OS, architecture and build tags.
func newBuildInfo() prometheus.Collector { return versioncollector.NewCollector(namespace) }
