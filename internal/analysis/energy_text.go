package analysis

import (
	"cmp"
	"fmt"
	"io"
	"slices"

	"github.com/sparkglance/sparkglance/internal/human"
)

// writeEnergy prints the application's energy and carbon and the stages
// that used most of it.
func writeEnergy(w io.Writer, r Report) {
	e := r.Energy
	if e == nil || !r.CPUTimeAvailable {
		return
	}
	m := e.Model
	fmt.Fprintf(w, "energy %s (%s: %s W per busy core, idle cores %s of it): active %s, idle %s; %s CO2e at %s g/kWh\n",
		fmtWattHours(e.WattHours), e.Source, human.Number(m.CoreWatts), human.Percent(m.IdleRatio),
		fmtWattHours(e.ActiveJoules/JoulesPerWattHour), fmtWattHours(e.IdleJoules/JoulesPerWattHour),
		fmtGrams(e.CarbonGrams), human.Number(m.CarbonIntensity))
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
		fmt.Fprintf(w, "stage %d.%d %s (%s)", s.StageID, s.AttemptID, fmtWattHours(s.Joules/JoulesPerWattHour), human.Percent(s.Joules/e.ActiveJoules))
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

func fmtWattHours(wh float64) string { return human.WattHours(wh) }

func fmtGrams(g float64) string { return human.Grams(g) }
