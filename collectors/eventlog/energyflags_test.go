package eventlog

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/cputdp"
)

// The Spark nodes' power per core comes from the node agent's TDP flag or
// its TDP table, over the node's hardware threads; without either the
// model's own --energy.core-watts stands.
func TestResolveEnergyModelFromNodePower(t *testing.T) {
	def := analysis.DefaultEnergyModel()
	table, err := cputdp.Default()
	if err != nil {
		t.Fatal(err)
	}
	const model = "Intel Xeon Platinum 8375C"
	row, ok := table.Match(model)
	if !ok {
		t.Fatalf("%s not in the TDP table", model)
	}

	m, err := ResolveEnergyModel(def, NodePower{Packages: 1})
	if err != nil || m != def {
		t.Errorf("no node power: %+v, %v; want the model unchanged", m, err)
	}
	m, err = ResolveEnergyModel(def, NodePower{TDPWatts: 240, NodeCPUs: 48, Packages: 1})
	if err != nil || m.CoreWatts != 5 || m.NodeTDPWatts != 240 || m.NodeCPUs != 48 || m.CPUModel != "" {
		t.Errorf("240 W over 48 threads: %+v, %v; want 5 W per core", m, err)
	}
	m, err = ResolveEnergyModel(def, NodePower{CPUModel: model, Packages: 2, NodeCPUs: 128})
	if want := row.Watts * 2 / 128; err != nil || m.CoreWatts != want || m.CPUModel != row.Name {
		t.Errorf("%s × 2 over 128 threads: %+v, %v; want %g W per core", model, m, err, want)
	}
	m, err = ResolveEnergyModel(def, NodePower{TDPWatts: 100, CPUModel: model, Packages: 1, NodeCPUs: 10})
	if err != nil || m.CoreWatts != 10 {
		t.Errorf("the TDP flag wins over the model: %+v, %v", m, err)
	}

	for _, c := range []struct {
		p    NodePower
		want string
	}{
		{NodePower{TDPWatts: 240, Packages: 1}, "--energy.node-cpus"},
		{NodePower{CPUModel: "Zilog Z80", Packages: 1, NodeCPUs: 1}, "not in the TDP table"},
		{NodePower{CPUModel: model, Packages: 0, NodeCPUs: 8}, "--energy.node-packages"},
		{NodePower{TDPWatts: -1}, "--energy.tdp-watts"},
	} {
		if _, err := ResolveEnergyModel(def, c.p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one naming %s", c.p, err, c.want)
		}
	}
}

// --energy.tdp-watts is the node agent's flag too: a node agent (no
// directory to follow) starts with it alone, while a collector that
// follows logs asks for --energy.node-cpus by name, saying why.
func TestEnergyFlagsOfANodeAgent(t *testing.T) {
	cfg := DefaultConfig()
	cfg.NodePower.TDPWatts = 100
	if _, err := New(cfg, slog.New(slog.DiscardHandler)); err != nil {
		t.Errorf("no --eventlog.dir, --energy.tdp-watts=100: %v", err)
	}
	cfg.Dirs = []string{t.TempDir()}
	_, err := New(cfg, slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), "add --energy.node-cpus=N") || !strings.Contains(err.Error(), "node agent without --eventlog.dir") {
		t.Errorf("--eventlog.dir, --energy.tdp-watts=100, no --energy.node-cpus: %v; want the flag to add and why", err)
	}
	cfg.NodePower.NodeCPUs = 50
	if m, err := cfg.energyModel(); err != nil || m.CoreWatts != 2 {
		t.Errorf("100 W over 50 threads: %+v, %v; want 2 W per core", m, err)
	}
}
