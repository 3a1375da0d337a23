package eventlog

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/sparkglance/sparkglance/exporter/exportertest"
)

// The OpenTelemetry Collector's own OTLP receiver, in process, gets over
// gRPC and over HTTP exactly the spark_* series a scrape shows.
func TestOTLPReceiverGetsScrapedSeries(t *testing.T) {
	t.Parallel() // waits on Prometheus or the OTLP pushes far more than it computes
	for _, protocol := range []string{"grpc", "http/protobuf"} {
		t.Run(strings.ReplaceAll(protocol, "/", "_"), func(t *testing.T) {
			dir, _ := mainSetLogs(t)
			rcv := exportertest.StartOTLPReceiver(t, protocol)
			endpoint, sink := rcv.Endpoint, rcv.Sink
			exporterStart := time.Now()
			base, w := startExporter(t, testConfig(dir),
				"--otlp.endpoint="+endpoint, "--otlp.protocol="+protocol, "--otlp.insecure", "--otlp.interval=5s")
			waitReady(t, w)
			scraped := scrapedSparkSeries(t, httpGet(t, base+"/metrics"))
			if len(scraped) < 100 {
				t.Fatalf("only %d spark_* series scraped", len(scraped))
			}
			var received map[string]float64
			// A push is bounded by the interval: with 2 s, one push of these
			// ~2,000 series arrived in 15 s on a loaded machine under -race.
			rcv.WaitForPush(t, 60*time.Second, func(pmetric.Metrics) bool { // a push with every scraped series
				received = latestPushed(sink)
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
			pushedSpark := 0
			for k := range received {
				if strings.HasPrefix(k, "spark_") {
					pushedSpark++
					if _, ok := scraped[k]; !ok {
						t.Errorf("pushed but not scraped: %s", k)
					}
				}
			}
			t.Logf("%s: %d spark_* series scraped, %d pushed", protocol, len(scraped), pushedSpark)
			all := sink.AllMetrics()
			checkUnitsAndStartTimes(t, all[len(all)-1], exporterStart)
		})
	}
}

// checkUnitsAndStartTimes checks a push as received: units from the metric
// schema, and counters starting when their series began. The times are
// those of app-20161116163331-0000's log, read by hand: the application
// started at 1479335609916 ms, executor 3 was added at 1479335615320 ms.
func checkUnitsAndStartTimes(t *testing.T, md pmetric.Metrics, exporterStart time.Time) {
	t.Helper()
	ms := map[string]pmetric.Metric{}
	for i := range md.ResourceMetrics().Len() {
		sms := md.ResourceMetrics().At(i).ScopeMetrics()
		for j := range sms.Len() {
			for k := range sms.At(j).Metrics().Len() {
				m := sms.At(j).Metrics().At(k)
				ms[m.Name()] = m
			}
		}
	}
	for name, want := range map[string]string{
		"spark_app_info": "1", "spark_app_start_time_seconds": "s", "spark_app_core_seconds_total": "s",
		"spark_app_tasks_total": "{task}", "spark_executor_spill_bytes_total": "By", "spark_app_cores": "{core}",
		"spark_sql_execution_duration_seconds": "s", "sparkglance_eventlog_bytes_read_total": "By",
		"sparkglance_eventlog_errors_total": "{error}", "sparkglance_eventlog_apps": "{application}",
		"spark_workload_runs_total": "{run}", "spark_workload_last_run_value": "1", "spark_workload_last_run_start_time_seconds": "s",
	} {
		if m, ok := ms[name]; !ok || m.Unit() != want {
			t.Errorf("%s arrived with unit %q (present: %v), want %q", name, m.Unit(), ok, want)
		}
	}

	const app, appStartMs, exec, execAddedMs = "app-20161116163331-0000", 1479335609916, "3", 1479335615320
	startOf := func(name string, attrs map[string]string) time.Time {
		t.Helper()
		m, ok := ms[name]
		if !ok {
			t.Fatalf("%s did not arrive", name)
		}
		return exportertest.StartOf(t, m, attrs)
	}
	for _, c := range []struct {
		name  string
		attrs map[string]string
		want  int64
	}{
		{"spark_app_core_seconds_total", map[string]string{"app_id": app}, appStartMs},
		{"spark_app_tasks_total", map[string]string{"app_id": app, "status": "success"}, appStartMs},
		{"spark_executor_task_time_seconds_total", map[string]string{"app_id": app, "executor_id": exec, "category": "cpu"}, execAddedMs},
		{"spark_executor_spill_bytes_total", map[string]string{"app_id": app, "executor_id": exec, "medium": "memory"}, execAddedMs},
	} {
		if got := startOf(c.name, c.attrs); got.UnixMilli() != c.want {
			t.Errorf("%s%v starts at %v, want %v", c.name, c.attrs, got, time.UnixMilli(c.want))
		}
	}
	// The collector's own counters began with it, after the test began.
	if got := startOf("sparkglance_eventlog_events_total", nil); got.Before(exporterStart) {
		t.Errorf("sparkglance_eventlog_events_total starts at %v, before the exporter (%v)", got, exporterStart)
	}
}

// seriesKey is name{label="value",…} with labels sorted.
func seriesKey(name string, labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%q", k, labels[k])
	}
	return name + "{" + strings.Join(parts, ",") + "}"
}

func scrapedSparkSeries(t *testing.T, text string) map[string]float64 {
	t.Helper()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := parser.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for name, mf := range mfs {
		if !strings.HasPrefix(name, "spark_") {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, lp := range m.GetLabel() {
				labels[lp.GetName()] = lp.GetValue()
			}
			if s := m.GetSummary(); s != nil { // OTLP carries summaries whole: compare their counts
				out[seriesKey(name+"_count", labels)] = float64(s.GetSampleCount())
				continue
			}
			out[seriesKey(name, labels)] = m.GetGauge().GetValue() + m.GetCounter().GetValue()
		}
	}
	return out
}

// latestPushed flattens the most recent push the sink holds.
func latestPushed(sink *consumertest.MetricsSink) map[string]float64 {
	all := sink.AllMetrics()
	out := map[string]float64{}
	if len(all) == 0 {
		return out
	}
	md := all[len(all)-1]
	for i := range md.ResourceMetrics().Len() {
		sms := md.ResourceMetrics().At(i).ScopeMetrics()
		for j := range sms.Len() {
			ms := sms.At(j).Metrics()
			for k := range ms.Len() {
				m := ms.At(k)
				var dps pmetric.NumberDataPointSlice
				switch m.Type() {
				case pmetric.MetricTypeGauge:
					dps = m.Gauge().DataPoints()
				case pmetric.MetricTypeSum:
					dps = m.Sum().DataPoints()
				case pmetric.MetricTypeSummary: // compared by sample count, as scraped
					sdps := m.Summary().DataPoints()
					for d := range sdps.Len() {
						labels := map[string]string{}
						sdps.At(d).Attributes().Range(func(k string, v pcommon.Value) bool {
							labels[k] = v.AsString()
							return true
						})
						out[seriesKey(m.Name()+"_count", labels)] = float64(sdps.At(d).Count())
					}
					continue
				default:
					continue
				}
				for d := range dps.Len() {
					dp := dps.At(d)
					labels := map[string]string{}
					dp.Attributes().Range(func(k string, v pcommon.Value) bool {
						labels[k] = v.AsString()
						return true
					})
					v := dp.DoubleValue()
					if dp.ValueType() == pmetric.NumberDataPointValueTypeInt {
						v = float64(dp.IntValue())
					}
					out[seriesKey(m.Name(), labels)] = v
				}
			}
		}
	}
	return out
}
