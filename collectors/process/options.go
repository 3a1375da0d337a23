package process

import (
	"fmt"
	"time"
)

// LoadDenominator selects what a process's CPU time is divided by.
type LoadDenominator string

const (
	// DenominatorTotal divides by all host CPU time, idle included: the
	// share of the machine's capacity the process used.
	DenominatorTotal LoadDenominator = "total"
	// DenominatorBusy divides by busy host CPU time only, as ccspark does;
	// on a quiet host one busy executor then reads close to 1.
	DenominatorBusy LoadDenominator = "busy"
)

// DefaultPackageWatts is charged per CPU package when the model is unknown
// (CodeCarbon's and ccspark's default).
const DefaultPackageWatts = 85.0

// Options configure an Agent. The zero value of a field means its default.
type Options struct {
	ProcfsPath        string          // --path.procfs; default /proc
	SysfsPath         string          // --path.sysfs; default /sys
	DiscoveryInterval time.Duration   // --process.discovery-interval; default 15s
	Interval          time.Duration   // --process.interval; default 5s
	LoadDenominator   LoadDenominator // --energy.load-denominator; default total
	TDPWatts          float64         // --energy.tdp-watts for the whole host; 0 = detect
	// Retention is how long the counters of an application whose processes
	// have all exited stay exported; default 10m.
	Retention time.Duration
}

func (o Options) withDefaults() (Options, error) {
	if o.ProcfsPath == "" {
		o.ProcfsPath = "/proc"
	}
	if o.SysfsPath == "" {
		o.SysfsPath = "/sys"
	}
	if o.DiscoveryInterval == 0 {
		o.DiscoveryInterval = 15 * time.Second
	}
	if o.Interval == 0 {
		o.Interval = 5 * time.Second
	}
	if o.LoadDenominator == "" {
		o.LoadDenominator = DenominatorTotal
	}
	if o.Retention == 0 {
		o.Retention = 10 * time.Minute
	}
	switch {
	case o.LoadDenominator != DenominatorTotal && o.LoadDenominator != DenominatorBusy:
		return o, fmt.Errorf("load denominator %q: want %q or %q", o.LoadDenominator, DenominatorTotal, DenominatorBusy)
	case o.TDPWatts < 0:
		return o, fmt.Errorf("TDP %v W: must not be negative", o.TDPWatts)
	case o.DiscoveryInterval < 0 || o.Interval < 0 || o.Retention < 0:
		return o, fmt.Errorf("intervals and retention must be positive")
	}
	return o, nil
}
