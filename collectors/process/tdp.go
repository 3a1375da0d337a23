package process

import (
	"fmt"

	"github.com/prometheus/procfs"

	"github.com/sparkglance/sparkglance/internal/cputdp"
)

// Where the TDP came from, as exported in spark_node_cpu_tdp_watts{source}.
const (
	TDPSourceFlag    = "flag"
	TDPSourceTable   = "table"
	TDPSourceDefault = "default"
)

// TDPInfo is the power the TDP model charges for the whole host.
type TDPInfo struct {
	Watts    float64 // all packages together
	CPUModel string  // the table's name when matched, else cpuinfo's model name
	Source   string  // TDPSourceFlag, TDPSourceTable or TDPSourceDefault
	Packages int     // physical packages counted in cpuinfo (at least 1)
}

// detectTDP picks the host's TDP: the flag, else the cpuinfo model looked
// up in the table times the number of packages, else DefaultPackageWatts
// per package. warning is non-empty when the default had to be used.
func detectTDP(fs procfs.FS, flagWatts float64, table *cputdp.Table) (info TDPInfo, warning string) {
	model, packages, cpuinfoErr := cpuModel(fs)
	info = TDPInfo{CPUModel: model, Packages: packages}
	if info.CPUModel == "" {
		info.CPUModel = "unknown"
	}
	if flagWatts > 0 {
		info.Watts, info.Source = flagWatts, TDPSourceFlag
		return info, ""
	}
	if table != nil && model != "" {
		if m, ok := table.Match(model); ok {
			info.Watts, info.CPUModel, info.Source = m.Watts*float64(packages), m.Name, TDPSourceTable
			return info, ""
		}
	}
	info.Watts, info.Source = DefaultPackageWatts*float64(packages), TDPSourceDefault
	reason := fmt.Sprintf("CPU model %q is not in the TDP table", model)
	if cpuinfoErr != nil {
		reason = "cannot read cpuinfo: " + cpuinfoErr.Error()
	}
	return info, fmt.Sprintf("%s; charging the default %.0f W × %d package(s); set --energy.tdp-watts to correct it",
		reason, DefaultPackageWatts, packages)
}
