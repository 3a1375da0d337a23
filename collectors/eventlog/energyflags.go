package eventlog

import (
	"fmt"
	"runtime"
	"strconv"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/cputdp"
)

// NodePower is, as an alternative to --energy.core-watts, the power of
// the Spark nodes, from the same TDP table and flag as the node agent.
type NodePower struct {
	// TDPWatts is --energy.tdp-watts: the node's TDP, all packages (the
	// node agent's flag; serve declares it once, for both collectors).
	TDPWatts float64
	// CPUModel is --energy.cpu-model, looked up in the TDP table (the TDP of
	// one package, times Packages); NodeCPUs is --energy.node-cpus, the
	// node's hardware threads, over which the node's TDP is divided.
	CPUModel string
	Packages int
	NodeCPUs int
}

// RegisterEnergyFlags declares the event-log energy model's flags,
// defaulting to m's and e's values and writing into them. `serve` (through
// this collector's flags) and `analyze`/`report` use it; withTDP declares
// --energy.tdp-watts too, which in `serve` the node agent declares (the
// wiring shares its value).
func RegisterEnergyFlags(f exporter.FlagGroup, m *analysis.EnergyModel, e *NodePower, withTDP bool) {
	g := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) } // never an exponent in the help
	f.Flag("energy.core-watts", "Watts one busy core (hardware thread) draws, charged per second of task CPU time (default: CodeCarbon's 4 W per core for an unknown CPU). Replaced by the node's TDP ÷ --energy.node-cpus when --energy.tdp-watts or --energy.cpu-model is given.").
		Default(g(m.CoreWatts)).Float64Var(&m.CoreWatts)
	f.Flag("energy.idle-ratio", "Share of --energy.core-watts an allocated but idle executor core draws (default: CodeCarbon's 10 % floor at zero load).").
		Default(g(m.IdleRatio)).Float64Var(&m.IdleRatio)
	f.Flag("energy.carbon-intensity", "Carbon intensity of the electricity in gCO2e/kWh (default: 2023 world average, Ember Global Electricity Review 2024).").
		Default(g(m.CarbonIntensity)).Float64Var(&m.CarbonIntensity)
	f.Flag("energy.cpu-model", "CPU model of the Spark nodes, looked up in the node agent's TDP table (e.g. \"Intel Xeon Platinum 8375C\"); with --energy.node-cpus, sets the power per core.").
		Default(e.CPUModel).StringVar(&e.CPUModel)
	f.Flag("energy.node-packages", "CPU packages (sockets) per Spark node, multiplying the TDP of --energy.cpu-model.").
		Default(strconv.Itoa(max(e.Packages, 1))).IntVar(&e.Packages)
	f.Flag("energy.node-cpus", "Hardware threads per Spark node, over which the node's TDP (--energy.tdp-watts or --energy.cpu-model) is divided.").
		Default(strconv.Itoa(e.NodeCPUs)).IntVar(&e.NodeCPUs)
	if withTDP {
		f.Flag("energy.tdp-watts", "TDP in watts of a Spark node, all packages (the node agent's flag; 0: from --energy.cpu-model, else --energy.core-watts).").
			Default(g(e.TDPWatts)).Float64Var(&e.TDPWatts)
	}
}

// ResolveEnergyModel returns m with the power per core e gives, if any: the
// node's TDP (--energy.tdp-watts, else --energy.cpu-model's row of the TDP
// table × --energy.node-packages) divided by --energy.node-cpus.
func ResolveEnergyModel(m analysis.EnergyModel, e NodePower) (analysis.EnergyModel, error) {
	switch {
	case e.TDPWatts < 0:
		return m, fmt.Errorf("--energy.tdp-watts=%g: must not be negative", e.TDPWatts)
	case e.TDPWatts > 0 || e.CPUModel != "":
		tdp, model := e.TDPWatts, ""
		if tdp == 0 {
			table, err := cputdp.Default()
			if err != nil {
				return m, err
			}
			row, ok := table.Match(e.CPUModel)
			if !ok {
				return m, fmt.Errorf("--energy.cpu-model=%q: not in the TDP table (or matches rows of different TDPs); give --energy.tdp-watts instead", e.CPUModel)
			}
			if e.Packages < 1 {
				return m, fmt.Errorf("--energy.node-packages=%d: must be at least 1", e.Packages)
			}
			tdp, model = row.Watts*float64(e.Packages), row.Name
		}
		if e.NodeCPUs < 1 {
			return m, fmt.Errorf("--energy.node-cpus=%d: add --energy.node-cpus=N, the hardware threads of one Spark node (this host has %d), to turn the node's TDP (%g W) into watts per core", e.NodeCPUs, runtime.NumCPU(), tdp)
		}
		m.CoreWatts, m.CPUModel, m.NodeTDPWatts, m.NodeCPUs = tdp/float64(e.NodeCPUs), model, tdp, e.NodeCPUs
	}
	return m, CheckEnergyModel(m)
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

// energyModel is the event-log collector's energy model. Without a
// directory to follow the collector reads no log, and --energy.tdp-watts
// is the node agent's alone (serve --collector.process --energy.tdp-watts=…
// needs no --energy.node-cpus): only the values themselves are checked.
// With one, the message of a missing --energy.node-cpus says that the flag
// is shared.
func (c Config) energyModel() (analysis.EnergyModel, error) {
	if len(c.Dirs) == 0 {
		return c.Analysis.Energy, CheckEnergyModel(c.Analysis.Energy)
	}
	m, err := ResolveEnergyModel(c.Analysis.Energy, c.NodePower)
	if err != nil && c.NodePower.TDPWatts > 0 && c.NodePower.NodeCPUs < 1 {
		err = fmt.Errorf("%w (--energy.tdp-watts, the node agent's TDP, is also the event-log energy model's for --eventlog.dir; a node agent without --eventlog.dir or --demo needs no --energy.node-cpus)", err)
	}
	return m, err
}
