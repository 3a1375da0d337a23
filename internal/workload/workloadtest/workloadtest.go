// Package workloadtest gives tests the analysed runs of the generator's
// workload series (simulate.WorkloadRuns), so each test does not replay
// the logs its own way.
package workloadtest

import (
	"bytes"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/simulate"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// SeriesStart is when the series' first run starts.
var SeriesStart = time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC)

// SeriesKey is the workload key of the series' runs.
const SeriesKey = "nightly sales rollup <date>"

// OtherAppID and OtherName are the one run of a second, steady job that
// Reports adds after the series.
const (
	OtherAppID = "app-20261101020000-9999"
	OtherName  = "hourly clicks"
)

// Reports analyses the series of n runs (the third from last regressed,
// see simulate.WorkloadRuns), then one run of another job.
func Reports(tb testing.TB, n int) []analysis.Report {
	tb.Helper()
	runs, err := simulate.WorkloadRuns(n, SeriesStart)
	if err != nil {
		tb.Fatal(err)
	}
	other := runs[0]
	other.AppID, other.AppName = OtherAppID, OtherName
	var out []analysis.Report
	for _, r := range append(runs, other) {
		out = append(out, Analyze(tb, r.Config))
	}
	return out
}

// Analyze writes cfg's event log and analyses it line by line.
func Analyze(tb testing.TB, cfg simulate.Config) analysis.Report {
	tb.Helper()
	var log bytes.Buffer
	if _, err := simulate.Write(&log, cfg); err != nil {
		tb.Fatal(err)
	}
	app := analysis.New(analysis.DefaultConfig())
	for _, line := range bytes.Split(bytes.TrimSpace(log.Bytes()), []byte("\n")) {
		ev, err := sparkevent.DecodeLine(line)
		if err != nil {
			tb.Fatal(err)
		}
		if ev != nil {
			app.Add(ev)
		}
	}
	return app.Report()
}
