package eventlog

import "github.com/sparkglance/sparkglance/internal/analysis"

// Task-time categories of spark_executor_task_time_seconds_total, in
// output order: the analysis' own.
var taskTimeCategories = analysis.TaskTimeCategories

// execTotals are one executor id's counters: the analysis' task sums of the
// executor (analysis.Report.ExecutorTaskSums), summed over every task on
// its timeline, across re-registrations, so they never go backwards.
type execTotals = analysis.TaskSums
