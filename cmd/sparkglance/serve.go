package main

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/promslog"
	"github.com/prometheus/common/version"

	"github.com/sparkglance/sparkglance/cmd/internal/wiring"
	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/internal/simulate"
	"github.com/sparkglance/sparkglance/internal/sparklog"
)

// serveCommand runs the exporter with every collector (cmd/internal/wiring).
type serveCommand struct {
	cfg    *exporter.Config
	wiring *wiring.Wiring
	demo   demoOptions
}

func newServeCommand(cmd *kingpin.CmdClause) *serveCommand {
	w := wiring.New()
	c := &serveCommand{cfg: exporter.AddFlags(cmd, w.Catalog), wiring: w}
	c.demo = addDemoFlags(cmd)
	return c
}

func (c *serveCommand) run(ctx context.Context) error {
	if err := localEventLogDirs(c.wiring.EventLog.Dirs); err != nil {
		return err
	}
	logger := promslog.New(&c.cfg.Log)
	cfg := *c.cfg
	cfg.Version = version.Version
	var demoDir string
	if *c.demo.enabled {
		dir, err := prepareDemo(c.demo, c.wiring.EventLog)
		if err != nil {
			return err
		}
		// Runs last: after the simulator and the exporter have stopped.
		defer removeDemoDir(dir, logger)
		demoDir = dir
	}
	e, err := exporter.New(cfg, c.wiring.Catalog, logger)
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
	printDemoBanner(os.Stdout, demoDir, cfg.TelemetryPath, addrs, *c.demo.speed)
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { runDemo(ctx, demoDir, *c.demo.speed, simulate.WallClock{}, logger) })
	defer func() { cancel(); wg.Wait() }()
	return e.Run(ctx)
}

// localEventLogDirs turns file:// URLs in --eventlog.dir into paths,
// object-store URLs into their canonical form, and rejects schemes the
// reader cannot open (hdfs://, …) at start-up, with the same message as
// analyze, instead of watching a path that cannot exist.
func localEventLogDirs(dirs []string) error {
	for i, d := range dirs {
		local, err := sparklog.ResolveLocation(d)
		if err != nil {
			return &statusError{status: exitUsage, err: fmt.Errorf("--eventlog.dir: %w", err)}
		}
		dirs[i] = local
	}
	return nil
}
