package analysis

import (
	"cmp"
	"fmt"
	"io"
	"slices"
)

// writeEnergy prints the application's energy and carbon and the stages
// that used most of it.
func writeEnergy(w io.Writer, r Report) {
	e := r.Energy
	if e == nil || !r.CPUTimeAvailable {
		return
	}
	m := e.Model
	fmt.Fprintf(w, "energy %s (%s: %g W per busy core, idle cores %g%% of it): active %s, idle %s; %s CO2e at %g g/kWh\n",
		fmtWattHours(e.WattHours), e.Source, m.CoreWatts, 100*m.IdleRatio,
		fmtWattHours(e.ActiveJoules/JoulesPerWattHour), fmtWattHours(e.IdleJoules/JoulesPerWattHour),
		fmtGrams(e.CarbonGrams), m.CarbonIntensity)
	if len(e.Stages) == 0 || e.ActiveJoules <= 0 {
		return
	}
	idx := topStageEnergy(e.Stages)
	fmt.Fprintf(w, "  most energy: ")
	for n, i := range idx[:min(3, len(idx))] {
		s := e.Stages[i]
		if n > 0 {
			fmt.Fprint(w, ", ")
		}
		fmt.Fprintf(w, "stage %d.%d %s (%.0f%%)", s.StageID, s.AttemptID, fmtWattHours(s.Joules/JoulesPerWattHour), 100*s.Joules/e.ActiveJoules)
	}
	fmt.Fprintln(w)
}

// topStageEnergy orders stage attempts by energy, largest first (ties:
// the newest stage).
func topStageEnergy(stages []StageEnergy) []int {
	idx := make([]int, len(stages))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(x, y int) int {
		return cmp.Or(cmp.Compare(stages[y].Joules, stages[x].Joules), cmp.Compare(stages[y].StageID, stages[x].StageID))
	})
	return idx
}

// fmtWattHours prints energy in Wh, kWh or MWh.
func fmtWattHours(wh float64) string { return fmtThousands(wh, "Wh", "kWh", "MWh") }

// fmtGrams prints a mass of CO2e in g, kg or t.
func fmtGrams(g float64) string { return fmtThousands(g, "g", "kg", "t") }

// fmtThousands prints v in its unit, or in the units a thousand and a
// million times bigger, to three significant digits.
func fmtThousands(v float64, unit, kilo, mega string) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.3g %s", v/1e6, mega)
	case v >= 1e3:
		return fmt.Sprintf("%.3g %s", v/1e3, kilo)
	}
	return fmt.Sprintf("%.3g %s", v, unit)
}
