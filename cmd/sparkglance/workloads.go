package main

import (
	"cmp"
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

// judged is one document's run judged against the runs of its workload
// among the same inputs that started before it.
type judged struct {
	doc     int // index in the documents
	summary workload.Summary
	result  workload.Result
}

// judgeRuns groups the documents by workload and judges each run against
// the earlier ones; workloads of one run are left out.
func judgeRuns(docs []appdoc.Doc, o workload.Options) map[string][]judged {
	sums := make([]workload.Summary, len(docs))
	for i := range docs {
		sums[i] = workload.Summarize(&docs[i].Report)
	}
	out, _ := judgeSummaries(sums, o, nil, nil) // nothing to load or use: no error
	return out
}

// judgeSummaries groups the runs by workload and judges each against the
// runs of its workload that started before it; workloads of one run are
// left out. judged.doc is the index in sums. When sums leave the details
// (properties, stages) out, load gives the run of an index with them: it
// is called for each judged run and the earlier runs its judgement reads
// (workload.DetailsUsed), so they need not all be in memory at once. When
// use is not nil, it gets each result instead of judged.result keeping
// it (a result holds the runs' details it compared).
func judgeSummaries(sums []workload.Summary, o workload.Options, load func(i int) (workload.Summary, error),
	use func(i int, r *workload.Result) error) (map[string][]judged, error) {
	byKey := map[string][]judged{}
	for i := range sums {
		byKey[sums[i].Workload] = append(byKey[sums[i].Workload], judged{doc: i, summary: sums[i]})
	}
	for key, runs := range byKey {
		if len(runs) < 2 {
			delete(byKey, key)
			continue
		}
		slices.SortStableFunc(runs, func(a, b judged) int {
			return cmp.Or(cmp.Compare(a.summary.Start, b.summary.Start), cmp.Compare(a.summary.ID(), b.summary.ID()))
		})
		ordered := make([]workload.Summary, len(runs))
		for i := range runs {
			ordered[i] = runs[i].summary
		}
		for i := range runs {
			run, prev := ordered[i], ordered[:i]
			var lent []int // of prev, lent their details for this run's judgement
			if load != nil {
				var err error
				if run, err = load(runs[i].doc); err != nil {
					return nil, err
				}
				for _, j := range workload.DetailsUsed(prev, o) {
					if prev[j], err = load(runs[j].doc); err != nil {
						return nil, err
					}
					lent = append(lent, j)
				}
			}
			res := workload.Evaluate(&run, prev, o)
			for _, j := range lent {
				prev[j].Properties, prev[j].Stages = nil, nil
			}
			if use == nil {
				runs[i].result = res
			} else if err := use(runs[i].doc, &res); err != nil {
				return nil, err
			}
		}
	}
	return byKey, nil
}

// addRegressionFindings appends each judged run's workload_regression
// finding to its document.
func addRegressionFindings(docs []appdoc.Doc, judgedRuns map[string][]judged) {
	for _, runs := range judgedRuns {
		for _, j := range runs {
			if f, ok := j.result.Finding(); ok {
				docs[j.doc].Findings = append(docs[j.doc].Findings, f)
			}
		}
	}
}

// writeWorkloads prints one table per workload of several runs: each run
// with its wall time, efficiency and cost, its ratio over the baseline and
// its status, then why for the regressed ones.
func writeWorkloads(w io.Writer, judgedRuns map[string][]judged) {
	keys := slices.Sorted(maps.Keys(judgedRuns))
	for _, key := range keys {
		runs := judgedRuns[key]
		fmt.Fprintf(w, "\nWorkload %s: %d runs\n", key, len(runs))
		fmt.Fprintf(w, "  %-32s %-19s %9s %6s %12s %9s  %s\n", "run", "start", "wall", "eff", "cost", "wall/base", "status")
		for _, j := range runs {
			s := &j.summary
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
			if c, ok := j.result.Ratio(workload.WallTime); ok && c.Baseline > 0 {
				ratio = fmt.Sprintf("%.2f×", c.Ratio)
			}
			status := j.result.Status()
			if !s.Finished {
				status += " (running)"
			}
			fmt.Fprintf(w, "  %-32s %-19s %9s %6s %12s %9s  %s\n", s.ID(), fmtEpoch(s.Start), fmtSecs(wall), eff, cost, ratio, status)
		}
		for _, j := range runs {
			if len(j.result.Regressed) == 0 && len(j.result.Explained) == 0 {
				continue
			}
			fmt.Fprintf(w, "  %s: %s\n", j.summary.ID(), strings.Join(j.result.Why, "\n    "))
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
