package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/sparkglance/sparkglance/collectors/eventlog"
	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/backfill"
	"github.com/sparkglance/sparkglance/internal/human"
	"github.com/sparkglance/sparkglance/internal/sparklog"
)

// backfillCommand writes finished applications' history as OpenMetrics
// for promtool tsdb create-blocks-from openmetrics (docs/history.md).
type backfillCommand struct {
	paths    *[]string
	output   *string
	interval *time.Duration
	parallel *int
	// unfinished writes applications without an ApplicationEnd too.
	unfinished *bool
	errOut     io.Writer
}

func newBackfillCommand(cmd *kingpin.CmdClause) *backfillCommand {
	return &backfillCommand{
		paths:  cmd.Arg("path", "Event log files, rolling eventlog_v2_* directories, zips, or directories of logs (a History Server directory).").Required().Strings(),
		output: cmd.Flag("output", "OpenMetrics file to write, for promtool tsdb create-blocks-from openmetrics.").Short('o').Required().String(),
		interval: cmd.Flag("interval", "Interval width; use the exporter's --eventlog.interval so past and live applications look alike.").
			Default(eventlog.DefaultConfig().Interval.String()).Duration(),
		parallel:   cmd.Flag("parallel", "Logs read at once (0: one per core, GOMAXPROCS). The file written is the same whatever the number.").Default("0").Int(),
		unfinished: cmd.Flag("include-unfinished", "Also write applications without an ApplicationEnd (a driver that died, Databricks logs), up to their last event.").Bool(),
		errOut:     human.SafeWriter{W: os.Stderr}, // names from the logs, escaped
	}
}

func (c *backfillCommand) run(ctx context.Context) error {
	if *c.interval < time.Second {
		return fmt.Errorf("--interval %v must be at least 1s", *c.interval)
	}
	if *c.parallel < 0 {
		return usageErrorf("--parallel=%d: want 0 (one per core) or more", *c.parallel)
	}
	cfg := analysis.DefaultConfig()
	cfg.Interval = *c.interval
	problems := 0
	opt := backfill.Options{Analysis: cfg, Problem: func(p sparklog.Problem) {
		if problems++; problems <= 20 {
			fmt.Fprintf(c.errOut, "sparkglance backfill: %s\n", p.String())
		}
	}, Parallel: *c.parallel, IncludeUnfinished: *c.unfinished}
	reading, stopLimit := limitDirMemory(*c.parallel)
	defer stopLimit()
	opt.Reading = reading
	// Written beside the target and renamed, so a failure leaves no
	// half-written file for promtool to load.
	dir, base := filepath.Split(*c.output)
	tmp, err := os.CreateTemp(dir, "."+base+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	sum, err := backfill.WriteContext(ctx, tmp, *c.paths, opt)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil && ctx.Err() != nil {
		return &statusError{status: exitInterrupted, err: fmt.Errorf("%w; nothing written", err)}
	}
	if err != nil {
		return err
	}
	for _, s := range sum.Skipped {
		fmt.Fprintf(c.errOut, "sparkglance backfill: skipped %s\n", s)
	}
	if problems += sum.ProblemsOmitted; problems > 20 {
		fmt.Fprintf(c.errOut, "sparkglance backfill: %d more problems not shown\n", problems-20)
	}
	if sum.Apps == 0 {
		if *c.unfinished {
			return errors.New("no application found; nothing written")
		}
		return errors.New("no finished application found; nothing written (--include-unfinished writes applications without an ApplicationEnd up to their last event)")
	}
	if err := os.Rename(tmp.Name(), *c.output); err != nil {
		return err
	}
	unfinished := ""
	if sum.Unfinished > 0 {
		unfinished = fmt.Sprintf(" (%d of them unfinished, up to their last event)", sum.Unfinished)
	}
	fmt.Fprintf(c.errOut, "sparkglance backfill: %d applications%s, %d samples written to %s\n"+
		"load them with: promtool tsdb create-blocks-from openmetrics %s <prometheus data dir>\n",
		sum.Apps, unfinished, sum.Samples, *c.output, *c.output)
	return nil
}
