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
// left out. Judged.Index is the index in sums, whose details (properties,
// stages) the judgements read.
func JudgeAll(sums []Summary, o Options) map[string][]Judged {
	plans := PlanJudgements(sums, o)
	byKey := map[string][]Judged{}
	for i, j := range plans {
		if j == nil {
			continue
		}
		done := make([]Summary, len(j.Done))
		for k, d := range j.Done {
			done[k] = sums[d]
		}
		byKey[sums[i].Workload] = append(byKey[sums[i].Workload], Judged{Index: i, Summary: sums[i], Result: j.Judge(&sums[i], done, o)})
	}
	for _, runs := range byKey {
		slices.SortStableFunc(runs, func(a, b Judged) int { return startOrder(&a.Summary, &b.Summary) })
	}
	return byKey
}

// startOrder orders runs by start time, then id.
func startOrder(a, b *Summary) int {
	return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.ID(), b.ID()))
}

// A Judgement is what judging one run against the earlier runs of its
// workload takes, planned from the runs' light summaries (no details)
// before any run is judged: the runs can then be judged in any order, on
// several goroutines, each loading only the details it reads.
type Judgement struct {
	// Done are the last finished runs of its workload that started
	// before it, oldest first, at most the baseline's number: indices in
	// the summaries planned.
	Done []int
	// Finished counts the runs of its workload that started before it
	// and finished.
	Finished int
	// Details are the positions in Done of the runs whose details
	// (properties, stages) the judgement reads (DetailsUsed); it reads
	// the judged run's too.
	Details []int
}

// PlanJudgements plans the judgement of each run of sums against the runs
// of its workload that started before it (by start time, then id): nil
// for a run whose workload has no other run among sums.
func PlanJudgements(sums []Summary, o Options) []*Judgement {
	byKey := map[string][]int{}
	for i := range sums {
		byKey[sums[i].Workload] = append(byKey[sums[i].Workload], i)
	}
	plans := make([]*Judgement, len(sums))
	for _, runs := range byKey {
		if len(runs) < 2 {
			continue
		}
		slices.SortStableFunc(runs, func(a, b int) int { return startOrder(&sums[a], &sums[b]) })
		var done []int // the last o.runs() finished runs so far
		light := make([]Summary, 0, o.runs())
		finished := 0
		for _, i := range runs {
			light = light[:0]
			for _, d := range done {
				light = append(light, sums[d])
			}
			plans[i] = &Judgement{Done: slices.Clone(done), Finished: finished, Details: DetailsUsed(light, o)}
			if sums[i].Finished {
				finished++
				if len(done) == o.runs() {
					done = slices.Delete(done, 0, 1)
				}
				done = append(done, i)
			}
		}
	}
	return plans
}

// Judge judges run as planned: done are the summaries of j.Done, in
// order, with their details where j.Details says the judgement reads them.
func (j *Judgement) Judge(run *Summary, done []Summary, o Options) Result {
	return evaluate(run, done, j.Finished, o)
}
