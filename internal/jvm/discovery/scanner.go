package discovery

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/procfs"
)

// Options configure a Scanner. The zero value of a field means its default.
type Options struct {
	ProcfsPath string        // --path.procfs; default /proc
	Interval   time.Duration // --process.discovery-interval: how often Run scans; default 15s
	// ExitCheckInterval is how often Run rechecks the tracked JVMs for
	// exits and reused pids (--process.interval; default 5s). A sampler
	// that reads the processes anyway rechecks them itself.
	ExitCheckInterval time.Duration
}

// WithDefaults fills the zero fields and rejects negative intervals.
func (o Options) WithDefaults() (Options, error) {
	if o.ProcfsPath == "" {
		o.ProcfsPath = "/proc"
	}
	if o.Interval == 0 {
		o.Interval = 15 * time.Second
	}
	if o.ExitCheckInterval == 0 {
		o.ExitCheckInterval = 5 * time.Second
	}
	if o.Interval < 0 || o.ExitCheckInterval < 0 {
		return o, fmt.Errorf("discovery intervals must be positive, got %v and %v", o.Interval, o.ExitCheckInterval)
	}
	return o, nil
}

// JVM is one live Spark or Flink process.
type JVM struct {
	PID       int
	StartTime uint64 // clock ticks after boot; with PID it names the process
	Identity
	Placement
}

// Scanner is the table of the node's live Spark and Flink JVMs. All
// methods are safe for concurrent use.
type Scanner struct {
	opts Options
	log  *slog.Logger
	fs   procfs.FS

	mu      sync.Mutex
	tracked map[int]JVM
	ignored map[int]ignoredProc
}

// ignoredProc remembers a process that is not ours, so that a scan does
// not read its command line again. comm is kept because a launcher script
// that execs java keeps its pid and start time but not its comm.
type ignoredProc struct {
	starttime uint64
	comm      string
}

// NewScanner opens procfs at opts.ProcfsPath; it scans nothing yet.
func NewScanner(opts Options, logger *slog.Logger) (*Scanner, error) {
	opts, err := opts.WithDefaults()
	if err != nil {
		return nil, err
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	fs, err := procfs.NewFS(opts.ProcfsPath)
	if err != nil {
		return nil, fmt.Errorf("procfs %s: %w", opts.ProcfsPath, err)
	}
	return &Scanner{opts: opts, log: logger, fs: fs,
		tracked: map[int]JVM{}, ignored: map[int]ignoredProc{}}, nil
}

// Options returns the options in effect, defaults filled in.
func (s *Scanner) Options() Options { return s.opts }

// Scan looks for Spark and Flink JVMs not yet tracked and forgets tracked
// ones whose pid is gone. A tracked pid still present is not read again:
// Recheck tells a reused pid from the old process.
func (s *Scanner) Scan() error {
	procs, err := s.fs.AllProcs()
	if err != nil {
		return fmt.Errorf("discover: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := make(map[int]bool, len(procs))
	for _, p := range procs {
		seen[p.PID] = true
		if _, ok := s.tracked[p.PID]; ok {
			continue
		}
		st, err := p.Stat()
		if err != nil {
			continue // exited while we looked
		}
		if ig, ok := s.ignored[p.PID]; ok && ig.starttime == st.Starttime && ig.comm == st.Comm {
			continue
		}
		s.consider(p, st)
	}
	for pid := range s.ignored {
		if !seen[pid] {
			delete(s.ignored, pid)
		}
	}
	for pid := range s.tracked {
		if !seen[pid] {
			delete(s.tracked, pid)
		}
	}
	return nil
}

// Recheck reads pid's start time again: a tracked JVM that exited is
// forgotten, and a pid now held by another process is classified afresh.
// It returns the JVM now at pid, if it is one of ours.
func (s *Scanner) Recheck(pid int) (JVM, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.recheck(pid)
}

func (s *Scanner) recheck(pid int) (JVM, bool) {
	old, tracked := s.tracked[pid]
	p, err := s.fs.Proc(pid)
	var st procfs.ProcStat
	if err == nil {
		st, err = p.Stat()
	}
	if err != nil {
		delete(s.tracked, pid)
		return JVM{}, false
	}
	if tracked && old.StartTime == st.Starttime {
		return old, true
	}
	delete(s.tracked, pid)
	if ig, ok := s.ignored[pid]; ok && ig.starttime == st.Starttime && ig.comm == st.Comm {
		return JVM{}, false
	}
	s.consider(p, st)
	j, ok := s.tracked[pid]
	return j, ok
}

// RecheckAll rechecks every tracked JVM (see Recheck).
func (s *Scanner) RecheckAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, pid := range slices.Collect(maps.Keys(s.tracked)) {
		s.recheck(pid)
	}
}

// JVMs lists the tracked JVMs, sorted by pid.
func (s *Scanner) JVMs() []JVM {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]JVM, 0, len(s.tracked))
	for _, j := range s.tracked {
		out = append(out, j)
	}
	slices.SortFunc(out, func(x, y JVM) int { return x.PID - y.PID })
	return out
}

// Run scans every Options.Interval and rechecks the tracked JVMs every
// Options.ExitCheckInterval until ctx is done, scanning once at once. It is
// the loop for a node where no sampler runs the scans.
func (s *Scanner) Run(ctx context.Context) {
	scan := func() {
		if err := s.Scan(); err != nil {
			s.log.Warn("process discovery failed", "err", err)
		}
	}
	scan()
	scanTick := time.NewTicker(s.opts.Interval)
	defer scanTick.Stop()
	checkTick := time.NewTicker(s.opts.ExitCheckInterval)
	defer checkTick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-scanTick.C:
			scan()
		case <-checkTick.C:
			s.RecheckAll()
		}
	}
}

// consider classifies one process and tracks it if it is ours. Called with
// s.mu held.
func (s *Scanner) consider(p procfs.Proc, st procfs.ProcStat) {
	argv, err := p.CmdLine()
	if err != nil || len(argv) == 0 { // gone, or a kernel thread
		s.ignored[p.PID] = ignoredProc{st.Starttime, st.Comm}
		return
	}
	cmd, isJava, err := parseJVMCommand(argv, s.argFileReader(p.PID))
	if err != nil {
		s.log.Debug("java command line not understood", "pid", p.PID, "err", err)
	}
	id, ours := classify(cmd, pidIdentity(p.PID, st.Starttime))
	if !isJava || !ours {
		s.ignored[p.PID] = ignoredProc{st.Starttime, st.Comm}
		return
	}
	delete(s.ignored, p.PID)
	j := JVM{PID: p.PID, StartTime: st.Starttime, Identity: id}
	if cgroups, err := p.Cgroups(); err == nil {
		j.Placement = placementFromCgroups(cgroups)
	}
	s.tracked[p.PID] = j
	s.log.Debug("tracking", "pid", p.PID, "framework", id.Framework, "role", id.Role,
		"app_id", id.AppID, "executor_id", id.ExecutorID)
}

// argFileReader opens a JVM's @argfile as the JVM sees it: relative paths
// from its working directory, absolute ones under its root (which differs
// inside a container).
func (s *Scanner) argFileReader(pid int) func(string) ([]byte, error) {
	dir := filepath.Join(s.opts.ProcfsPath, strconv.Itoa(pid))
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
