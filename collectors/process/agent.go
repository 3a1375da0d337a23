package process

import (
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/procfs"

	"github.com/sparkglance/sparkglance/internal/cputdp"
	"github.com/sparkglance/sparkglance/internal/jvm/discovery"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// Power sources, as exported in the source label of the energy counters
// (declared in the metric schema).
const (
	SourceRAPL = string(sm.PowerRAPL)
	SourceTDP  = string(sm.PowerTDP)
)

// Agent is the node agent's model: the processes it tracks and the
// counters it accumulates. All methods are safe for concurrent use.
type Agent struct {
	opts Options
	log  *slog.Logger
	fs   procfs.FS
	tdp  TDPInfo
	rapl *raplMeter // nil: the TDP model is the power source
	// scanner finds the JVMs; the stack sampler may share it.
	scanner *discovery.Scanner

	mu       sync.Mutex
	bootTime uint64 // host boot, Unix seconds
	tracked  map[int]*trackedProc
	series   map[discovery.Identity]*seriesState
	node     map[nodeKey]float64
	prevHost hostCPU
	prevTime time.Time
	sampled  bool
	// firstSample is when the node's energy counters began (the first
	// sample); their created timestamp.
	firstSample time.Time
	lastErr     string // last sampling problem logged, to log each one once
	statBuf     []byte // reused by every /proc/<pid>/stat read
}

// trackedProc is one live JVM; (pid, starttime) identifies it.
type trackedProc struct {
	statPath  string // <procfs>/<pid>/stat
	starttime uint64
	ticks     uint64 // CPU ticks at the last sample
	series    *seriesState
}

// seriesState accumulates the counters of one Identity.
type seriesState struct {
	id         discovery.Identity
	placement  discovery.Placement
	cpuSeconds float64
	load       float64            // of the last period, summed over live processes
	energy     map[string]float64 // joules by power source
	live       int                // tracked processes feeding this series
	lastSeen   time.Time
	// since is when the agent began the series (it counts CPU and energy
	// from then on): the counters' created timestamp.
	since time.Time
}

type nodeKey struct{ source, zone string }

// New builds an Agent with a JVM scanner of its own: it opens procfs and
// sysfs, chooses the power source and the TDP, and logs once when it has
// to fall back to a default.
func New(opts Options, logger *slog.Logger) (*Agent, error) {
	return newAgent(opts, nil, logger)
}

// newAgent builds an Agent that finds its JVMs with scanner (nil: a scanner
// of its own on opts.ProcfsPath).
func newAgent(opts Options, scanner *discovery.Scanner, logger *slog.Logger) (*Agent, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if scanner == nil {
		scanner, err = discovery.NewScanner(discovery.Options{ProcfsPath: opts.ProcfsPath,
			Interval: opts.DiscoveryInterval, ExitCheckInterval: opts.Interval}, logger)
		if err != nil {
			return nil, err
		}
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
		opts: opts, log: logger, fs: fs, bootTime: bootTime, scanner: scanner,
		tracked: map[int]*trackedProc{},
		series:  map[discovery.Identity]*seriesState{},
		node:    map[nodeKey]float64{},
		statBuf: make([]byte, 4096),
	}
	table, err := cputdp.Default()
	if err != nil {
		return nil, err
	}
	var warning string
	a.tdp, warning = detectTDP(fs, opts.TDPWatts, table)
	if warning != "" {
		logger.Warn("TDP unknown", "reason", warning)
	}
	if a.rapl, err = openRAPL(opts.SysfsPath); err != nil {
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

// Scanner returns the JVM scanner the agent samples the processes of.
func (a *Agent) Scanner() *discovery.Scanner { return a.scanner }

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
