package main

import (
	"context"
	"os"
	"sync"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/promslog"

	"github.com/sparkglance/sparkglance/exporter"
)

// serveCommand runs the exporter with every collector registered in
// exporter.DefaultCatalog (collector packages register from init).
type serveCommand struct {
	cfg  *exporter.Config
	demo demoOptions
}

func newServeCommand(cmd *kingpin.CmdClause) *serveCommand {
	c := &serveCommand{cfg: exporter.AddFlags(cmd, exporter.DefaultCatalog)}
	c.demo = addDemoFlags(cmd)
	return c
}

func (c *serveCommand) run(ctx context.Context) error {
	logger := promslog.New(&c.cfg.Log)
	cfg := *c.cfg
	cfg.Version = versionString()
	var demoDir string
	if *c.demo.enabled {
		dir, err := prepareDemo(c.demo)
		if err != nil {
			return err
		}
		// Runs last: after the simulator and the exporter have stopped.
		defer removeDemoDir(dir, logger)
		demoDir = dir
	}
	e, err := exporter.New(cfg, exporter.DefaultCatalog, logger)
	if err != nil {
		return err
	}
	logger.Info("starting sparkglance", "version", cfg.Version)
	if !*c.demo.enabled {
		return e.Run(ctx)
	}
	addrs, err := e.Listen()
	if err != nil {
		return err
	}
	printDemoBanner(os.Stdout, demoDir, cfg.TelemetryPath, addrs)
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { runDemo(ctx, demoDir, *c.demo.speed, logger) })
	defer func() { cancel(); wg.Wait() }()
	return e.Run(ctx)
}
