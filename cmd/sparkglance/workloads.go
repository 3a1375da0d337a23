package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/appdoc"
	"github.com/sparkglance/sparkglance/internal/workload"
)

// judgeRuns groups the documents by workload and judges each run against
// the earlier ones; workloads of one run are left out.
func judgeRuns(docs []appdoc.Doc, o workload.Options) map[string][]workload.Judged {
	sums := make([]workload.Summary, len(docs))
	for i := range docs {
		sums[i] = workload.Summarize(&docs[i].Report)
	}
	return workload.JudgeAll(sums, o)
}

// addRegressionFindings appends each judged run's workload_regression
// finding to its document.
func addRegressionFindings(docs []appdoc.Doc, judgedRuns map[string][]workload.Judged) {
	for _, runs := range judgedRuns {
		for _, j := range runs {
			if f, ok := j.Result.Finding(); ok {
				docs[j.Index].Findings = append(docs[j.Index].Findings, f)
			}
		}
	}
}

// writeWorkloads prints one table per workload of several runs: each run
// with its wall time, efficiency and cost, its ratio over the baseline and
// its status, then why for the regressed ones.
func writeWorkloads(w io.Writer, judgedRuns map[string][]workload.Judged) {
	keys := slices.Sorted(maps.Keys(judgedRuns))
	for _, key := range keys {
		runs := judgedRuns[key]
		fmt.Fprintf(w, "\nWorkload %s: %d runs\n", key, len(runs))
		fmt.Fprintf(w, "  %-32s %-19s %9s %6s %12s %9s  %s\n", "run", "start", "wall", "eff", "cost", "wall/base", "status")
		for _, j := range runs {
			s := &j.Summary
			wall, _ := s.Values.Get(workload.WallTime)
			eff := "-"
			if e, ok := s.Values.Get(workload.Efficiency); ok {
				eff = fmt.Sprintf("%.0f%%", 100*e)
			}
			cost := "-"
			if c, ok := s.Values.Get(workload.Cost); ok {
				cost = analysis.FormatMoney(c, s.Currency)
			}
			ratio := "-"
			if c, ok := j.Result.Ratio(workload.WallTime); ok && c.Baseline > 0 {
				ratio = fmt.Sprintf("%.2f×", c.Ratio)
			}
			status := j.Result.Status()
			if !s.Finished {
				status += " (running)"
			}
			fmt.Fprintf(w, "  %-32s %-19s %9s %6s %12s %9s  %s\n", s.ID(), fmtEpoch(s.Start), fmtSecs(wall), eff, cost, ratio, status)
		}
		for _, j := range runs {
			if len(j.Result.Regressed) == 0 && len(j.Result.Explained) == 0 {
				continue
			}
			fmt.Fprintf(w, "  %s: %s\n", j.Summary.ID(), strings.Join(j.Result.Why, "\n    "))
		}
	}
}

func fmtEpoch(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05") }

// fmtSecs renders seconds as 4.2s, 3m05s or 1h02m.
func fmtSecs(s float64) string {
	d := time.Duration(s * float64(time.Second))
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}
