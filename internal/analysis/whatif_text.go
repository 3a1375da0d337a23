package analysis

import (
	"fmt"
	"io"
	"strings"
)

// maxTextCriticalStages is how many critical-path stages the text names.
const maxTextCriticalStages = 8

// writeWhatIf prints the what-if: driver versus executor time, the
// critical path, the predicted wall time per executor count and the ideal
// count.
func writeWhatIf(w io.Writer, wi *WhatIf) {
	if wi == nil {
		return
	}
	who := fmt.Sprintf("%d executors × %d cores", wi.Executors, wi.CoresPerExecutor)
	if wi.Local {
		who = fmt.Sprintf("local mode: the driver's %d cores", wi.CoresPerExecutor)
	}
	fmt.Fprintf(w, "\nWhat if (the tasks replayed on other executor counts; today %s at most)\n", who)
	fmt.Fprintf(w, "  wall %s = driver %s (no stage running) + stages %s\n",
		fmtMs(wi.WallMs), fmtMs(wi.DriverMs), fmtMs(wi.ExecutorMs))
	cp := wi.CriticalPath
	fmt.Fprintf(w, "  critical path %s (the wall time with unlimited executors; stages %s of it), %d stage attempts",
		fmtMs(cp.WallMs), fmtMs(cp.ExecutorMs), cp.StageCount)
	if len(cp.Stages) > 0 {
		longest := append([]CriticalStage(nil), cp.Stages...)
		// The longest few, named in path order.
		for i := 1; i < len(longest); i++ {
			for j := i; j > 0 && longest[j].DurationMs > longest[j-1].DurationMs; j-- {
				longest[j], longest[j-1] = longest[j-1], longest[j]
			}
		}
		if len(longest) > maxTextCriticalStages {
			longest = longest[:maxTextCriticalStages]
		}
		var parts []string
		for _, s := range cp.Stages {
			for _, l := range longest {
				if l == s {
					parts = append(parts, fmt.Sprintf("%d.%d %s", s.StageID, s.AttemptID, fmtMs(s.DurationMs)))
					break
				}
			}
		}
		fmt.Fprintf(w, ": %s", strings.Join(parts, ", "))
		if cp.StageCount > len(parts) {
			fmt.Fprint(w, ", …")
		}
	}
	fmt.Fprintln(w)
	var today int64
	for _, p := range wi.Predictions {
		if p.Executors == wi.Executors {
			today = p.WallMs
		}
	}
	fmt.Fprintf(w, "  %9s  %8s  %8s  %10s\n", "executors", "wall", "vs today", "core-hours")
	for _, p := range wi.Predictions {
		mark := " "
		switch p.Executors {
		case wi.Executors:
			mark = "="
		case wi.IdealExecutors:
			mark = "*"
		}
		vs := "-"
		if today > 0 {
			vs = fmt.Sprintf("%+.0f%%", 100*(float64(p.WallMs)/float64(today)-1))
		}
		fmt.Fprintf(w, "  %8d%s  %8s  %8s  %10.2f\n", p.Executors, mark, fmtMs(p.WallMs), vs, p.CoreHours)
	}
	ideal := "ideal"
	if wi.IdealExecutors != wi.Executors {
		ideal = "* ideal"
	}
	fmt.Fprintf(w, "  = today's peak; %s: %d executors, the fewest predicted within %.0f%% of today's wall time, saving %.2f core-hours\n",
		ideal, wi.IdealExecutors, 100*wi.Tolerance, max(wi.CoreHoursSaved, 0))
	if !wi.Local {
		fmt.Fprintln(w, "  (each count replays the executors the run had over time, scaled to that peak)")
	}
	if wi.Bucketed {
		fmt.Fprintln(w, "  (stages of over 16384 tasks were replayed in runs of consecutive tasks: exact while tasks outnumber slots)")
	}
}

func fmtMs(ms int64) string { return fmtSeconds(float64(ms) / 1e3) }
