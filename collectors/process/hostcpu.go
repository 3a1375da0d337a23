package process

import (
	"github.com/prometheus/procfs"
)

// userHZ is the kernel's clock tick for /proc/<pid>/stat times: 100 on
// every mainstream Linux architecture (procfs assumes the same).
const userHZ = 100

// hostCPU is the host's cumulative CPU time in seconds, from /proc/stat.
type hostCPU struct {
	total float64 // everything, idle included
	busy  float64 // total − idle − iowait
}

func readHostCPU(fs procfs.FS) (hostCPU, uint64, error) {
	st, err := fs.Stat()
	if err != nil {
		return hostCPU{}, 0, err
	}
	c := st.CPUTotal
	// guest time is already inside user and nice, so it is not added.
	total := c.User + c.Nice + c.System + c.Idle + c.Iowait + c.IRQ + c.SoftIRQ + c.Steal
	return hostCPU{total: total, busy: total - c.Idle - c.Iowait}, st.BootTime, nil
}
