package metricschema

// WorkloadLabels identify a recurring workload (its key: the
// spark.sparkglance.workload property or the normalised application name).
var WorkloadLabels = Open("workload")

// The recurring workloads' series (collector eventlog, from its history of
// run summaries; bounded by --workload.max-workloads). measure is one of
// wall_time, task_cpu_time, core_hours, efficiency, wasted_core_hours,
// spill_memory, spill_disk, shuffle_read, shuffle_write, input,
// energy, cost.
var (
	WorkloadRuns = secWorkloads.New("spark_workload_runs_total", Counter, "{run}", Labels(WorkloadLabels, WorkloadStatusLabel.Label()),
		"Finished runs of the workload seen, by how they compared with their baseline when first seen finished (those found at start once all are read, in the order they started): ok, regressed, explained_by_input (beyond the thresholds as much as the input grew) or no_baseline (fewer than 3 previous finished runs).")
	WorkloadLastRunRatio = secWorkloads.New("spark_workload_last_run_ratio", Gauge, "1", Labels(WorkloadLabels, MeasureLabel.Label()),
		"The workload's latest finished run over its baseline (the median of its previous --workload.baseline-runs finished runs), per measure; absent before the baseline exists.")
	WorkloadRegression = secWorkloads.New("spark_workload_regression", Gauge, "1", Labels(WorkloadLabels, MeasureLabel.Label()),
		"1 while the workload's latest finished run regressed on the measure (beyond the workload_regression thresholds of the findings table and not explained by the input's growth), else 0; absent before the baseline exists.")
	WorkloadBaseline = secWorkloads.New("spark_workload_baseline", Gauge, "1", Labels(WorkloadLabels, MeasureLabel.Label()),
		"The workload's baseline for its latest finished run, per measure, in the measure's base unit: seconds (wall_time, task_cpu_time), core-hours (core_hours, wasted_core_hours), ratio (efficiency), bytes (spill_*, shuffle_*, input), watt-hours (energy), the cost model's currency (cost).")
	WorkloadLastRunValue = secWorkloads.New("spark_workload_last_run_value", Gauge, "1", Labels(WorkloadLabels, MeasureLabel.Label()),
		"The workload's latest finished run, per measure, in the same base units as spark_workload_baseline.")
	WorkloadLastRunStart = secWorkloads.New("spark_workload_last_run_start_time_seconds", Gauge, "s", WorkloadLabels,
		"Start of the workload's latest finished run, in seconds since the epoch.")
	WorkloadDropped = secWorkloads.New("sparkglance_workload_dropped_total", Counter, "{run}", nil,
		"Runs not followed as workloads because --workload.max-workloads workloads are held already.")
)
