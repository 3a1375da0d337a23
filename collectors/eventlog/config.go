package eventlog

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/workload"
)

// Config is what the event-log collector needs.
type Config struct {
	Dirs []string // directories (or single logs) to watch
	// PollInterval is how often logs and directories are looked at when no
	// file-system notification arrives (and the only way when fsnotify
	// cannot watch).
	PollInterval time.Duration
	// Retention keeps a finished application this long after it ended (its
	// ApplicationEnd, else its last event); finished logs untouched for
	// longer are not even read. Either way a log left out is counted in
	// sparkglance_eventlog_skipped_total and logged.
	Retention time.Duration
	// MaxApps bounds the applications held; the oldest finished go first.
	MaxApps int
	// Interval is the width of the live intervals.
	Interval time.Duration
	// SettleTimeout publishes an interval that is still not settled this
	// long after it ended.
	SettleTimeout time.Duration
	// Workers bounds how many logs are read at once; each holds a worker
	// for at most SliceTime before letting the others go.
	Workers   int
	SliceTime time.Duration
	// Analysis carries the finding thresholds (--finding.*); its Interval
	// is replaced by Interval above.
	Analysis analysis.Config
	// SQLMaxOperators bounds the operator label of the spark_sql_operator_*
	// series: the operators with the most time per application, the rest
	// summed as "other".
	SQLMaxOperators int
	// FollowExternalLinks reads symbolic links in a watched directory that
	// lead outside it; off, each is counted as an external-link error.
	FollowExternalLinks bool
	// Shard selects the applications this process follows (shard.go).
	Shard ShardConfig
	// ExecutorMetrics is how executors are exported: "all" (a series set
	// per executor), "summary" (per-application quantiles across
	// executors) or "none"; MaxExecutorsPerApp (0: no limit) bounds the
	// executors of "all", the rest summed as executor_id="other"
	// (cardinality.go).
	ExecutorMetrics    string
	MaxExecutorsPerApp int
	// ScanInterval is how often an object-store location (s3://, gs://,
	// abfss://…) is listed and its live logs looked at: stores send no
	// notifications, and each look is a billed request.
	ScanInterval time.Duration
	// ObjectRequestsPerScan bounds the listing requests of one scan of an
	// object-store location; a longer listing goes on at the next scan.
	ObjectRequestsPerScan int
	// MaxStages bounds the stage_id label of the spark_stage_* series per
	// application: the most recent stages, the rest summed as "other".
	MaxStages int
	// Measured, when set, is a node agent's per-executor energy in the
	// same process; stage and application energy then also come with
	// source="measured".
	Measured MeasuredEnergy
	// NodePower, when given, sets Analysis.Energy's power per core from the
	// Spark nodes' TDP (energyflags.go).
	NodePower NodePower
	// Workload chooses the runs' workload keys (into Analysis.Workload)
	// and the baselines' run count.
	Workload WorkloadFlags
	// MaxWorkloads bounds the recurring workloads whose runs are kept
	// (workloads.go).
	MaxWorkloads int
}

// DefaultConfig returns the documented defaults and no directory.
func DefaultConfig() Config {
	return Config{
		PollInterval:    time.Second,
		Retention:       time.Hour,
		MaxApps:         1000,
		Interval:        analysis.DefaultConfig().Interval,
		SettleTimeout:   5 * time.Minute,
		Workers:         max(2, runtime.GOMAXPROCS(0)),
		SliceTime:       50 * time.Millisecond,
		Analysis:        analysis.DefaultConfig(),
		SQLMaxOperators: 20,
		Shard:           ShardConfig{Total: 1},
		ExecutorMetrics: ExecutorMetricsAll,

		ScanInterval:          30 * time.Second,
		ObjectRequestsPerScan: 100,
		MaxStages:             DefaultMaxStages,
		NodePower:             NodePower{Packages: 1},
		Workload:              DefaultWorkloadFlags(),
		MaxWorkloads:          workload.DefaultMaxWorkloads,
	}
}

