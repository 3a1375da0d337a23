package eventlog

import (
	"runtime"
	"testing"

	"github.com/sparkglance/sparkglance/internal/workload"
	"github.com/sparkglance/sparkglance/internal/workload/workloadtest"
)

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
	base := workloadtest.Summaries(b, 10)
	for b.Loop() {
		b.StopTimer()
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		ws := newWorkloads(workload.HistoryOptions{}, nil)
		b.StartTimer()
		for s := range workloadtest.Fleet(base, workloads, perWorkload) {
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
