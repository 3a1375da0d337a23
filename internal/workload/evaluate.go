package workload

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/sparkglance/sparkglance/internal/analysis"
)

// Baseline defaults: the median of the previous 7 finished runs, and no
// baseline before 3.
const (
	DefaultBaselineRuns = 7
	MinBaselineRuns     = 3
)

// Options choose the baseline and the regression thresholds.
type Options struct {
	// BaselineRuns is how many previous finished runs the baseline is the
	// median of (--workload.baseline-runs); 0 means DefaultBaselineRuns.
	BaselineRuns int
	// Thresholds are the findings table's (analysis.Thresholds.Workload*);
	// the zero value means analysis.DefaultThresholds().
	Thresholds analysis.Thresholds
}

func (o Options) runs() int {
	if o.BaselineRuns <= 0 {
		return DefaultBaselineRuns
	}
	return max(o.BaselineRuns, MinBaselineRuns)
}

func (o Options) thresholds() analysis.Thresholds {
	if o.Thresholds.WorkloadWallTimeRatio == 0 {
		return analysis.DefaultThresholds()
	}
	return o.Thresholds
}

// Baseline is the median of a workload's previous finished runs.
type Baseline struct {
	Runs   int    `json:"runs"` // how many runs the medians are of
	Values Values `json:"values"`
	// Closest is the run whose wall time is closest to the median (the
	// newest of equals): the run stages are matched against.
	Closest string `json:"closestRun"`
}

// NewBaseline returns the medians of runs (finished, ordered oldest
// first) over their last n, or nil when fewer than MinBaselineRuns.
func NewBaseline(runs []Summary, n int) (*Baseline, *Summary) {
	if len(runs) > n {
		runs = runs[len(runs)-n:]
	}
	if len(runs) < MinBaselineRuns {
		return nil, nil
	}
	b := &Baseline{Runs: len(runs)}
	for _, m := range Measures() {
		var xs []float64
		for i := range runs {
			if x, ok := runs[i].Values.Get(m); ok {
				xs = append(xs, x)
			}
		}
		if len(xs) > 0 {
			b.Values.Set(m, median(xs))
		}
	}
	mid, _ := b.Values.Get(WallTime)
	closest := -1
	for i := range runs {
		w, _ := runs[i].Values.Get(WallTime)
		if closest < 0 || math.Abs(w-mid) <= math.Abs(wall(&runs[closest])-mid) {
			closest = i
		}
	}
	b.Closest = runs[closest].ID()
	return b, &runs[closest]
}

func wall(s *Summary) float64 { w, _ := s.Values.Get(WallTime); return w }

