package metricschema

// ProcessLabels is what every per-executor family of the process collector
// carries.
var ProcessLabels = Labels(Open("app_id", "executor_id"), RoleLabel.Label(), FrameworkLabel.Label(), Open("pod_uid", "container_id"))

// The process collector's families (collector process).
var (
	ProcessCPUSeconds = secProcess.New("spark_process_cpu_seconds_total", Counter, "s", ProcessLabels,
		"CPU time (user+system, reaped children included) of the Spark/Flink JVMs of an executor, sampled in the background.")
	ProcessCPULoad = secProcess.New("spark_process_cpu_load_ratio", Gauge, "1", ProcessLabels,
		"Share of host CPU the executor's JVMs used over the last sampling period (denominator: --energy.load-denominator).")
	ExecutorEnergy = secProcess.New("spark_executor_energy_joules_total", Counter, "J", Labels(ProcessLabels, PowerSourceLabel.Label()),
		"Energy attributed to the executor: RAPL by share of busy CPU, or TDP × period × load; sampled in the background.")
	NodeEnergy = secProcess.New("spark_node_energy_joules_total", Counter, "J", Labels(PowerSourceLabel.Label(), Open("zone")),
		"Energy of the node per zone (RAPL package/dram, plus \"idle\": the part not attributed to busy CPU; or the TDP model), sampled in the background.")
	NodeCPUTDP = secProcess.New("spark_node_cpu_tdp_watts", Gauge, "W", Open("cpu_model", "source"),
		"TDP the TDP model charges for the whole node, and where it came from.")
	ProcessDiscovered = secProcess.New("sparkglance_process_discovered", Gauge, "{process}", Labels(FrameworkLabel.Label(), RoleLabel.Label()),
		"Spark/Flink JVMs currently tracked on this node.")
)
