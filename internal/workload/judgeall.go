package workload

import (
	"cmp"
	"slices"
)

// Judged is one run judged against the runs of its workload
// among the same inputs that started before it.
type Judged struct {
	Index   int // in the summaries JudgeAll was given
	Summary Summary
	Result  Result
}

// JudgeAll groups the runs by workload and judges each against the
// runs of its workload that started before it; workloads of one run are
// left out. Judged.Index is the index in sums. When sums leave the details
// (properties, stages) out, load gives the run of an index with them: it
// is called for each judged run and the earlier runs its judgement reads
// (DetailsUsed), so they need not all be in memory at once. When
// use is not nil, it gets each result instead of Judged.Result keeping
// it (a result holds the runs' details it compared).
func JudgeAll(sums []Summary, o Options, load func(i int) (Summary, error),
	use func(i int, r *Result) error) (map[string][]Judged, error) {
	byKey := map[string][]Judged{}
	for i := range sums {
		byKey[sums[i].Workload] = append(byKey[sums[i].Workload], Judged{Index: i, Summary: sums[i]})
	}
	for key, runs := range byKey {
		if len(runs) < 2 {
			delete(byKey, key)
			continue
		}
		slices.SortStableFunc(runs, func(a, b Judged) int {
			return cmp.Or(cmp.Compare(a.Summary.Start, b.Summary.Start), cmp.Compare(a.Summary.ID(), b.Summary.ID()))
		})
		ordered := make([]Summary, len(runs))
		for i := range runs {
			ordered[i] = runs[i].Summary
		}
		for i := range runs {
			run, prev := ordered[i], ordered[:i]
			var lent []int // of prev, lent their details for this run's judgement
			if load != nil {
				var err error
				if run, err = load(runs[i].Index); err != nil {
					return nil, err
				}
				for _, j := range DetailsUsed(prev, o) {
					if prev[j], err = load(runs[j].Index); err != nil {
						return nil, err
					}
					lent = append(lent, j)
				}
			}
			res := Evaluate(&run, prev, o)
			for _, j := range lent {
				prev[j].Properties, prev[j].Stages = nil, nil
			}
			if use == nil {
				runs[i].Result = res
			} else if err := use(runs[i].Index, &res); err != nil {
				return nil, err
			}
		}
	}
	return byKey, nil
}
