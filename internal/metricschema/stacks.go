package metricschema

// ThreadTargetLabels is what every family of the stacks collector carries.
var ThreadTargetLabels = Labels(Open("app_id", "executor_id"), FrameworkLabel.Label())

// The stacks collector's families (collector stacks).
var (
	ThreadSamples = secStacks.New("spark_thread_samples_total", Counter, "{sample}", Labels(ThreadTargetLabels, ThreadStateLabel.Label()),
		"Task-thread stack samples by classified state (running, shuffle_fetch, memory_wait, spill, io, lock, backpressure, other_wait), taken in the background.")
	ExecutorBlockedRatio = secStacks.New("spark_executor_blocked_ratio", Gauge, "1", ThreadTargetLabels,
		"Share of task-thread samples not running over --stacks.window, computed in the background.")
	StacksDumpDuration = secStacks.New("sparkglance_stacks_dump_duration_seconds", Histogram, "s", ThreadTargetLabels,
		"Time to take and parse one successful thread dump (attach or Spark REST).")
	StacksErrors = secStacks.New("sparkglance_stacks_errors_total", Counter, "{error}", Labels(ThreadTargetLabels, StacksErrorLabel.Label()),
		"Thread dumps that failed, by reason (attach_disabled, not_jvm, process_gone, permission, timeout, rest_status, …).")
)