func median(xs []float64) float64 {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// Change is one measure of a run against its baseline.
type Change struct {
	Measure  Measure `json:"-"`
	Name     string  `json:"measure"`
	Value    float64 `json:"value"`
	Baseline float64 `json:"baseline"`
	// Ratio is Value / Baseline (0 when the baseline is 0).
	Ratio float64 `json:"ratio"`
}

// Result is one run judged against its workload's history.
type Result struct {
	Workload string `json:"workload"`
	Run      string `json:"run"`
	// Previous counts the finished runs before this one.
	Previous int `json:"previousRuns"`
	// Baseline is nil until MinBaselineRuns previous runs finished ("no
	// baseline yet").
	Baseline *Baseline `json:"baseline"`
	Ratios   []Change  `json:"ratios"`
	// Regressed lists the measures beyond the thresholds and not explained
	// by the input's growth: these fire the alert.
	Regressed []Change `json:"regressed"`
	// Explained lists the measures beyond the thresholds that the input's
	// growth explains (InputRatio ≥ 1 + tolerance, and the measure grew by
	// no more than the input times 1 + tolerance).
	Explained  []Change `json:"explainedByInput"`
	InputRatio float64  `json:"inputRatio,omitempty"`
	// Changes is what changed since the previous finished run (nil for
	// the first run, or when that run's details were not kept).
	Changes *Comparison `json:"-"`
	// Where compares this run with the baseline's closest run: its Stages
	// say where the time went (nil without a baseline or its details).
	Where *Comparison `json:"-"`
	// Why is the explanation in sentences: what changed, where the time
	// went, the input's growth.
	Why []string `json:"why"`
}

// Fires tells whether the run regressed (the alert's condition).
func (r *Result) Fires() bool { return len(r.Regressed) > 0 }

// Status is "no baseline yet", "regressed", "explained by input" or "ok".
func (r *Result) Status() string {
	switch {
	case r.Baseline == nil:
		return "no baseline yet"
	case r.Fires():
		return "regressed"
	case len(r.Explained) > 0:
		return "explained by input"
	}
	return "ok"
}

// Ratio returns the run's ratio over its baseline for m.
func (r *Result) Ratio(m Measure) (Change, bool) {
	for _, c := range r.Ratios {
		if c.Measure == m {
			return c, true
		}
	}
	return Change{}, false
}

// Evaluate judges run against previous: the workload's runs that started
// before it, finished or not, oldest first (the unfinished are skipped).
func Evaluate(run *Summary, previous []Summary, o Options) Result {
	done, finished := lastFinished(previous, o.runs())
	return evaluate(run, done, finished, o)
}

// evaluate judges run against done, the last finished runs before it
// (oldest first, at most o.runs()), of finished runs before it.
func evaluate(run *Summary, done []Summary, finished int, o Options) Result {
	res := Result{Workload: run.Workload, Run: run.ID(), Previous: finished, Ratios: []Change{}, Regressed: []Change{}, Explained: []Change{}, Why: []string{}}
	if len(done) > 0 && done[len(done)-1].Detailed() && run.Detailed() {
		c := Compare(&done[len(done)-1], run)
		res.Changes = &c
	}
	b, closest := NewBaseline(done, o.runs())
	res.Baseline = b
	if b == nil {
		res.Why = append(res.Why, fmt.Sprintf("no baseline yet: %d of %d previous finished runs", finished, MinBaselineRuns))
		return res
	}
	if closest.Detailed() && run.Detailed() {
		c := Compare(closest, run)
		res.Where = &c
	}
	for _, m := range Measures() {
		v, ok1 := run.Values.Get(m)
		base, ok2 := b.Values.Get(m)
		if !ok1 || !ok2 {
			continue
		}
		c := Change{Measure: m, Name: m.String(), Value: v, Baseline: base}
		if base != 0 {
			c.Ratio = v / base
		}
		res.Ratios = append(res.Ratios, c)
	}
	th := o.thresholds()
	if in, ok := res.Ratio(InputBytes); ok && in.Baseline > 0 {
		res.InputRatio = in.Ratio
	}
	inputGrew := res.InputRatio >= 1+th.WorkloadInputTolerance
	for _, c := range res.Ratios {
		if !beyond(c, th) {
			continue
		}
		if inputGrew && c.Measure.extensive() && c.Ratio <= res.InputRatio*(1+th.WorkloadInputTolerance) {
			res.Explained = append(res.Explained, c)
		} else {
			res.Regressed = append(res.Regressed, c)
		}
	}
	res.Why = res.explain()
	return res
}

// lastFinished returns the last n finished runs of previous, oldest first,
// and how many of previous finished: the baseline needs no older run.
func lastFinished(previous []Summary, n int) (done []Summary, finished int) {
	for i := range previous {
		if previous[i].Finished {
			finished++
		}
	}
	for i := len(previous) - 1; i >= 0 && len(done) < n; i-- {
		if previous[i].Finished {
			done = append(done, previous[i])
		}
	}
	slices.Reverse(done)
	return done, finished
}

// DetailsUsed lists the indices of previous whose details (properties,
// stages) Evaluate reads: the last finished run, for what changed, and the
// baseline's run closest to the median, for where the time went. A caller
// that keeps the details elsewhere loads these only.
func DetailsUsed(previous []Summary, o Options) []int {
	var done []int // the indices of the last o.runs() finished runs, newest first
	for i := len(previous) - 1; i >= 0 && len(done) < o.runs(); i-- {
		if previous[i].Finished {
			done = append(done, i)
		}
	}
	if len(done) == 0 {
		return nil
	}
	slices.Reverse(done)
	runs := make([]Summary, len(done))
	for k, i := range done {
		runs[k] = previous[i]
	}
	out := []int{done[len(done)-1]}
	if _, closest := NewBaseline(runs, o.runs()); closest != nil {
		for k := range runs {
			if &runs[k] == closest && done[k] != out[0] {
				out = append(out, done[k])
			}
		}
	}
	return out
}

// beyond tells whether a measure crossed its threshold.
func beyond(c Change, th analysis.Thresholds) bool {
	switch c.Measure {
	case WallTime:
		return c.Baseline > 0 && c.Value >= th.WorkloadWallTimeRatio*c.Baseline && c.Value-c.Baseline >= th.WorkloadWallTimeMin.Seconds()
	case Efficiency:
		return c.Baseline-c.Value >= th.WorkloadEfficiencyDrop
	case TaskCPUTime, CoreHours, Cost:
		return c.Baseline > 0 && c.Value >= th.WorkloadCostRatio*c.Baseline
	case SpillMemory, SpillDisk:
		return c.Value >= th.WorkloadSpillRatio*c.Baseline && c.Value-c.Baseline >= th.WorkloadSpillMinBytes
	}
	return false
}

// MaxWhyStages is how many stages the explanation names.
const MaxWhyStages = 3

func (r *Result) explain() []string {
	var why []string
	if len(r.Regressed) > 0 {
		parts := make([]string, len(r.Regressed))
		for i, c := range r.Regressed {
			parts[i] = describe(c)
		}
		why = append(why, "regressed against the median of the previous "+fmt.Sprint(r.Baseline.Runs)+" runs: "+strings.Join(parts, ", "))
	}
	if len(r.Explained) > 0 {
		s := fmt.Sprintf("input grew %.1f×", r.InputRatio)
		if slices.ContainsFunc(r.Explained, func(c Change) bool { return c.Measure == WallTime }) {
			s += "; time per input byte unchanged"
		} else {
			names := make([]string, len(r.Explained))
			for i, c := range r.Explained {
				names[i] = c.Measure.Title()
			}
			s += "; " + strings.Join(names, ", ") + " per input byte unchanged"
		}
		why = append(why, s)
	}
	if !r.Fires() {
		return why
	}
	if c := r.Changes; c != nil {
		var changed []string
		if len(c.Properties) > 0 {
			ps := make([]string, 0, len(c.Properties))
			for i, p := range c.Properties {
				if i == 5 {
					ps = append(ps, fmt.Sprintf("and %d more", len(c.Properties)-5))
					break
				}
				ps = append(ps, p.String())
			}
			changed = append(changed, "properties "+strings.Join(ps, ", "))
		}
		if c.SparkVersion != "" {
			changed = append(changed, "Spark "+c.SparkVersion)
		}
		changed = append(changed, c.ExecutorChanges...)
		if d, ok := c.Measure(InputBytes); ok && d.Base > 0 && math.Abs(d.Ratio-1) >= 0.1 {
			changed = append(changed, fmt.Sprintf("input %s → %s", formatBytes(d.Base), formatBytes(d.New)))
		}
		if len(changed) > 0 {
			why = append(why, "changed since the previous run "+c.Base.ID()+": "+strings.Join(changed, "; "))
		} else {
			why = append(why, "nothing changed since the previous run "+c.Base.ID()+" (properties, Spark version, executors, input)")
		}
	}
	if w := r.Where; w != nil && len(w.Stages) > 0 {
		var top []string
		for _, s := range w.Stages {
			if len(top) == MaxWhyStages || s.DeltaMs <= 0 {
				break
			}
			top = append(top, fmt.Sprintf("%s %s → %s (+%s)", s.Key, fmtMs(s.Base.WallMs), fmtMs(s.New.WallMs), fmtMs(s.DeltaMs)))
		}
		if len(top) > 0 {
			why = append(why, "where the time went, against run "+w.Base.ID()+": "+strings.Join(top, "; "))
		}
	}
	return why
}

func describe(c Change) string {
	switch c.Measure {
	case Efficiency:
		return fmt.Sprintf("efficiency %.2f (baseline %.2f)", c.Value, c.Baseline)
	case WallTime:
		return fmt.Sprintf("wall time %s (%.1f× baseline %s)", fmtMs(int64(c.Value*1e3)), c.Ratio, fmtMs(int64(c.Baseline*1e3)))
	case SpillMemory, SpillDisk:
		return fmt.Sprintf("%s %s (baseline %s)", c.Measure.Title(), formatBytes(c.Value), formatBytes(c.Baseline))
	}
	return fmt.Sprintf("%s %.1f× baseline", c.Measure.Title(), c.Ratio)
}

// fmtMs renders milliseconds as 1h02m, 3m05s or 4.2s.
func fmtMs(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// Finding is the workload_regression finding of a run that regressed or
// whose growth the input explains; false otherwise. Numbers carry each
// such measure's ratio (e.g. wall_timeRatio), the baseline's run count,
// the input's ratio and alert (1 when it fires).
func (r *Result) Finding() (analysis.Finding, bool) {
	if len(r.Regressed) == 0 && len(r.Explained) == 0 {
		return analysis.Finding{}, false
	}
	rule, _ := analysis.FindingRuleOf(analysis.KindWorkloadRegression)
	f := analysis.Finding{Kind: rule.Kind, Numbers: map[string]float64{"baselineRuns": float64(r.Baseline.Runs), "inputRatio": r.InputRatio}}
	for _, c := range slices.Concat(r.Regressed, r.Explained) {
		f.Numbers[c.Name+"Ratio"] = c.Ratio
		f.Numbers[c.Name+"Baseline"] = c.Baseline
	}
	f.Numbers["alert"] = 0
	if r.Fires() {
		f.Numbers["alert"] = 1
	}
	f.Advice = strings.Join(r.Why, ". ") + ". " + rule.Advice
	if !r.Fires() {
		f.Advice = strings.Join(r.Why, ". ") + ": not a regression."
	}
	return f, true
}

// sortRuns orders runs by start time, then id (a stable order for equal
// starts).
func sortRuns(runs []Summary) {
	slices.SortStableFunc(runs, func(a, b Summary) int { return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.ID(), b.ID())) })
}
