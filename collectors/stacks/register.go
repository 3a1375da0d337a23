package stacks

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/internal/jvm/discovery"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
	"github.com/sparkglance/sparkglance/internal/profiles"
)

// Register adds the stack sampler to cat: `sparkglance serve
// --collector.stacks`, off by default, since every dump pauses the JVM at a
// safepoint. It lists the JVMs of d, the node's one discovery, which the
// process collector samples when enabled and this collector runs itself
// otherwise.
func Register(cat *exporter.Catalog, d *discovery.Service) {
	var (
		opts      Options
		rulesFile string
		uis       []string
	)
	cat.Register(sm.CollectorStacks, false, func(logger *slog.Logger) (exporter.Collector, error) {
		o := opts
		o.Discovery = d
		if rulesFile != "" {
			rules, err := LoadRules(rulesFile)
			if err != nil {
				return nil, err
			}
			o.Rules = rules
		}
		for _, ui := range uis {
			if err := checkUI(ui); err != nil {
				return nil, err
			}
		}
		o.SparkUIs = uis
		switch {
		case o.Interval <= 0:
			return nil, fmt.Errorf("--stacks.interval %v must be positive", o.Interval)
		case o.Window < o.Interval:
			return nil, fmt.Errorf("--stacks.window %v is shorter than --stacks.interval %v", o.Window, o.Interval)
		case o.ProfilingOptions.MaxDuration <= 0 || o.ProfilingOptions.HistorySize <= 0:
			return nil, fmt.Errorf("--profiling.max-duration and --profiling.history-size must be positive")
		}
		c, err := NewCollector(o, logger)
		if err != nil {
			return nil, err
		}
		return exporter.FromUpdater(c), nil
	},
		// The profiles API is served by this collector: without it the
		// flag would silently serve nothing.
		exporter.WithCheck(func(enabled bool) error {
			if opts.Profiling && !enabled {
				return errors.New("--profiling.enabled needs --collector.stacks: the profiles API is served by the stack sampler")
			}
			return nil
		}),
		exporter.WithHelp("Thread dumps of Spark executors and Flink TaskManagers: task-thread states and blocked ratio (node agent)."),
		exporter.WithFlags(func(f exporter.FlagGroup) {
			f.Flag("stacks.interval", "How often each discovered JVM's threads are dumped.").Default("1s").DurationVar(&opts.Interval)
			f.Flag("stacks.window", "Window of spark_executor_blocked_ratio.").Default(DefaultWindow.String()).DurationVar(&opts.Window)
			f.Flag("stacks.timeout", "Deadline of one thread dump; a target that misses it is counted and backed off.").Default("10s").DurationVar(&opts.Timeout)
			f.Flag("stacks.workers", "Thread dumps taken at the same time.").Default("4").IntVar(&opts.Workers)
			f.Flag("stacks.rules-file", "JSON file of extra classification rules (see stacks.RulesFile).").StringVar(&rulesFile)
			f.Flag("stacks.spark-ui", "Spark driver UI to dump executors through REST when their processes are not visible (repeatable), e.g. http://driver:4040.").StringsVar(&uis)
			f.Flag("profiling.enabled", "Serve the JVM profiles API under /api/v1/profiles (needs --collector.stacks).").Default("false").BoolVar(&opts.Profiling)
			f.Flag("profiling.max-duration", "Longest profile a client may ask for.").Default(profiles.DefaultMaxDuration.String()).DurationVar(&opts.ProfilingOptions.MaxDuration)
			f.Flag("profiling.history-size", "Profiles kept; the oldest finished one is deleted first.").Default(fmt.Sprint(profiles.DefaultHistorySize)).IntVar(&opts.ProfilingOptions.HistorySize)
		}))
}

func checkUI(ui string) error {
	u, err := url.Parse(ui)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--stacks.spark-ui %q: want an http(s) URL such as http://driver:4040", redactURL(ui))
	}
	return nil
}
