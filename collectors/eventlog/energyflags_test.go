package eventlog

import (
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
