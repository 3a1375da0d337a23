package spark

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite testdata/*.prom golden expositions")

const otelApp = testkit.OTelSparkApp

// otelRoutes serves the five otel-contrib captures of one Spark 3.4.0
// driver (testkit.OTelSparkRoutes).
func otelRoutes(t *testing.T, metricsJSON []byte) map[string][]byte {
	return testkit.OTelSparkRoutes(t, metricsJSON)
}

// withCCSparkGauge adds the ccspark driver gauge to a real /metrics/json.
func withCCSparkGauge(t *testing.T, metricsJSON []byte, wh float64) []byte {
	return testkit.WithCCSparkGauge(t, metricsJSON, wh)
}

// TestGoldenExpositions reads real recorded payloads served by httptest and
// compares the whole scrape, target health lines aside, with a golden file.
//
// Checked by hand against the payloads (and the conversions in doc.go):
//   - otel_driver: spark_executor_cores{driver} 12 and max_tasks 12
//     (totalCores, maxTasks), completed_tasks_total 212,
//     task_time_seconds_total 149.891 (totalDuration 149891 ms),
//     gc_time_seconds_total 0.221, storage_memory_max_bytes 4.55501414e+08,
//     peak_memory_bytes{area="jvm_heap"} 3.80379232e+08;
//     spark_stage_active{stage_id="1",attempt_id="0"} 1 with spark_stage_tasks 200;
//     spark_app_info spark_version 3.4.0, spark_user caleb1, running 1,
//     start 1.682603252721e+09 s;
//     spark_metrics_block_manager_memory_max_mem_bytes 4.55081984e+08 (434 MiB × 1048576);
//     spark_metrics_executor_cpu_time_seconds_total 6.760917 (6760917000 ns);
//     spark_metrics_executor_run_time_seconds_total 67.421 (67421 ms);
//     spark_metrics_jvmcpu_jvm_cpu_time_seconds_total 32.742193;
//     spark_metrics_executor_threadpool_max_pool_size 2.147483647e+09;
//     spark_metrics_code_generator_compilation_time_seconds{quantile="0.5"} 0.061, _count 8,
//     _sum 0.8187705422012018 (mean 102.346… ms × 8);
//     spark_metrics_dag_scheduler_message_processing_time_seconds _count 230.
//   - history_server: 16 spark_app_info series, all spark_app_running 0;
//     local-1422981780767 "Spark shell" started 1.42298177972e+09 s.
//   - datadog_metrics_only: app_id "app-20201120094950-0000", app_name ""
//     (no REST API read), streaming gauges as
//     spark_metrics_streaming_input_rate{query="e8e4803f_cc76_4b53_82f9_361b54448fc4"} 12,
//     listener queue "shared" as a queue label.
//   - ccspark: spark_plugin_energy_total_wh{app_id="local-1682603253681",
//     app_name="streaming-example"} 12.5, the value added to the real capture.
func TestGoldenExpositions(t *testing.T) {
	cases := []struct {
		name   string
		routes func(t *testing.T) map[string][]byte
		path   string // appended to the server URL to form the target
	}{
		{"otel_driver", func(t *testing.T) map[string][]byte { return otelRoutes(t, nil) }, ""},
		{"history_server", func(t *testing.T) map[string][]byte {
			return map[string][]byte{"/api/v1/applications": readShared(t, "oracle", "application_list_json_expectation.json")}
		}, ""},
		{"datadog_metrics_only", func(t *testing.T) map[string][]byte {
			return map[string][]byte{"/metrics/json": readShared(t, "spark-api", "datadog-integrations-core", "metrics_json")}
		}, "/metrics/json"},
		{"ccspark", func(t *testing.T) map[string][]byte {
			real := readShared(t, "spark-api", "otel-contrib", "cluster_stats_response.json")
			return otelRoutes(t, withCCSparkGauge(t, real, 12.5))
		}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeSpark(t, tc.routes(t))
			c, logs := newTestCollector(t, Options{URLs: []string{srv.URL + tc.path}})
			text := scrape(t, c, 5*time.Second)
			if up := seriesLines(text, "spark_target_up"); len(up) != 1 || !bytes.HasSuffix([]byte(up[0]), []byte(" 1")) {
				t.Fatalf("target not up: %q\nlogs:\n%v", up, logs.Lines(""))
			}
			got := withoutTargetHealth(text)
			golden := filepath.Join("testdata", tc.name+".prom")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update once, then check the file by hand)", err)
			}
			if got != string(want) {
				t.Errorf("exposition differs from %s; diff it with -update and git diff", golden)
			}
		})
	}
}

// withoutTargetHealth drops the spark_target_* families, whose target label
// holds the random httptest port and whose duration varies.
func withoutTargetHealth(text string) string {
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter([]byte(text), []byte("\n")) {
		if bytes.Contains(line, []byte("spark_target_")) {
			continue
		}
		out.Write(line)
	}
	return out.String()
}
