#!/usr/bin/env bash
# Refreshes the vendored uPlot (MIT) from the npm registry: packs the pinned
# version, checks the tarball against the pinned integrity hash, and keeps
# only the minified browser build, its CSS and the licence. To update, change
# VERSION and INTEGRITY (npm view uplot@NEW dist.integrity) and run this.
set -euo pipefail
VERSION=1.6.32
INTEGRITY='sha512-KIMVnG68zvu5XXUbC4LQEPnhwOxBuLyW1AHtpm6IKTXImkbLgkMy+jabjLgSLMasNuGGzQm/ep3tOkyTxpiQIw=='

here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
tarball="$(npm pack --silent "uplot@${VERSION}")"
got="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
if [ "$got" != "$INTEGRITY" ]; then
  echo "uplot@${VERSION}: integrity mismatch: got $got, want $INTEGRITY" >&2
  exit 1
fi
tar -xzf "$tarball"
cp package/dist/uPlot.iife.min.js package/dist/uPlot.min.css package/LICENSE "$here/"
echo "$VERSION" > "$here/VERSION"
echo "uplot@${VERSION} updated in $here"
