// Command sparkglance shows where a Spark cluster's time and energy go: it
// analyses Spark event logs once (analyze: text or JSON; report: the glance
// pages; compare: two runs side by side; backfill: finished applications'
// history as OpenMetrics for promtool), exports live figures to Prometheus
// and OpenTelemetry (serve, also the node agent), and writes synthetic event
// logs (simulate). The commands only parse flags, wire packages and print.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/alecthomas/kingpin/v2"

	"github.com/sparkglance/sparkglance/internal/human"
)

// command is one subcommand: it declares its flags on the kingpin clause it
// is given and runs once the command line has been parsed.
type command interface {
	run(ctx context.Context) error
}

func main() {
	os.Exit(realMain(os.Args[1:]))
}

// realMain parses args, runs the chosen subcommand and returns the exit status.
func realMain(args []string) int {
	app := kingpin.New("sparkglance", "See where a Spark cluster's time and energy go.\n\n"+exitStatusHelp)
	app.HelpFlag.Short('h')
	setUpHelp(app)
	app.Version(versionString())

	commands := map[string]command{
		"analyze":  newAnalyzeCommand(app.Command("analyze", "Analyse event logs once and print a summary or JSON. "+exitStatusHelp)),
		"report":   newReportCommand(app.Command("report", "Write the glance: a self-contained HTML page per application (three synced charts, findings, tables).")),
		"backfill": newBackfillCommand(app.Command("backfill", "Write finished applications' history as OpenMetrics for promtool tsdb create-blocks-from openmetrics.")),
		"serve":    newServeCommand(app.Command("serve", "Run the exporter: Prometheus /metrics and OTLP push.")),
		"simulate": newSimulateCommand(app.Command("simulate", "Write a realistic synthetic Spark event log.")),
		"compare":  newCompareCommand(app.Command("compare", "Put two runs side by side: measures, stages matched by call site, property and executor diffs; text, --json or an HTML page (-o).")),
	}

	chosen, err := app.Parse(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "sparkglance: %s (try --help)\n", human.Safe(suggest(app, args, err)))
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := commands[chosen].run(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "sparkglance %s: %s\n", chosen, human.Safe(err.Error())) // errors name files and applications
		var ec exitCoder
		if asExitCoder(err, &ec) {
			return ec.ExitCode()
		}
		return exitNothingRead
	}
	return exitOK
}
