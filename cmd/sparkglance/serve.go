package main

import (
	"context"
	"os"
	"sync"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/promslog"
	"github.com/prometheus/common/version"

	"github.com/sparkglance/sparkglance/exporter"
)

// serveCommand runs the exporter with every collector registered in
// exporter.DefaultCatalog (collector packages register from init).
type serveCommand struct {
	cfg  *exporter.Config
	demo *bool
}

func newServeCommand(cmd *kingpin.CmdClause) *serveCommand {
	c := &serveCommand{cfg: exporter.AddFlags(cmd, exporter.DefaultCatalog)}
	c.demo = cmd.Flag("demo", "Also run a built-in simulator that writes a live Spark event log into a temporary directory, followed like any --eventlog.dir.").Bool()
	return c
}

func (c *serveCommand) run(ctx context.Context) error {
	logger := promslog.New(&c.cfg.Log)
	cfg := *c.cfg
	cfg.Version = version.Version
	var demoDir string
	if *c.demo {
		dir, err := prepareDemo()
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		demoDir = dir
	}
	e, err := exporter.New(cfg, exporter.DefaultCatalog, logger)
	if err != nil {
		return err
	}
	logger.Info("starting sparkglance", "version", cfg.Version)
	if !*c.demo {
		return e.Run(ctx)
	}
	addrs, err := e.Listen()
	if err != nil {
		return err
	}
	printDemoBanner(os.Stdout, demoDir, cfg.TelemetryPath, addrs)
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { runDemo(ctx, demoDir, logger) })
	defer func() { cancel(); wg.Wait() }()
	return e.Run(ctx)
}
