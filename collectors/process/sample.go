package process

import (
	"fmt"
	"time"
)

// cpuDelta is what one tracked process used in the period.
type cpuDelta struct {
	series  *seriesState
	seconds float64
}

// Sample reads the CPU time of every tracked process and of the host, and
// adds the period's CPU seconds and energy to the counters. The first call
// only sets the baselines. now is the sampling instant (time.Now() in Run).
func (a *Agent) Sample(now time.Time) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.sampled && !now.After(a.prevTime) {
		return fmt.Errorf("sample at %v is not after the previous one at %v", now, a.prevTime)
	}
	host, _, err := readHostCPU(a.fs)
	if err != nil {
		a.logOnce("host CPU unreadable", err)
		return fmt.Errorf("sample: %w", err)
	}
	var raplJ map[string]float64
	if a.rapl != nil {
		raplJ, err = a.rapl.read()
		a.logOnce("RAPL unreadable, using the TDP model for this period", err)
	}
	deltas := a.readProcesses(now)
	if !a.sampled {
		a.prevHost, a.prevTime, a.sampled, a.firstSample = host, now, true, now
		return nil
	}
	a.account(deltas, host, raplJ, now.Sub(a.prevTime).Seconds())
	a.forget(now)
	a.prevHost, a.prevTime = host, now
	return nil
}

// readProcesses takes each tracked process's CPU delta and drops those that
// exited. A pid now held by another process (other start time) is a new
// process: the old one is dropped, the new one considered afresh.
func (a *Agent) readProcesses(now time.Time) []cpuDelta {
	deltas := make([]cpuDelta, 0, len(a.tracked))
	var changed []int
	for pid, t := range a.tracked {
		st, err := readCPUStat(t.statPath, a.statBuf)
		if err != nil || st.starttime != t.starttime {
			t.series.live--
			delete(a.tracked, pid)
			changed = append(changed, pid)
			continue
		}
		cur := st.ticks
		d := uint64(0)
		if cur > t.ticks {
			d = cur - t.ticks
		}
		t.ticks = cur
		t.series.lastSeen = now
		deltas = append(deltas, cpuDelta{t.series, float64(d) / userHZ})
	}
	// The scanner forgets an exited process and classifies a reused pid
	// afresh, so the stack sampler sharing it sees the change as soon.
	for _, pid := range changed {
		if j, ok := a.scanner.Recheck(pid); ok {
			a.track(j, now)
		}
	}
	return deltas
}

// account turns one period's deltas into load, CPU seconds and energy.
func (a *Agent) account(deltas []cpuDelta, host hostCPU, raplJ map[string]float64, dt float64) {
	dTotal := host.total - a.prevHost.total
	dBusy := host.busy - a.prevHost.busy
	denom := dTotal
	if a.opts.LoadDenominator == DenominatorBusy {
		denom = dBusy
	}
	for _, s := range a.series {
		s.load = 0
	}
	// RAPL: the active part of the measured energy (its busy share) goes
	// to processes by their share of busy CPU; the rest is the node's idle.
	var raplTotal, active float64
	for _, j := range raplJ {
		raplTotal += j
	}
	if raplJ != nil && dTotal > 0 {
		active = raplTotal * clamp01(dBusy/dTotal)
	}
	for _, d := range deltas {
		s := d.series
		s.cpuSeconds += d.seconds
		load := 0.0
		if denom > 0 {
			load = d.seconds / denom
		}
		s.load += load
		switch {
		case raplJ != nil:
			if dBusy > 0 {
				s.energy[SourceRAPL] += active * clamp01(d.seconds/dBusy)
			}
		default:
			s.energy[SourceTDP] += a.tdp.Watts * dt * load
		}
	}
	if raplJ != nil {
		for zone, j := range raplJ {
			a.node[nodeKey{SourceRAPL, zone}] += j
		}
		a.node[nodeKey{SourceRAPL, "idle"}] += raplTotal - active
	} else if denom > 0 {
		a.node[nodeKey{SourceTDP, "package"}] += a.tdp.Watts * dt * clamp01(dBusy/denom)
	}
}

// forget drops the series whose processes have all exited more than
// Options.Retention ago.
func (a *Agent) forget(now time.Time) {
	for id, s := range a.series {
		if s.live == 0 && now.Sub(s.lastSeen) > a.opts.Retention {
			delete(a.series, id)
		}
	}
}

func clamp01(x float64) float64 { return min(1, max(0, x)) }
