package process

import (
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/sysfs"
)

// Power sources, as exported in the source label of the energy counters.
const (
	SourceRAPL = "rapl"
	SourceTDP  = "tdp"
)

// Agent is the node agent's model: the processes it tracks and the
// counters it accumulates. All methods are safe for concurrent use.
type Agent struct {
	opts Options
	log  *slog.Logger
	fs   procfs.FS
	tdp  TDPInfo
	rapl *raplMeter // nil: the TDP model is the power source

	mu       sync.Mutex
	bootTime uint64 // host boot, Unix seconds
	tracked  map[int]*trackedProc
	ignored  map[int]ignoredProc
	series   map[Identity]*seriesState
	node     map[nodeKey]float64
	prevHost hostCPU
	prevTime time.Time
	sampled  bool
	lastErr  string // last sampling problem logged, to log each one once
	statBuf  []byte // reused by every /proc/<pid>/stat read
}

// trackedProc is one live JVM; (pid, starttime) identifies it.
type trackedProc struct {
	proc      procfs.Proc
	statPath  string // <procfs>/<pid>/stat
	starttime uint64
	ticks     uint64 // CPU ticks at the last sample
	series    *seriesState
}

// ignoredProc remembers a process that is not ours, so that discovery does
// not read its command line again. comm is kept because a launcher script
// that execs java keeps its pid and start time but not its comm.
type ignoredProc struct {
	starttime uint64
	comm      string
}

// seriesState accumulates the counters of one Identity.
type seriesState struct {
	id         Identity
	placement  Placement
	cpuSeconds float64
	load       float64            // of the last period, summed over live processes
	energy     map[string]float64 // joules by power source
	live       int                // tracked processes feeding this series
	lastSeen   time.Time
}

type nodeKey struct{ source, zone string }

// New builds an Agent: it opens procfs and sysfs, chooses the power
// source and the TDP, and logs once when it has to fall back to a default.
func New(opts Options, logger *slog.Logger) (*Agent, error) {
	opts, err := opts.withDefaults()
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
	_, bootTime, err := readHostCPU(fs)
	if err != nil {
		return nil, fmt.Errorf("procfs %s: %w", opts.ProcfsPath, err)
	}
	a := &Agent{
		opts: opts, log: logger, fs: fs, bootTime: bootTime,
		tracked: map[int]*trackedProc{},
		ignored: map[int]ignoredProc{},
		series:  map[Identity]*seriesState{},
		node:    map[nodeKey]float64{},
		statBuf: make([]byte, 4096),
	}
	table, err := DefaultTDPTable()
	if err != nil {
		return nil, err
	}
	var warning string
	a.tdp, warning = detectTDP(fs, opts.TDPWatts, table)
	if warning != "" {
		logger.Warn("TDP unknown", "reason", warning)
	}
	if sfs, err := sysfs.NewFS(opts.SysfsPath); err != nil {
		logger.Info("energy from the TDP model", "reason", err)
	} else if a.rapl, err = openRAPL(sfs); err != nil {
		logger.Info("energy from the TDP model", "reason", err)
	}
	logger.Info("process energy model", "source", a.PowerSource(),
		"tdp_watts", a.tdp.Watts, "tdp_source", a.tdp.Source, "cpu_model", a.tdp.CPUModel)
	return a, nil
}

// PowerSource is SourceRAPL when powercap counters are readable, else SourceTDP.
func (a *Agent) PowerSource() string {
	if a.rapl != nil {
		return SourceRAPL
	}
	return SourceTDP
}

// TDP is the TDP the model charges and where it came from.
func (a *Agent) TDP() TDPInfo { return a.tdp }

// Options returns the options in effect, defaults filled in.
func (a *Agent) Options() Options { return a.opts }

// logOnce logs a sampling problem when it differs from the previous one,
// so a lasting fault does not flood the log every interval.
func (a *Agent) logOnce(msg string, err error) {
	if err == nil {
		a.lastErr = ""
		return
	}
	if s := msg + ": " + err.Error(); s != a.lastErr {
		a.lastErr = s
		a.log.Warn(msg, "err", err)
	}
}
