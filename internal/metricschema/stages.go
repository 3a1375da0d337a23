package metricschema

// Per-stage, per-job and energy families of the event-log collector. A
// stage is one stage id, its attempts summed; the --eventlog.max-stages
// most recent stage ids per application are kept and the older ones
// summed under stage_id="other", so an application has a bounded number of
// series however many stages it runs.
var (
	StageDuration = secStages.New("spark_stage_duration_seconds", Gauge, "s", Labels(AppLabels, Open("stage_id")),
		"Wall time of the stage's attempts (submission to completion, or to the latest event while running; History Server submissionTime/completionTime), summed over attempts; stage_id=other sums the stages beyond --eventlog.max-stages.")
	StageTasksTotal = secStages.New("spark_stage_tasks_total", Counter, "{task}", Labels(AppLabels, Open("stage_id"), TaskStatusLabel.Label()),
		"Tasks of the stage ended, by status: success, failed or killed (History Server numCompleteTasks, numFailedTasks, numKilledTasks).")
	StageTaskTime = secStages.New("spark_stage_task_time_seconds_total", Counter, "s", Labels(AppLabels, Open("stage_id"), TaskTimeCategory.Label()),
		"Task time of the stage by category: run (executorRunTime), cpu (executorCpuTime), gc (jvmGcTime), serde (executorDeserializeCpuTime + resultSerializationTime), shuffle (shuffleFetchWaitTime + shuffleWriteTime).")
	StageSpillBytes = secStages.New("spark_stage_spill_bytes_total", Counter, "By", Labels(AppLabels, Open("stage_id"), SpillMedium.Label()),
		"Bytes the stage's tasks spilled, by medium: memory (memoryBytesSpilled, deserialized size) or disk (diskBytesSpilled, serialized size).")
	StageShuffleReadBytes = secStages.New("spark_stage_shuffle_read_bytes_total", Counter, "By", Labels(AppLabels, Open("stage_id")),
		"Shuffle bytes the stage's tasks read, local and remote (History Server shuffleReadBytes).")
	StageShuffleWriteBytes = secStages.New("spark_stage_shuffle_write_bytes_total", Counter, "By", Labels(AppLabels, Open("stage_id")),
		"Shuffle bytes the stage's tasks wrote (History Server shuffleWriteBytes).")
	StageInputBytes = secStages.New("spark_stage_input_bytes_total", Counter, "By", Labels(AppLabels, Open("stage_id")),
		"Input bytes the stage's tasks read (History Server inputBytes).")
	StageOutputBytes = secStages.New("spark_stage_output_bytes_total", Counter, "By", Labels(AppLabels, Open("stage_id")),
		"Output bytes the stage's tasks wrote (History Server outputBytes).")
	StageEnergy = secStages.New("spark_stage_energy_joules_total", Counter, "J", Labels(AppLabels, Open("stage_id"), EnergySourceLabel.Label()),
		"Energy of the stage's task CPU time: CPU seconds × --energy.core-watts (source model). Idle cores belong to no stage; see spark_app_energy_wh_total.")
	StageCost = secStages.New("spark_stage_cost_total", Counter, "{currency}", Labels(AppLabels, Open("stage_id", "currency")),
		"Cost of the stage: the application's cost (spark_app_cost_total) split by the stages' share of task run time. Exported once the application ended, when the split is final.")
	JobDuration = secStages.New("spark_job_duration_seconds", Summary, "s", AppLabels,
		"Duration of the application's finished jobs (submission to completion), with quantiles, over the last 1000 jobs.")
	JobsTotal = secStages.New("spark_jobs_total", Counter, "{job}", Labels(AppLabels, JobStatusLabel.Label()),
		"Jobs ended, by status: succeeded or failed (History Server job status; running jobs are not counted, so the counter never goes down).")
	AppEnergy = secStages.New("spark_app_energy_wh_total", Counter, "W.h", Labels(AppLabels, EnergySourceLabel.Label()),
		"Energy of the application in watt-hours (as ccspark reports it): task CPU seconds × --energy.core-watts plus allocated idle core-seconds × --energy.core-watts × --energy.idle-ratio (source model).")
	AppCost = secStages.New("spark_app_cost_total", Counter, "{currency}", Labels(AppLabels, Open("currency")),
		"Cost of the application's allocation: executor core-hours × --cost.core-hour plus executor memory GiB-hours (spark.executor.memory + overhead) × --cost.memory-gib-hour, from executor add and remove times; absent with --cost.core-hour=0.")
)
