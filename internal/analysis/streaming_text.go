package analysis

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/sparkglance/sparkglance/internal/human"
)

// textStreamingBatches is how many of a query's latest batches the text
// report charts.
const textStreamingBatches = 12

// streamingQueryLabel names a query: its name, else its id.
func streamingQueryLabel(name, id string) string {
	if name != "" {
		return fmt.Sprintf("%q", name)
	}
	return id
}

// writeStreaming prints each streaming query: totals, where batch time
// goes, the latest batch, and a chart of the latest batches' durations
// against the trigger interval with their input and processed rates.
func writeStreaming(w io.Writer, r Report) {
	if len(r.Streaming) == 0 {
		return
	}
	fmt.Fprintf(w, "\nStreaming queries (%d)\n", len(r.Streaming))
	for _, q := range r.Streaming {
		fmt.Fprintf(w, "  %s", streamingQueryLabel(q.Name, q.ID))
		if q.Name != "" {
			fmt.Fprintf(w, " (id %s)", q.ID)
		}
		fmt.Fprintf(w, ": %s, %s, %s, batch time %s", q.Status, human.Plural(q.Batches, "batch", "batches"), human.Plural(q.InputRows, "input row"), fmtSeconds(q.BatchSeconds))
		if q.TriggerIntervalSeconds > 0 {
			fmt.Fprintf(w, ", trigger every %s", fmtSeconds(q.TriggerIntervalSeconds))
		}
		fmt.Fprintln(w)
		if q.Exception != "" {
			fmt.Fprintf(w, "    failed: %s\n", truncate(strings.Join(strings.Fields(q.Exception), " "), 120))
		}
		if ph := phaseText(q.PhaseSeconds); ph != "" {
			fmt.Fprintf(w, "    phases: %s\n", ph)
		}
		if b := q.Last; b != nil {
			fmt.Fprintf(w, "    last batch %d: %s, %s, in %s, processed %s rows/s, state %s in %s",
				b.BatchID, fmtSeconds(b.DurationSeconds), human.Plural(b.InputRows, "row"), fmtRate(b.InputRowsPerSecond), fmtRate(b.ProcessedRowsPerSecond),
				human.Plural(b.StateRows, "row"), fmtBytes(float64(b.StateMemoryBytes)))
			if b.WatermarkLagSeconds != nil {
				fmt.Fprintf(w, ", watermark %s behind", fmtSeconds(*b.WatermarkLagSeconds))
			}
			if b.OffsetLag != nil {
				fmt.Fprintf(w, ", %s offsets not yet read", human.Number(*b.OffsetLag))
			}
			fmt.Fprintln(w)
		}
		if q.BehindBatches > 0 {
			fmt.Fprintf(w, "    fell behind in %s of %s", human.Count(q.BehindBatches), human.Plural(q.Batches, "batch", "batches"))
			if q.BehindStreak > 0 {
				fmt.Fprintf(w, ", the latest %s in a row", human.Count(q.BehindStreak))
			}
			fmt.Fprintln(w)
		}
		writeBatchChart(w, q)
	}
}

// phaseText lists the phases by time, triggerExecution (the whole) left out.
func phaseText(ph map[string]float64) string {
	total := ph["triggerExecution"]
	keys := slices.Collect(maps.Keys(ph))
	slices.SortFunc(keys, func(x, y string) int { return cmp.Or(cmp.Compare(ph[y], ph[x]), cmp.Compare(x, y)) })
	var parts []string
	for _, k := range keys {
		if k == "triggerExecution" {
			continue
		}
		p := k + " " + fmtSeconds(ph[k])
		if total > 0 {
			p += " (" + human.Percent(ph[k]/total) + ")"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

func fmtRate(r *float64) string {
	if r == nil || math.IsNaN(*r) || math.IsInf(*r, 0) {
		return "-"
	}
	return human.Number(*r)
}

// writeBatchChart draws the latest batches' durations as bars, a '|' at
// the trigger interval, '!' after a batch that fell behind.
func writeBatchChart(w io.Writer, q StreamingQuery) {
	bs := q.Recent[max(len(q.Recent)-textStreamingBatches, 0):]
	if len(bs) < 2 {
		return
	}
	const width = 30
	scale := q.TriggerIntervalSeconds
	for _, b := range bs {
		scale = max(scale, b.DurationSeconds)
	}
	if !(scale > 0) || math.IsInf(scale, 0) {
		return
	}
	mark := -1
	if q.TriggerIntervalSeconds > 0 {
		mark = min(int(q.TriggerIntervalSeconds/scale*width+0.5), width)
	}
	fmt.Fprintf(w, "    %8s  %-*s %8s %8s   (rows/s)\n", "batch", width+1, "duration", "in", "done")
	for _, b := range bs {
		n := min(max(int(b.DurationSeconds/scale*width+0.5), 0), width)
		bar := []rune(strings.Repeat("█", n) + strings.Repeat(" ", width-n+1))
		if mark >= 0 {
			bar[mark] = '|'
		}
		flag := ""
		if b.Behind {
			flag = " !"
		}
		fmt.Fprintf(w, "    %8d  %s %8s %8s %8s%s\n", b.BatchID, string(bar), fmtSeconds(b.DurationSeconds),
			fmtRate(b.InputRowsPerSecond), fmtRate(b.ProcessedRowsPerSecond), flag)
	}
}
