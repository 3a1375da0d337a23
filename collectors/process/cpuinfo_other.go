//go:build !linux

package process

import (
	"errors"

	"github.com/prometheus/procfs"
)

// cpuModel: /proc/cpuinfo is a Linux interface (procfs parses it only
// there); elsewhere the TDP falls back to the default or --energy.tdp-watts.
func cpuModel(procfs.FS) (model string, packages int, err error) {
	return "", 1, errors.New("cpuinfo exists only on Linux")
}
