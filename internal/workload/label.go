package workload

// StatusLabel is Status as a label value or CSS class: ok, regressed,
// explained_by_input or no_baseline (the status label of
// spark_workload_runs_total, the pages' badges).
func (r *Result) StatusLabel() string {
	switch r.Status() {
	case "no baseline yet":
		return "no_baseline"
	case "explained by input":
		return "explained_by_input"
	}
	return r.Status()
}

// StatusLabels lists every StatusLabel value, sorted.
func StatusLabels() []string { return []string{"explained_by_input", "no_baseline", "ok", "regressed"} }
