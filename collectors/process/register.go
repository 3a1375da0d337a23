package process

import (
	"log/slog"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/internal/jvm/discovery"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// Register adds the process collector to cat, sampling the JVMs of d (the
// node's one JVM discovery, which the stack sampler may share). The node
// agent is `sparkglance serve --collector.process`: off by default, since
// it only makes sense on a node running executors (a DaemonSet with the
// host's PID namespace). Its --path.procfs and --process.* flags fill
// d.Options whether or not it is enabled, since the stack sampler's
// discovery uses them too.
func Register(cat *exporter.Catalog, d *discovery.Service) { register(cat, d, new(float64), nil) }

// register adds the collector; built, if not nil, receives the agent.
// --energy.tdp-watts is written into tdpWatts, where the event-log
// collector of the same process reads it too (one flag, one meaning: the
// TDP of a Spark node).
func register(cat *exporter.Catalog, d *discovery.Service, tdpWatts *float64, built func(*Agent)) {
	var opts Options
	cat.Register(sm.CollectorProcess, false, func(logger *slog.Logger) (exporter.Collector, error) {
		scanner, err := d.SamplerScanner(logger)
		if err != nil {
			return nil, err
		}
		o, so := opts, scanner.Options()
		o.TDPWatts = *tdpWatts
		o.ProcfsPath, o.DiscoveryInterval = so.ProcfsPath, so.Interval
		o.Interval = so.ExitCheckInterval // the sampler's reads are the exit checks
		a, err := newAgent(o, scanner, logger)
		if err != nil {
			return nil, err
		}
		if built != nil {
			built(a)
		}
		return exporter.FromUpdater(NewCollector(a)), nil
	},
		exporter.WithHelp("Spark/Flink JVMs on this node: CPU load and energy (node agent)."),
		exporter.WithFlags(func(f exporter.FlagGroup) {
			f.Flag("path.procfs", "procfs mountpoint.").Default("/proc").StringVar(&d.Options.ProcfsPath)
			f.Flag("path.sysfs", "sysfs mountpoint (RAPL powercap zones).").Default("/sys").StringVar(&opts.SysfsPath)
			f.Flag("process.discovery-interval", "How often /proc is scanned for Spark and Flink JVMs.").Default("15s").DurationVar(&d.Options.Interval)
			f.Flag("process.interval", "How often CPU time and energy are sampled.").Default("5s").DurationVar(&d.Options.ExitCheckInterval)
			f.Flag("process.retention", "How long counters of exited processes stay exported.").Default("10m").DurationVar(&opts.Retention)
			f.Flag("energy.load-denominator", "Load denominator: total (all host CPU time, idle included) or busy (ccspark's definition).").
				Default(string(DenominatorTotal)).EnumVar((*string)(&opts.LoadDenominator), string(DenominatorTotal), string(DenominatorBusy))
			f.Flag("energy.tdp-watts", "Host TDP in watts for the load × TDP model (0: look the CPU model up).").Default("0").Float64Var(tdpWatts)
		}))
}
