package eventlog

import (
	"log/slog"

	"github.com/sparkglance/sparkglance/exporter"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// CollectorName is the collector's name: --collector.eventlog.
const CollectorName = sm.CollectorEventlog

// Register adds the event-log collector to cat. It records the applications
// it follows in claims (which the command hands to the spark collector too).
// The returned configuration is what the command line fills; a caller may
// add directories to it (the demo does) before the exporter is built.
func Register(cat *exporter.Catalog, claims *Claims) *Config {
	cfg := DefaultConfig()
	cat.Register(CollectorName, true,
		func(logger *slog.Logger) (exporter.Collector, error) {
			w, err := newWatcher(cfg, logger, claims)
			if err != nil {
				return nil, err
			}
			return exporter.FromFamilies(w), nil
		},
		exporter.WithHelp("Follow Spark event logs in --eventlog.dir and export each application's figures."),
		exporter.WithFlags(func(g exporter.FlagGroup) { declareFlags(g, &cfg) }),
	)
	return &cfg
}
