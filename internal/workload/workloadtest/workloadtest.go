// Package workloadtest gives tests the analysed runs of the generator's
// workload series (simulate.WorkloadRuns), so each test does not replay
// the logs its own way.
package workloadtest

import (
	"bytes"
	"fmt"
	"iter"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/simulate"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
	"github.com/sparkglance/sparkglance/internal/workload"
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

// Summaries are the summaries of the series' first n runs.
func Summaries(tb testing.TB, n int) []workload.Summary {
	tb.Helper()
	var out []workload.Summary
	for _, rep := range Reports(tb, n)[:n] {
		out = append(out, workload.Summarize(&rep))
	}
	return out
}

// Fleet yields perWorkload daily runs of each of workloads jobs ("job 000"
// on), copied from base in turn with their own ids, days and details: the
// history a serve of a large History Server directory keeps.
func Fleet(base []workload.Summary, workloads, perWorkload int) iter.Seq[workload.Summary] {
	return func(yield func(workload.Summary) bool) {
		for i := range workloads * perWorkload {
			w, run := i%workloads, i/workloads
			s := base[run%len(base)]
			s.Workload = fmt.Sprintf("job %03d", w)
			s.AppID = fmt.Sprintf("app-%03d-%04d", w, run)
			s.Start += int64(run) * 24 * 3600 * 1000
			s.End += int64(run) * 24 * 3600 * 1000
			s.Properties = maps.Clone(s.Properties)
			s.Stages = slices.Clone(s.Stages)
			if !yield(s) {
				return
			}
		}
	}
}
