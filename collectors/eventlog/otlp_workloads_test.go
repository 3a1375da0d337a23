package eventlog

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/exporter/exportertest"
)

// OTLP carries the spark_workload_* series a scrape shows, with their
// values: over the generator's eight runs (the sixth regressed, the
// latest finished one judged against a baseline), the runs counted, the
// ratios, regression flags and baselines of the latest finished run.
func TestOTLPCarriesWorkloadSeries(t *testing.T) {
	t.Parallel() // waits on Prometheus or the OTLP pushes far more than it computes
	paths := writeWorkloadRuns(t, 8)
	rcv := exportertest.StartOTLPReceiver(t, "http/protobuf")
	base, w := startExporter(t, testConfig(filepath.Dir(paths[0])),
		"--otlp.endpoint="+rcv.Endpoint, "--otlp.protocol=http/protobuf", "--otlp.insecure", "--otlp.interval=2s")
	waitReady(t, w)
	scraped := map[string]float64{}
	families := map[string]bool{}
	for k, v := range scrapedSparkSeries(t, httpGet(t, base+"/metrics")) {
		if strings.HasPrefix(k, "spark_workload_") {
			scraped[k] = v
			families[k[:strings.IndexAny(k, "{ ")]] = true
		}
	}
	for _, name := range []string{"spark_workload_runs_total", "spark_workload_last_run_ratio", "spark_workload_regression",
		"spark_workload_baseline", "spark_workload_last_run_value", "spark_workload_last_run_start_time_seconds"} {
		if !families[name] {
			t.Errorf("%s not scraped (scraped %v)", name, families)
		}
	}
	var received map[string]float64
	waitFor(t, 15*time.Second, "a push with every workload series", func() bool {
		received = latestPushed(rcv.Sink)
		for k := range scraped {
			if _, ok := received[k]; !ok {
				return false
			}
		}
		return true
	})
	for k, v := range scraped {
		if received[k] != v {
			t.Errorf("%s: scraped %v, pushed %v", k, v, received[k])
		}
	}
}
