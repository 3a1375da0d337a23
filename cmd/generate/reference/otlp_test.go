package reference

import (
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/sparkglance/sparkglance/exporter/exportertest"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// Every collector's metrics reach the OpenTelemetry Collector's OTLP
// receiver with the unit of the metric schema, and counters with the time
// their series began.
func TestAllCollectorsOverOTLPCarryUnitsAndStartTimes(t *testing.T) {
	rcv := exportertest.StartOTLPReceiver(t, "grpc")
	before := time.Now()
	exportertest.Start(t, allCollectors(), append(allCollectorsArgs(t),
		"--otlp.endpoint="+rcv.Endpoint, "--otlp.insecure", "--otlp.interval=1s")...)
	want := map[string]string{
		// eventlog
		"spark_app_core_seconds_total": "s", "spark_executor_spill_bytes_total": "By", "spark_app_tasks_total": "{task}",
		"sparkglance_eventlog_bytes_read_total": "By",
		// spark, including a family named at run time
		"spark_executor_storage_memory_used_bytes": "By", "spark_target_up": "1", "spark_target_scrape_duration_seconds": "s",
		"spark_executor_max_tasks": "{task}", "spark_metrics_executor_metrics_jvm_heap_memory_bytes": "By",
		// process
		"spark_process_cpu_seconds_total": "s", "spark_process_cpu_load_ratio": "1", "spark_node_energy_joules_total": "J",
		"spark_node_cpu_tdp_watts": "W", "sparkglance_process_discovered": "{process}",
		// stacks (no JVM to attach to among the fixtures: its errors)
		"sparkglance_stacks_errors_total": "{error}",
		// the exporter's own
		"sparkglance_scrape_collector_success": "1", "sparkglance_otlp_exports_total": "{export}",
	}
	md := rcv.WaitForPush(t, 30*time.Second, func(md pmetric.Metrics) bool {
		ms := exportertest.PushedMetrics(md)
		for name := range want {
			if _, ok := ms[name]; !ok {
				return false
			}
		}
		return true
	})
	ms := exportertest.PushedMetrics(md)
	for name, unit := range want {
		if got := ms[name].Unit(); got != unit {
			t.Errorf("%s arrived with unit %q, want %q", name, got, unit)
		}
	}

	// Start times, read by hand: logApp's event log starts the application
	// at 1422981758277 ms; the Spark UI capture adds the driver of
	// otherApp at 2023-04-27T13:47:33.745GMT.
	for _, c := range []struct {
		name  string
		attrs map[string]string
		want  int64
	}{
		{"spark_app_core_seconds_total", map[string]string{"app_id": logApp}, 1422981758277},
		{"spark_executor_completed_tasks_total", map[string]string{"app_id": otherApp, "executor_id": "driver"}, 1682603253745},
		{"spark_executor_task_time_seconds_total", map[string]string{"app_id": otherApp, "executor_id": "driver", "category": "run"}, 1682603253745},
	} {
		if got := exportertest.StartOf(t, ms[c.name], c.attrs); got.UnixMilli() != c.want {
			t.Errorf("%s%v starts at %v, want %v", c.name, c.attrs, got, time.UnixMilli(c.want).UTC())
		}
	}

	// The node agent's counters began when it first saw the executor, or
	// sampled the node: after the exporter started, not at the epoch.
	pushed := time.Now()
	for _, c := range []struct {
		name  string
		attrs map[string]string
	}{
		{"spark_process_cpu_seconds_total", nil},
		{"spark_node_energy_joules_total", nil},
	} {
		if got := exportertest.StartOf(t, ms[c.name], c.attrs); got.Before(before.Truncate(time.Millisecond)) || got.After(pushed) {
			t.Errorf("%s starts at %v, want when the agent began it, within [%v, %v]", c.name, got, before, pushed)
		}
	}

	// Whatever else arrived carries its schema unit too, the stacks
	// collector's included, and only the attributes its family declares
	// (closed ones with their declared values).
	for name, m := range ms {
		def, ok := sm.Lookup(name)
		if !ok {
			continue
		}
		if m.Unit() != def.Unit {
			t.Errorf("%s arrived with unit %q, the schema says %q", name, m.Unit(), def.Unit)
		}
		for _, attrs := range attributesOf(m) {
			if err := def.CheckLabels(attrs); err != nil {
				t.Errorf("OTLP: %v", err)
				break
			}
		}
	}
}

// attributesOf lists the attributes of each of m's data points.
func attributesOf(m pmetric.Metric) []map[string]string {
	var maps []pcommon.Map
	switch m.Type() {
	case pmetric.MetricTypeGauge:
		for i := range m.Gauge().DataPoints().Len() {
			maps = append(maps, m.Gauge().DataPoints().At(i).Attributes())
		}
	case pmetric.MetricTypeSum:
		for i := range m.Sum().DataPoints().Len() {
			maps = append(maps, m.Sum().DataPoints().At(i).Attributes())
		}
	case pmetric.MetricTypeSummary:
		for i := range m.Summary().DataPoints().Len() {
			maps = append(maps, m.Summary().DataPoints().At(i).Attributes())
		}
	case pmetric.MetricTypeHistogram:
		for i := range m.Histogram().DataPoints().Len() {
			maps = append(maps, m.Histogram().DataPoints().At(i).Attributes())
		}
	}
	out := make([]map[string]string, len(maps))
	for i, a := range maps {
		out[i] = map[string]string{}
		for k, v := range a.All() {
			out[i][k] = v.AsString()
		}
	}
	return out
}
