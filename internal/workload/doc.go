// Package workload follows recurring Spark jobs over time: which workload
// a run belongs to, each run's small summary, a workload's baseline (the
// median of its previous finished runs) and whether a run regressed
// against it, with the most likely why.
//
// The API, from one run to the fleet:
//
//   - Key derives a run's workload key from its Spark properties and name
//     (package workloadkey; analysis.Report.Workload already carries it).
//   - Summarize turns one analysis.Report into a Summary: the baseline
//     measures (Values), the executor set, the redacted Spark properties
//     and one StageSummary per stage (attempts merged, matched by name and
//     call site). A Summary is a few kilobytes, never the analysis.
//   - Evaluate(run, previous, opts) answers for one run: the baseline of
//     the previous finished runs (nil before MinBaselineRuns), each
//     measure's ratio, the regressed measures, those the input's growth
//     explains, what changed since the previous run and where the time
//     went against the baseline run closest to the median; and the
//     workload_regression finding.
//   - Compare(base, new) puts two runs side by side: measure deltas,
//     matched and unmatched stages, the property and executor diffs. It is
//     what `sparkglance compare` prints and what Evaluate's explanation
//     uses.
//   - History keeps the summaries of many workloads, accepts runs in any
//     order (and a live run again as it grows), and answers Evaluate for
//     any run or the latest one. Its memory is bounded: at most
//     Options.MaxWorkloads workloads (the rest counted as dropped), at most
//     Options.MaxRuns runs per workload, and the heavy parts (properties,
//     stages) only of the newest BaselineRuns + 2 of each workload.
//
// Thresholds come from the findings table (analysis.Thresholds.Workload*,
// the --finding.workload.* flags), like every other finding.
package workload
