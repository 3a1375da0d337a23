package process

import (
	"path/filepath"
	"strconv"
	"time"

	"github.com/sparkglance/sparkglance/internal/jvm/discovery"
)

// Discover scans procfs for Spark and Flink JVMs (through the agent's
// scanner, which may be shared with other collectors) and starts sampling
// those not yet tracked. Processes already known are left to Sample, which
// also notices exits and pid reuse.
func (a *Agent) Discover(now time.Time) error {
	if err := a.scanner.Scan(); err != nil {
		return err
	}
	jvms := a.scanner.JVMs()
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, j := range jvms {
		t, ok := a.tracked[j.PID]
		if ok && t.starttime == j.StartTime {
			continue
		}
		if ok { // the pid was reused before Sample noticed
			t.series.live--
			delete(a.tracked, j.PID)
		}
		a.track(j, now)
	}
	return nil
}

// track starts sampling one JVM the scanner found, from its CPU ticks now.
// Called with a.mu held.
func (a *Agent) track(j discovery.JVM, now time.Time) {
	statPath := filepath.Join(a.opts.ProcfsPath, strconv.Itoa(j.PID), "stat")
	st, err := readCPUStat(statPath, a.statBuf)
	if err != nil || st.starttime != j.StartTime {
		return // exited since the scan; the scanner forgets it at its next look
	}
	s := a.series[j.Identity]
	if s == nil {
		s = &seriesState{id: j.Identity, energy: map[string]float64{}, since: now}
		a.series[j.Identity] = s
	}
	s.placement = j.Placement
	s.live++
	s.lastSeen = now
	t := &trackedProc{statPath: statPath, starttime: j.StartTime, series: s, ticks: st.ticks}
	// A process born after the last sample used all its CPU inside the
	// coming period: count it from zero rather than lose it.
	born := float64(a.bootTime) + float64(j.StartTime)/userHZ
	if a.sampled && born > float64(a.prevTime.UnixNano())/1e9 {
		t.ticks = 0
	}
	a.tracked[j.PID] = t
}
