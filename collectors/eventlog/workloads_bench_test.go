package eventlog

import (
	"bytes"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/simulate"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
	"github.com/sparkglance/sparkglance/internal/workload"
)

// seriesSummaries are the summaries of the generator's workload series.
func seriesSummaries(b testing.TB, n int) []workload.Summary {
	b.Helper()
	runs, err := simulate.WorkloadRuns(n, time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC))
	if err != nil {
		b.Fatal(err)
	}
	out := make([]workload.Summary, n)
	for i, r := range runs {
		var log bytes.Buffer
		if _, err := simulate.Write(&log, r.Config); err != nil {
			b.Fatal(err)
		}
		app := analysis.New(analysis.DefaultConfig())
		for _, line := range bytes.Split(bytes.TrimSpace(log.Bytes()), []byte("\n")) {
			ev, err := sparkevent.DecodeLine(line)
			if err != nil {
				b.Fatal(err)
			}
			if ev != nil {
				app.Add(ev)
			}
		}
		rep := app.Report()
		out[i] = workload.Summarize(&rep)
	}
	return out
}

// BenchmarkWorkloadHistoryCatchUp is serve's history catching up on a
// History Server directory of 10,000 finished runs of 500 workloads (20
// nightly runs each, in the order a parallel catch-up may bring them):
// every run's summary is added and counted, then one scrape builds the
// spark_workload_* series. Each run is a summary of a real analysis of the
// generator's series, with its own properties and stages (copies, as a
// fresh analysis would make them). heap-MiB is what the history holds once
// caught up (after a GC), the analyses long gone.
func BenchmarkWorkloadHistoryCatchUp(b *testing.B) {
	const workloads, perWorkload = 500, 20
	base := seriesSummaries(b, 10)
	for b.Loop() {
		b.StopTimer()
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		ws := newWorkloads(workload.HistoryOptions{}, nil)
		b.StartTimer()
		for i := range workloads * perWorkload {
			w, run := i%workloads, i/workloads
			s := base[run%len(base)]
			s.Workload = fmt.Sprintf("job %03d", w)
			s.AppID = fmt.Sprintf("app-%03d-%04d", w, run)
			s.Start += int64(run) * 24 * 3600 * 1000
			s.End += int64(run) * 24 * 3600 * 1000
			s.Properties = maps.Clone(s.Properties)
			s.Stages = slices.Clone(s.Stages)
			var dropped bool
			ws.add(s, &dropped)
		}
		if _, err := ws.families(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "heap-MiB")
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(workloads*perWorkload), "heap-B/run")
		if n := len(ws.hist.Workloads()); n != workloads {
			b.Fatalf("%d workloads kept", n)
		}
		runtime.KeepAlive(ws)
		b.StartTimer()
	}
}
