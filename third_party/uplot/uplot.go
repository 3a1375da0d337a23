// Package uplot embeds the vendored uPlot charting library (MIT, see
// LICENSE; version in VERSION, refreshed by update.sh) so that pages built
// from it need no network when they are viewed.
package uplot

import _ "embed"

// JS is uPlot's minified browser build (a global named uPlot).
//
//go:embed uPlot.iife.min.js
var JS string

// CSS is uPlot's stylesheet.
//
//go:embed uPlot.min.css
var CSS string

// License is uPlot's licence text, shipped inside every page that embeds it.
//
//go:embed LICENSE
var License string
