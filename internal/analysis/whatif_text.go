package analysis

import (
	"fmt"
	"io"
	"strings"

	"github.com/sparkglance/sparkglance/internal/human"
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
	who := human.Plural(wi.Executors, "executor") + " × " + human.Plural(wi.CoresPerExecutor, "core")
	replayed := "other executor counts"
	if wi.Local {
		// Local mode has no executor: the driver's cores are what scales.
		who = "local mode: the driver's " + human.Plural(wi.CoresPerExecutor, "core")
		replayed = "other core counts"
	}
	fmt.Fprintf(w, "\nWhat if (the tasks replayed on %s; today %s at most)\n", replayed, who)
	fmt.Fprintf(w, "  wall %s = driver %s (no stage running) + stages %s\n",
		fmtMs(wi.WallMs), fmtMs(wi.DriverMs), fmtMs(wi.ExecutorMs))
	cp := wi.CriticalPath
	fmt.Fprintf(w, "  critical path %s (the wall time with unlimited executors; stages %s of it), %s",
		fmtMs(cp.WallMs), fmtMs(cp.ExecutorMs), human.Plural(cp.StageCount, "stage attempt"))
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
	unit := "executors"
	if wi.Local {
		unit = "cores"
	}
	fmt.Fprintf(w, "  %9s  %8s  %8s  %10s\n", unit, "wall", "vs today", "core-hours")
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
			vs = human.SignedPercent(float64(p.WallMs)/float64(today) - 1)
		}
		fmt.Fprintf(w, "  %8s%s  %8s  %8s  %10s\n", human.Count(wi.shown(p.Executors)), mark, fmtMs(p.WallMs), vs, human.Decimal(p.CoreHours, 2))
	}
	ideal := "ideal"
	if wi.IdealExecutors != wi.Executors {
		ideal = "* ideal"
	}
	idealCount := human.Plural(wi.IdealExecutors, "executor")
	if wi.Local {
		idealCount = human.Plural(wi.shown(wi.IdealExecutors), "core")
	}
	fmt.Fprintf(w, "  = today's peak; %s: %s, the fewest predicted within %s of today's wall time, saving %s core-hours\n",
		ideal, idealCount, human.Percent(wi.Tolerance), human.Decimal(max(wi.CoreHoursSaved, 0), 2))
	if !wi.Local {
		fmt.Fprintln(w, "  (each count replays the executors the run had over time, scaled to that peak)")
	}
	if wi.Bucketed {
		fmt.Fprintln(w, "  (stages of over 16384 tasks were replayed in runs of consecutive tasks: exact while tasks outnumber slots)")
	}
}

func fmtMs(ms int64) string { return human.Millis(ms) }

// shown is what a prediction's executor count stands for: executors, or in
// local mode (the driver counted as one executor) the driver's cores.
func (wi *WhatIf) shown(executors int) int {
	if wi.Local {
		return executors * wi.CoresPerExecutor
	}
	return executors
}
