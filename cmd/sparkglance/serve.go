package main

import (
	"context"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/promslog"

	"github.com/sparkglance/sparkglance/exporter"
)

// serveCommand runs the exporter with every collector registered in
// exporter.DefaultCatalog (collector packages register from init).
type serveCommand struct {
	cfg *exporter.Config
}

func newServeCommand(cmd *kingpin.CmdClause) *serveCommand {
	return &serveCommand{cfg: exporter.AddFlags(cmd, exporter.DefaultCatalog)}
}

func (c *serveCommand) run(ctx context.Context) error {
	logger := promslog.New(&c.cfg.Log)
	cfg := *c.cfg
	cfg.Version = versionString()
	e, err := exporter.New(cfg, exporter.DefaultCatalog, logger)
	if err != nil {
		return err
	}
	logger.Info("starting sparkglance", "version", cfg.Version)
	return e.Run(ctx)
}
