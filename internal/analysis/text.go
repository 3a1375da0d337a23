package analysis

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

const maxChartRows = 60

// WriteText prints a readable summary: the efficiency timeline as a text
// chart (intervals bucketed to at most 60 rows), the worst stages by idle
// core time inside them, and the findings with their advice.
func WriteText(w io.Writer, r Report) error {
	bw := bufio.NewWriter(w)
	name := r.AppName
	if name == "" {
		name = "(unnamed)"
	}
	fmt.Fprintf(bw, "%s  %s", r.AppID, name)
	if r.AttemptID != "" {
		fmt.Fprintf(bw, "  attempt %s", r.AttemptID)
	}
	fmt.Fprintf(bw, "\nSpark %s, %s → %s (%s)", orDash(r.SparkVersion), fmtTime(r.Start), fmtTime(r.End),
		time.Duration(r.End-r.Start)*time.Millisecond)
	if r.Live {
		fmt.Fprint(bw, ", no ApplicationEnd yet (still running, or the driver died)")
	}
	fmt.Fprintln(bw)
	t := r.Totals
	eff := 0.0
	if t.AvailableCoreSecs > 0 {
		eff = t.CPUSeconds / t.AvailableCoreSecs
	}
	fmt.Fprintf(bw, "%d tasks; core time available %.0f s, task CPU %.0f s (efficiency %.0f%%), serde %.0f s, shuffle wait %.0f s, GC %.0f s\n",
		t.Tasks, t.AvailableCoreSecs, t.CPUSeconds, 100*eff, t.SerdeSeconds, t.ShuffleSeconds, t.GCSeconds)
	if !r.CPUTimeAvailable {
		fmt.Fprintln(bw, "(this log has no Executor CPU Time: efficiency cannot be measured; the chart shows busy task time instead)")
	}
	if r.CoresEstimated {
		fmt.Fprintf(bw, "(local[*]: %d cores estimated from the most tasks running at once)\n", r.LocalCores)
	}
	writeChart(bw, r)
	writeWorstStages(bw, r)
	fmt.Fprintf(bw, "\nFindings (%d)\n", len(r.Findings))
	for _, f := range r.Findings {
		fmt.Fprintf(bw, "  %-18s %s%s\n", f.Kind, findingSubject(f), fmtNumbers(f.Numbers))
		fmt.Fprintf(bw, "  %-18s → %s\n", "", f.Advice)
	}
	return bw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func fmtTime(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05")
}

// writeChart draws one row per group of intervals: cpu (█), serde (▓),
// shuffle (▒) and other busy task time (░) as shares of available cores.
func writeChart(w io.Writer, r Report) {
	ivs := r.Intervals
	if len(ivs) == 0 {
		return
	}
	group := (len(ivs) + maxChartRows - 1) / maxChartRows
	const width = 50
	fmt.Fprintf(w, "\nTimeline (█ cpu ▓ serde ▒ shuffle ░ other task time; full width = all available cores)\n")
	for i := 0; i < len(ivs); i += group {
		var avail, cpu, serde, shuffle, task float64
		j := min(i+group, len(ivs))
		for _, iv := range ivs[i:j] {
			avail += iv.AvailableCoreSeconds
			cpu += iv.CPUSeconds
			serde += iv.SerdeSeconds
			shuffle += iv.ShuffleSeconds
			task += iv.TaskSeconds
		}
		bar := ""
		share := 0.0
		if avail > 0 {
			cells := func(v float64) int { return int(min(v/avail, 1)*width + 0.5) }
			c, s, sh := cells(cpu), cells(serde), cells(shuffle)
			other := max(cells(task)-c-s-sh, 0)
			bar = strings.Repeat("█", c) + strings.Repeat("▓", s) + strings.Repeat("▒", sh) + strings.Repeat("░", other)
			share = cpu / avail
		}
		fmt.Fprintf(w, "%s %4.0f%% |%s\n", time.UnixMilli(ivs[i].Start).UTC().Format("15:04:05"), 100*share, bar)
	}
}

// writeWorstStages lists the stages with the longest wall time.
func writeWorstStages(w io.Writer, r Report) {
	stages := slices.Clone(r.Stages)
	dur := func(s Stage) int64 {
		if s.CompletionTime == 0 || s.SubmissionTime == 0 {
			return 0
		}
		return s.CompletionTime - s.SubmissionTime
	}
	slices.SortFunc(stages, func(x, y Stage) int { return cmp.Compare(dur(y), dur(x)) })
	if len(stages) == 0 {
		return
	}
	fmt.Fprintf(w, "\nLongest stages\n")
	for _, s := range stages[:min(5, len(stages))] {
		med := ""
		if q := s.TaskDurations; q != nil {
			med = fmt.Sprintf(", task median %.1f s max %.1f s", q.Median/1e3, q.Max/1e3)
		}
		fmt.Fprintf(w, "  stage %d.%d %-9s %8.1f s  %d tasks%s  %s\n", s.StageID, s.AttemptID, s.Status,
			float64(dur(s))/1e3, s.NumTasks, med, truncate(s.Name, 40))
	}
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func findingSubject(f Finding) string {
	var parts []string
	if f.StageID != nil {
		parts = append(parts, fmt.Sprintf("stage %d.%d", *f.StageID, *f.StageAttemptID))
	}
	if f.ExecutorID != "" {
		parts = append(parts, "executor "+f.ExecutorID)
	}
	if f.Start != 0 {
		parts = append(parts, fmtTime(f.Start)+"–"+time.UnixMilli(f.End).UTC().Format("15:04:05"))
	}
	return strings.Join(parts, ", ")
}

func fmtNumbers(m map[string]float64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%.3g", k, m[k])
	}
	return b.String()
}
