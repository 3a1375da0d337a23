package main

import (
	"context"
	"io"
	"os"
	"testing"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// parseCommand builds one subcommand as realMain would, writing its output
// to io.Discard and its messages to /dev/null.
func parseCommand(b *testing.B, name string, args ...string) command {
	b.Helper()
	app := kingpin.New("sparkglance", "")
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { devNull.Close() })
	var cmd command
	switch name {
	case "analyze":
		c := newAnalyzeCommand(app.Command(name, ""))
		c.out, c.errOut = io.Discard, devNull
		cmd = c
	case "report":
		c := newReportCommand(app.Command(name, ""))
		c.analyze.out, c.analyze.errOut = io.Discard, devNull
		cmd = c
	case "backfill":
		c := newBackfillCommand(app.Command(name, ""))
		c.errOut = devNull
		cmd = c
	default:
		b.Fatalf("no command %s here", name)
	}
	if _, err := app.Parse(append([]string{name}, args...)); err != nil {
		b.Fatal(err)
	}
	return cmd
}

// BenchmarkReportVsAnalyze reads the biggest real log (nds_q88, 142 MB of
// JSON in zstd) with `analyze --json` and with `report -o -` in turns, both
// to io.Discard, and reports each one's seconds and their ratio (goal:
// report < 1.5 × analyze).
func BenchmarkReportVsAnalyze(b *testing.B) {
	log := testkit.Events(b, "extra", "spark-rapids-tools", "spark-events-qualification", "nds_q88_photon_db_13_3.zstd")
	analyze := parseCommand(b, "analyze", "--json", log)
	rep := parseCommand(b, "report", "-o", "-", log)
	var analyzeTime, reportTime time.Duration
	run := func(c command, total *time.Duration) {
		start := time.Now()
		if err := c.run(context.Background()); err != nil {
			b.Fatal(err)
		}
		*total += time.Since(start)
	}
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 { // alternate, so that neither always runs on a warmer machine
			run(analyze, &analyzeTime)
			run(rep, &reportTime)
		} else {
			run(rep, &reportTime)
			run(analyze, &analyzeTime)
		}
	}
	n := float64(b.N)
	b.ReportMetric(analyzeTime.Seconds()/n, "analyze-s/op")
	b.ReportMetric(reportTime.Seconds()/n, "report-s/op")
	b.ReportMetric(reportTime.Seconds()/analyzeTime.Seconds(), "report/analyze")
}
