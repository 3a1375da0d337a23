package process

import (
	"errors"
	"fmt"

	"github.com/prometheus/procfs/sysfs"
)

// raplZone is one powercap counter and its last reading.
type raplZone struct {
	zone  sysfs.RaplZone
	label string // "package-0", "dram-0": the zone label
	last  uint64
	valid bool // last holds a reading to take a difference from
}

// raplMeter reads the package and dram zones. Other zones (core, uncore,
// psys) overlap those two and would count the same joules twice.
type raplMeter struct {
	zones []*raplZone
}

// openRAPL returns a meter when at least one package zone under the sysfs
// mounted at sysfsPath can be read; otherwise the error says why (no
// powercap, energy_uj unreadable: the usual case for non-root since
// CVE-2020-8694).
func openRAPL(sysfsPath string) (*raplMeter, error) {
	fs, err := sysfs.NewFS(sysfsPath)
	if err != nil {
		return nil, err
	}
	zones, err := sysfs.GetRaplZones(fs)
	if err != nil {
		return nil, fmt.Errorf("RAPL: %w", err)
	}
	m := &raplMeter{}
	packages := 0
	for _, z := range zones {
		if z.Name != "package" && z.Name != "dram" {
			continue
		}
		if _, err := z.GetEnergyMicrojoules(); err != nil {
			if z.Name == "package" {
				return nil, fmt.Errorf("RAPL zone %s: %w", z.Path, err)
			}
			continue // a dram zone we cannot read is left out, not fatal
		}
		if z.Name == "package" {
			packages++
		}
		m.zones = append(m.zones, &raplZone{zone: z, label: fmt.Sprintf("%s-%d", z.Name, z.Index)})
	}
	if packages == 0 {
		return nil, errors.New("RAPL: no package zone under class/powercap")
	}
	return m, nil
}

// read returns the joules each zone used since the previous read (0 for a
// zone's first reading). On any error the next read starts afresh.
func (m *raplMeter) read() (map[string]float64, error) {
	out := make(map[string]float64, len(m.zones))
	for _, z := range m.zones {
		uj, err := z.zone.GetEnergyMicrojoules()
		if err != nil {
			for _, z := range m.zones {
				z.valid = false
			}
			return nil, fmt.Errorf("RAPL zone %s: %w", z.zone.Path, err)
		}
		if z.valid {
			out[z.label] = float64(counterDelta(z.last, uj, z.zone.MaxMicrojoules)) / 1e6
		} else {
			out[z.label] = 0
		}
		z.last, z.valid = uj, true
	}
	return out, nil
}
