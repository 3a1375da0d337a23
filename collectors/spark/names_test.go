package spark

import "testing"

func TestDescribeNames(t *testing.T) {
	cases := []struct {
		key   string
		kind  sampleKind
		name  string
		scale float64
	}{
		{"app-1.driver.BlockManager.memory.memUsed_MB", kindGauge, "spark_metrics_block_manager_memory_mem_used_bytes", 1 << 20},
		{"app-1.3.executor.cpuTime", kindCounter, "spark_metrics_executor_cpu_time_seconds_total", 1e-9},
		{"app-1.3.executor.runTime", kindCounter, "spark_metrics_executor_run_time_seconds_total", 1e-3},
		{"app-1.driver.ExecutorMetrics.MinorGCCount", kindGauge, "spark_metrics_executor_metrics_minor_gc_total", 1},
		{"app-1.driver.ExecutorMetrics.JVMHeapMemory", kindGauge, "spark_metrics_executor_metrics_jvm_heap_memory_bytes", 1},
		{"app-1.driver.DAGScheduler.messageProcessingTime", kindTimer, "spark_metrics_dag_scheduler_message_processing_time_seconds", 1e-3},
		{"app-1.driver.spark.streaming.q1.states-rowsTotal", kindGauge, "spark_metrics_streaming_states_rows", 1},
		{"master.workers", kindGauge, "spark_metrics_master_workers", 1},
		{"app-1.driver.HiveExternalCatalog.parallelListingJobCount", kindCounter, "spark_metrics_hive_external_catalog_parallel_listing_job_total", 1},
		{"app-1.driver.x.sizeCount", kindGauge, "spark_metrics_x_size_count_value", 1},
	}
	for _, c := range cases {
		f, ok := describe(newSample(c.key, c.kind, 0, nil))
		if !ok || f.name != c.name || f.scale != c.scale {
			t.Errorf("%s: got %q ×%g (ok %v), want %q ×%g", c.key, f.name, f.scale, ok, c.name, c.scale)
		}
	}
	if _, ok := describe(newSample("application.Spark shell.1489.status", kindGauge, 0, nil)); ok {
		t.Error("standalone per-application keys (name and start time in the key) must be skipped")
	}
}

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"DAGScheduler_messageProcessingTime": "dag_scheduler_message_processing_time",
		"JVMCPU_jvmCpuTime":                  "jvmcpu_jvm_cpu_time",
		"executor_threadpool_maxPool_size":   "executor_threadpool_max_pool_size",
		"streaming_eventTime_watermark":      "streaming_event_time_watermark",
	} {
		if got := snakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}
