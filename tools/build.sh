#!/usr/bin/env bash
# Builds the test-only tools pinned in tools/go.mod into the tools directory
# the tests look in ($SPARKGLANCE_TOOLS, else ~/.cache/sparkglance-tools;
# objstoretest.ToolsDir):
#   prometheus-<version>/prometheus, prometheus-<version>/promtool  (Prometheus 3)
#   otelcol-<version>/otelcol                                       (OpenTelemetry Collector)
# Each directory carries a stamp of the inputs it was built from (go.mod,
# go.sum, the Go version, and the collector's main.go for the collector), so
# a second run builds nothing until the pin changes. Ten minutes and more of
# CPU on a fresh two-core machine; run niced by .ci/run and make e2e.
set -euo pipefail
cd "$(dirname "$0")"

tools_dir=${SPARKGLANCE_TOOLS:-$HOME/.cache/sparkglance-tools}
export GOFLAGS=-mod=readonly

version_of() { go list -m -f '{{.Version}}' "$1"; }
prom_version=$(version_of github.com/prometheus/prometheus)
otelcol_version=$(version_of go.opentelemetry.io/collector/otelcol)
prom_stamp=$( { cat go.mod go.sum; go version; } | sha256sum | cut -d' ' -f1)
otelcol_stamp=$( { cat go.mod go.sum otelcol/main.go; go version; } | sha256sum | cut -d' ' -f1)

# Prometheus's module v0.MNN.P is Prometheus M.NN.P (v0.316.0 is 3.16.0).
prom_release() {
  local v=${1#v0.}
  local minor_patch=${v:1}
  echo "${v:0:1}.${minor_patch#0}"
}

# up_to_date DIR STAMP: DIR was built from the inputs of STAMP.
up_to_date() { [ -f "$1/.stamp" ] && [ "$(cat "$1/.stamp")" = "$2" ]; }

prom_dir=$tools_dir/prometheus-$prom_version
if up_to_date "$prom_dir" "$prom_stamp"; then
  echo ">> Prometheus $(prom_release "$prom_version") already built in $prom_dir"
else
  echo ">> building Prometheus $(prom_release "$prom_version") and promtool into $prom_dir (minutes on a fresh machine)"
  mkdir -p "$prom_dir"
  rm -f "$prom_dir/.stamp"
  # Without the builtinassets tag Prometheus serves no web UI, only its API:
  # all the tests use. remove_all_sd leaves out the cloud service
  # discoveries and their cloud SDKs (static and file configs stay).
  ldflags="-X github.com/prometheus/common/version.Version=$(prom_release "$prom_version") -X github.com/prometheus/common/version.Branch=module -X github.com/prometheus/common/version.Revision=$prom_version"
  go build -trimpath -tags remove_all_sd -ldflags "$ldflags" -o "$prom_dir/" github.com/prometheus/prometheus/cmd/prometheus github.com/prometheus/prometheus/cmd/promtool
  echo "$prom_stamp" > "$prom_dir/.stamp"
fi

otelcol_dir=$tools_dir/otelcol-$otelcol_version
if up_to_date "$otelcol_dir" "$otelcol_stamp"; then
  echo ">> OpenTelemetry Collector $otelcol_version already built in $otelcol_dir"
else
  echo ">> building the OpenTelemetry Collector $otelcol_version into $otelcol_dir (minutes on a fresh machine)"
  mkdir -p "$otelcol_dir"
  rm -f "$otelcol_dir/.stamp"
  go build -trimpath -o "$otelcol_dir/otelcol" ./otelcol
  echo "$otelcol_stamp" > "$otelcol_dir/.stamp"
fi