func (c Config) validate() error {
	var errs []error
	if c.PollInterval <= 0 {
		errs = append(errs, fmt.Errorf("--eventlog.poll-interval %v must be positive", c.PollInterval))
	}
	if c.Retention < 0 {
		errs = append(errs, fmt.Errorf("--eventlog.retention %v must not be negative", c.Retention))
	}
	if c.MaxApps <= 0 {
		errs = append(errs, fmt.Errorf("--eventlog.max-apps %d must be positive", c.MaxApps))
	}
	if c.Interval < time.Second {
		errs = append(errs, fmt.Errorf("--eventlog.interval %v must be at least 1s", c.Interval))
	}
	if c.SettleTimeout <= 0 {
		errs = append(errs, fmt.Errorf("--eventlog.settle-timeout %v must be positive", c.SettleTimeout))
	}
	if c.ScanInterval <= 0 {
		errs = append(errs, fmt.Errorf("--eventlog.scan-interval %v must be positive", c.ScanInterval))
	}
	if c.ObjectRequestsPerScan <= 0 {
		errs = append(errs, fmt.Errorf("--eventlog.object-requests-per-scan %d must be positive", c.ObjectRequestsPerScan))
	}
	if c.SQLMaxOperators <= 0 {
		errs = append(errs, fmt.Errorf("--sql.max-operators %d must be positive", c.SQLMaxOperators))
	}
	if err := c.Shard.validate(); err != nil && !c.Shard.FromHostname {
		errs = append(errs, err)
	}
	if err := c.validateCardinality(); err != nil {
		errs = append(errs, err)
	}
	if c.MaxWorkloads <= 0 {
		errs = append(errs, fmt.Errorf("--workload.max-workloads %d must be positive", c.MaxWorkloads))
	}
	if c.MaxStages <= 0 {
		errs = append(errs, fmt.Errorf("--eventlog.max-stages %d must be positive", c.MaxStages))
	}
	if _, err := c.energyModel(); err != nil {
		errs = append(errs, err)
	}
	if err := CheckCostModel(c.Analysis.Cost); err != nil {
		errs = append(errs, err)
	}
	if _, err := c.Workload.Resolve(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// declareFlags declares the collector's flags, filling c.
func declareFlags(g exporter.FlagGroup, c *Config) {
	d := DefaultConfig()
	g.Flag("eventlog.dir", "Spark event-log directory (spark.eventLog.dir) or single log to follow; repeatable.").
		StringsVar(&c.Dirs)
	g.Flag("eventlog.poll-interval", "How often logs and directories are polled when no file-system notification arrives (a directory whose listing takes longer than 1/50 of this, less often: 50 times as long as its listing).").
		Default(d.PollInterval.String()).DurationVar(&c.PollInterval)
	g.Flag("eventlog.retention", "How long a finished application's series stay after it ended (ApplicationEnd, else its last event); older applications are skipped, counted in sparkglance_eventlog_skipped_total and logged.").
		Default(d.Retention.String()).DurationVar(&c.Retention)
	g.Flag("eventlog.max-apps", "Most application attempts held in memory (the oldest finished are dropped first).").
		Default(fmt.Sprint(d.MaxApps)).IntVar(&c.MaxApps)
	g.Flag("eventlog.interval", "Width of the live efficiency intervals.").
		Default(d.Interval.String()).DurationVar(&c.Interval)
	g.Flag("eventlog.settle-timeout", "Publish an interval that still has running tasks this long after it ended.").
		Default(d.SettleTimeout.String()).DurationVar(&c.SettleTimeout)
	g.Flag("eventlog.follow-external-links", "Read symbolic links in a watched directory that lead outside it (off: such links are skipped and counted as errors).").
		Default("false").BoolVar(&c.FollowExternalLinks)
	g.Flag("eventlog.scan-interval", "How often an object-store --eventlog.dir (s3://, gs://, abfss://…) is listed and its live logs looked at; each look is a request the store bills.").
		Default(d.ScanInterval.String()).DurationVar(&c.ScanInterval)
	g.Flag("eventlog.object-requests-per-scan", "Most listing requests (of up to 1000 keys each) one scan of an object-store --eventlog.dir sends; a longer listing goes on at the next scan.").
		Default(fmt.Sprint(d.ObjectRequestsPerScan)).IntVar(&c.ObjectRequestsPerScan)
	g.Flag("sql.max-operators", "Operator names kept per application in spark_sql_operator_* (by time; the rest are summed as \"other\").").
		Default(fmt.Sprint(d.SQLMaxOperators)).IntVar(&c.SQLMaxOperators)
	g.Flag("eventlog.shard", "Shard of this process, from 0: it follows only the applications whose id (from the log's name) hashes to it (FNV-1a 64 modulo --eventlog.total-shards); the directory listing is shared, reading is not.").
		Default("0").IntVar(&c.Shard.Shard)
	g.Flag("eventlog.total-shards", "Number of processes the applications of --eventlog.dir are split between (1: this process follows all).").
		Default(fmt.Sprint(d.Shard.Total)).IntVar(&c.Shard.Total)
	g.Flag("eventlog.shard-from-hostname", "Take --eventlog.shard from the trailing -<n> of the host name (a StatefulSet pod's ordinal).").
		Default("false").BoolVar(&c.Shard.FromHostname)
	g.Flag("eventlog.executor-metrics", "Per-executor series: all (one set per executor), summary (per-application quantiles and maxima across executors, for applications with many executors) or none.").
		Default(d.ExecutorMetrics).EnumVar(&c.ExecutorMetrics, ExecutorMetricsAll, ExecutorMetricsSummary, ExecutorMetricsNone)
	g.Flag("eventlog.max-executors-per-app", "With --eventlog.executor-metrics=all, most executors exported per application: the busiest by task time keep their series, the rest are summed as executor_id=\"other\" (0: no limit).").
		Default(fmt.Sprint(d.MaxExecutorsPerApp)).IntVar(&c.MaxExecutorsPerApp)
	g.Flag("eventlog.max-stages", "Stages kept per application in the spark_stage_* series (the most recent; older ones summed as stage_id=\"other\").").
		Default(fmt.Sprint(d.MaxStages)).IntVar(&c.MaxStages)
	RegisterFindingFlags(g, &c.Analysis)
	RegisterEnergyFlags(g, &c.Analysis.Energy, &c.NodePower, false)
	RegisterCostFlags(g, &c.Analysis.Cost)
	RegisterWorkloadFlags(g, &c.Workload)
	declareWorkloadFlags(g, c)
}
