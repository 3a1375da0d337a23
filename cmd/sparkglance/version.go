package main

import (
	"github.com/prometheus/common/version"

	// The exporter fills what -ldflags did not stamp (see exporter/buildinfo.go);
	// importing it here makes --version show the same values as the scrape.
	_ "github.com/sparkglance/sparkglance/exporter"
)

// versionString is what `sparkglance --version` prints: Prometheus' usual
// block of version, branch, revision, build user and date, Go version and
// platform, stamped by `make build`.
func versionString() string { return version.Print("sparkglance") }
