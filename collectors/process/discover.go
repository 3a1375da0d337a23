package process

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/prometheus/procfs"
)

// Discover scans procfs for Spark and Flink JVMs not yet tracked. Processes
// already known are left to Sample, which also notices exits and pid reuse.
func (a *Agent) Discover(now time.Time) error {
	procs, err := a.fs.AllProcs()
	if err != nil {
		return fmt.Errorf("discover: %w", err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	seen := make(map[int]bool, len(procs))
	for _, p := range procs {
		seen[p.PID] = true
		if _, ok := a.tracked[p.PID]; ok {
			continue
		}
		st, err := p.Stat()
		if err != nil {
			continue // exited while we looked
		}
		if ig, ok := a.ignored[p.PID]; ok && ig.starttime == st.Starttime && ig.comm == st.Comm {
			continue
		}
		a.consider(p, st, now)
	}
	for pid := range a.ignored {
		if !seen[pid] {
			delete(a.ignored, pid)
		}
	}
	return nil
}

// consider classifies one process and tracks it if it is ours. Called with
// a.mu held.
func (a *Agent) consider(p procfs.Proc, st procfs.ProcStat, now time.Time) {
	argv, err := p.CmdLine()
	if err != nil || len(argv) == 0 { // gone, or a kernel thread
		a.ignored[p.PID] = ignoredProc{st.Starttime, st.Comm}
		return
	}
	cmd, isJava, err := parseJVMCommand(argv, a.argFileReader(p.PID))
	if err != nil {
		a.log.Debug("java command line not understood", "pid", p.PID, "err", err)
	}
	id, ours := classify(cmd, pidIdentity(p.PID, st.Starttime))
	if !isJava || !ours {
		a.ignored[p.PID] = ignoredProc{st.Starttime, st.Comm}
		return
	}
	delete(a.ignored, p.PID)
	s := a.series[id]
	if s == nil {
		s = &seriesState{id: id, energy: map[string]float64{}}
		a.series[id] = s
	}
	if cgroups, err := p.Cgroups(); err == nil {
		s.placement = placementFromCgroups(cgroups)
	}
	s.live++
	s.lastSeen = now
	t := &trackedProc{proc: p, starttime: st.Starttime, series: s, ticks: processTicks(st),
		statPath: filepath.Join(a.opts.ProcfsPath, strconv.Itoa(p.PID), "stat")}
	// A process born after the last sample used all its CPU inside the
	// coming period: count it from zero rather than lose it.
	born := float64(a.bootTime) + float64(st.Starttime)/userHZ
	if a.sampled && born > float64(a.prevTime.UnixNano())/1e9 {
		t.ticks = 0
	}
	a.tracked[p.PID] = t
	a.log.Debug("tracking", "pid", p.PID, "framework", id.Framework, "role", id.Role,
		"app_id", id.AppID, "executor_id", id.ExecutorID)
}

// argFileReader opens a JVM's @argfile as the JVM sees it: relative paths
// from its working directory, absolute ones under its root (which differs
// inside a container).
func (a *Agent) argFileReader(pid int) func(string) ([]byte, error) {
	dir := filepath.Join(a.opts.ProcfsPath, strconv.Itoa(pid))
	return func(name string) ([]byte, error) {
		full := filepath.Join(dir, "cwd", name)
		if filepath.IsAbs(name) {
			full = filepath.Join(dir, "root", name)
		}
		f, err := os.Open(full)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return io.ReadAll(io.LimitReader(f, maxArgFileBytes+1))
	}
}
