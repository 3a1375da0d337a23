package process

import (
	"strings"

	"github.com/prometheus/procfs"
)

// cpuModel returns the first "model name" in cpuinfo and the number of
// distinct physical ids (1 when cpuinfo has none, as on many ARM hosts).
func cpuModel(fs procfs.FS) (model string, packages int, err error) {
	cpus, err := fs.CPUInfo()
	if err != nil {
		return "", 1, err
	}
	ids := map[string]bool{}
	for _, c := range cpus {
		if model == "" {
			model = strings.TrimSpace(c.ModelName)
		}
		if c.PhysicalID != "" {
			ids[c.PhysicalID] = true
		}
	}
	return model, max(1, len(ids)), nil
}
