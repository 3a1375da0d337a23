package spark

import (
	"context"
	"log/slog"

	"github.com/alecthomas/units"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/sparkglance/sparkglance/exporter"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// flagValues is filled by the command line before the factory runs.
type flagValues struct {
	opts     Options
	maxBytes units.Base2Bytes
}

// Register adds the spark collector to cat. claims tells it which
// applications the event-log collector exports (nil: none).
func Register(cat *exporter.Catalog, claims AppClaims) {
	fv := &flagValues{}
	fv.opts.Claims = claims
	cat.Register(sm.CollectorSpark, true, fv.factory,
		exporter.WithHelp("Read Spark's metrics endpoint (/metrics/json or PrometheusServlet text) and REST API (/api/v1) from --spark.url and --spark.targets-file."),
		exporter.WithFlags(fv.declareFlags))
}

func (fv *flagValues) declareFlags(g exporter.FlagGroup) {
	o := &fv.opts
	g.Flag("spark.url", "Spark UI to read: a driver (http://driver:4040), History Server, YARN proxy URL, or a metrics endpoint itself (…/metrics/master/json, …/metrics/prometheus). Repeatable.").
		StringsVar(&o.URLs)
	g.Flag("spark.targets-file", "Prometheus file_sd file (JSON or YAML) listing more Spark targets; re-read when it changes. Labels __scheme__ and __metrics_path__ are honoured.").
		StringVar(&o.TargetsFile)
	g.Flag("spark.background-interval", "Read targets on this period and serve the last good read, instead of reading them at scrape time (0).").
		Default("0s").DurationVar(&o.BackgroundInterval)
	g.Flag("spark.timeout", "Longest read of one target; the scrape deadline shortens it.").
		Default(defaultTimeout.String()).DurationVar(&o.Timeout)
	g.Flag("spark.max-body-bytes", "Largest response accepted from a Spark endpoint.").
		Default("16MiB").BytesVar(&fv.maxBytes)
	g.Flag("spark.max-apps", "Applications exported per target (newest first); executors and stages are read for the running ones.").
		Default("100").IntVar(&o.MaxApps)
	g.Flag("spark.metrics-path", "Metrics endpoint under a Spark UI target; a path ending in /prometheus is read as PrometheusServlet text.").
		Default(defaultMetricsPath).StringVar(&o.MetricsPath)
}

func (fv *flagValues) factory(logger *slog.Logger) (exporter.Collector, error) {
	opts := fv.opts
	opts.MaxBodyBytes = int64(fv.maxBytes)
	if len(opts.URLs) == 0 && opts.TargetsFile == "" {
		logger.Info("no --spark.url or --spark.targets-file: the spark collector exports nothing")
		return exporter.FromUpdater(idle{}), nil
	}
	c, err := New(opts, logger)
	if err != nil {
		return nil, err
	}
	return exporter.FromUpdater(c), nil
}

// idle is the collector without targets.
type idle struct{}

func (idle) Update(context.Context, chan<- prometheus.Metric) error { return nil }
