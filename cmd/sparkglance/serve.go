package main

import (
	"context"
	"os"
	"sync"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/promslog"

	"github.com/sparkglance/sparkglance/exporter"
)

// serveCommand runs the exporter with every collector (collectors.go).
type serveCommand struct {
	cfg    *exporter.Config
	wiring *wiring
	demo   *bool
}

func newServeCommand(cmd *kingpin.CmdClause) *serveCommand {
	w := newWiring()
	c := &serveCommand{cfg: exporter.AddFlags(cmd, w.catalog), wiring: w}
	c.demo = cmd.Flag("demo", "Also run a built-in simulator that writes a live Spark event log into a temporary directory, followed like any --eventlog.dir.").Bool()
	return c
}

func (c *serveCommand) run(ctx context.Context) error {
	logger := promslog.New(&c.cfg.Log)
	cfg := *c.cfg
	cfg.Version = versionString()
	var demoDir string
	if *c.demo {
		dir, err := prepareDemo(c.wiring.eventlog)
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		demoDir = dir
	}
	e, err := exporter.New(cfg, c.wiring.catalog, logger)
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
