//go:build !linux

package process

import "errors"

// errNoRAPL: powercap counters are a Linux interface (procfs' sysfs
// package builds only there); elsewhere the energy comes from the TDP
// model. The node agent is meant for Linux nodes, but the binary builds
// for every release platform.
var errNoRAPL = errors.New("RAPL: powercap counters exist only on Linux")

// raplMeter is never opened off Linux.
type raplMeter struct{}

func openRAPL(string) (*raplMeter, error) { return nil, errNoRAPL }

func (*raplMeter) read() (map[string]float64, error) { return nil, errNoRAPL }
