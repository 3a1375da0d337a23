package eventlog

import (
	"fmt"
	"strconv"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/internal/analysis"
)

// RegisterEnergyFlags declares the event-log energy model's flags,
// defaulting to m's values and writing into m. `serve` (through this
// collector's flags) and `analyze` both use it. The names keep clear of
// the process collector's --energy.tdp-watts and --energy.load-denominator,
// which serve declares too.
func RegisterEnergyFlags(f exporter.FlagGroup, m *analysis.EnergyModel) {
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	f.Flag("energy.core-watts", "Watts one busy core (hardware thread) draws, charged per second of task CPU time (default: CodeCarbon's 4 W per core for an unknown CPU; a known one: its TDP ÷ its threads).").
		Default(g(m.CoreWatts)).Float64Var(&m.CoreWatts)
	f.Flag("energy.idle-ratio", "Share of --energy.core-watts an allocated but idle executor core draws (default: CodeCarbon's 10 % floor at zero load).").
		Default(g(m.IdleRatio)).Float64Var(&m.IdleRatio)
	f.Flag("energy.carbon-intensity", "Carbon intensity of the electricity in gCO2e/kWh (default: 2023 world average, Ember Global Electricity Review 2024).").
		Default(g(m.CarbonIntensity)).Float64Var(&m.CarbonIntensity)
}

// CheckEnergyModel tells what is wrong with flag values of m.
func CheckEnergyModel(m analysis.EnergyModel) error {
	switch {
	case m.CoreWatts <= 0:
		return fmt.Errorf("--energy.core-watts=%g: must be above 0", m.CoreWatts)
	case m.IdleRatio < 0 || m.IdleRatio > 1:
		return fmt.Errorf("--energy.idle-ratio=%g: must be between 0 and 1", m.IdleRatio)
	case m.CarbonIntensity < 0:
		return fmt.Errorf("--energy.carbon-intensity=%g: must not be negative", m.CarbonIntensity)
	}
	return nil
}
