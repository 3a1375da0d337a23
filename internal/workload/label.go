package workload

import sm "github.com/sparkglance/sparkglance/internal/metricschema"

// StatusLabel is Status as a label value or CSS class: ok, regressed,
// explained_by_input or no_baseline (the status label of
// spark_workload_runs_total, declared in the metric schema; the pages'
// badges).
func (r *Result) StatusLabel() string {
	switch r.Status() {
	case "no baseline yet":
		return string(sm.WorkloadNoBaseline)
	case "explained by input":
		return string(sm.WorkloadExplainedByInput)
	case "regressed":
		return string(sm.WorkloadRegressed)
	}
	return string(sm.WorkloadOK)
}
