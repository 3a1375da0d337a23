package eventlog

import (
	"log/slog"

	"github.com/sparkglance/sparkglance/collectors/spark"
	"github.com/sparkglance/sparkglance/exporter"
)

// CollectorName is the collector's name: --collector.eventlog.
const CollectorName = "eventlog"

func init() {
	exporter.Register(CollectorName, true,
		func(logger *slog.Logger) (exporter.Collector, error) {
			w, err := New(flagConfig, logger)
			if err != nil {
				return nil, err
			}
			spark.SetAppClaims(w)
			return w, nil
		},
		exporter.WithHelp("Follow Spark event logs in --eventlog.dir and export each application's figures."),
		exporter.WithFlags(declareFlags),
	)
}
