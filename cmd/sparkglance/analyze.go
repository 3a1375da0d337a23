package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/sparklog"
)

// maxProblemsPerApp bounds the problems kept per application: a log that is
// garbage from end to end must not make the output as big as itself.
const maxProblemsPerApp = 1000

// progressMinBytes is the input size from which a progress bar is drawn.
const progressMinBytes = 50 << 20

// analyzeCommand reads event logs once and prints what they say.
type analyzeCommand struct {
	paths    *[]string
	json     *bool
	interval *string
	cpus     *int
	cfg      analysis.Config
	out      io.Writer
	errOut   *os.File
}

func newAnalyzeCommand(cmd *kingpin.CmdClause) *analyzeCommand {
	c := &analyzeCommand{cfg: analysis.DefaultConfig(), out: os.Stdout, errOut: os.Stderr}
	c.paths = cmd.Arg("path", "Event log files, rolling eventlog_v2_* directories, zips, or directories of logs.").Required().Strings()
	c.json = cmd.Flag("json", "Print JSON: one object per application (an array when there are several).").Bool()
	c.interval = cmd.Flag("interval", `Interval width (e.g. 10s, 1m), or "stages" for spark-sight's stage borders.`).Default("10s").String()
	c.cpus = cmd.Flag("cpus", "Count a constant N cores instead of the executors' (0: from the log).").Default("0").Int()
	analysis.RegisterThresholdFlags(cmd, &c.cfg)
	return c
}

// appResult is one application attempt as `analyze` reports it: the
// analysis plus what reading the log met.
type appResult struct {
	analysis.Report
	Log             string             `json:"log"`
	Lines           int64              `json:"lines"`
	Events          map[string]int64   `json:"events"`
	Problems        []sparklog.Problem `json:"problems"`
	ProblemsOmitted int64              `json:"problemsOmitted,omitempty"`
}

// inputError marks an input that could not be opened at all: analyze still
// reports the others, then exits 1.
type inputError struct{ failed []string }

func (e *inputError) Error() string {
	return fmt.Sprintf("%d input(s) could not be read: %s", len(e.failed), strings.Join(e.failed, "; "))
}

func (e *inputError) ExitCode() int { return 1 }

func (c *analyzeCommand) run(ctx context.Context) error {
	cfg := c.cfg
	cfg.CPUs = *c.cpus
	if *c.interval == "stages" {
		cfg.StageBorders = true
	} else {
		d, err := time.ParseDuration(*c.interval)
		if err != nil || d < time.Millisecond {
			return fmt.Errorf("--interval=%q: want a duration of at least 1ms (e.g. 10s) or \"stages\"", *c.interval)
		}
		cfg.Interval = d
	}

	var logs []sparklog.Log
	var failed []string
	for _, p := range *c.paths {
		found, err := sparklog.Discover(p)
		if err != nil {
			failed = append(failed, err.Error())
			fmt.Fprintf(c.errOut, "sparkglance analyze: %v\n", err)
			continue
		}
		logs = append(logs, found...)
	}

	bar := newProgressBar(c.errOut, logs)
	var results []appResult
	for _, l := range logs {
		if err := ctx.Err(); err != nil {
			return err
		}
		res, err := analyzeLog(l, cfg, bar)
		if err != nil {
			failed = append(failed, err.Error())
			fmt.Fprintf(c.errOut, "sparkglance analyze: %v\n", err)
			continue
		}
		results = append(results, res)
	}
	bar.done()

	if err := c.print(results); err != nil {
		return err
	}
	if len(failed) > 0 {
		return &inputError{failed: failed}
	}
	return nil
}

// analyzeLog reads one application attempt's log to its end through the
// analysis engine.
func analyzeLog(l sparklog.Log, cfg analysis.Config, bar *progressBar) (appResult, error) {
	app := analysis.New(cfg)
	res := appResult{Log: l.Path, Problems: []sparklog.Problem{}}
	keep := func(p sparklog.Problem) {
		if len(res.Problems) < maxProblemsPerApp {
			res.Problems = append(res.Problems, p)
		} else {
			res.ProblemsOmitted++
		}
	}
	h := sparklog.HandlerFuncs{
		OnEvent:   func(pos sparklog.Position, ev sparklog.Event) error { app.AddAt(pos, ev); return nil },
		OnProblem: keep,
	}
	stats, err := sparklog.Read(l, h, sparklog.Options{OnProgress: bar.update})
	if err != nil {
		return res, fmt.Errorf("%s: %w", l.Path, err)
	}
	bar.finish(l)
	res.Report = app.Report()
	res.Lines = stats.Lines
	res.Events = stats.ByType
	if res.Events == nil {
		res.Events = map[string]int64{}
	}
	return res, nil
}

func (c *analyzeCommand) print(results []appResult) error {
	if *c.json {
		enc := json.NewEncoder(c.out)
		enc.SetIndent("", "  ")
		if len(results) == 1 {
			return enc.Encode(results[0])
		}
		if results == nil {
			results = []appResult{}
		}
		return enc.Encode(results)
	}
	for i, r := range results {
		if i > 0 {
			fmt.Fprintln(c.out, strings.Repeat("─", 78))
		}
		if err := writeTextResult(c.out, r); err != nil {
			return err
		}
	}
	return nil
}

// writeTextResult prints the analysis summary, then the reading summary.
func writeTextResult(w io.Writer, r appResult) error {
	fmt.Fprintf(w, "log: %s\n", r.Log)
	if r.AppID == "" && len(r.Events) == 0 {
		fmt.Fprintln(w, "no Spark events read")
	} else if err := analysis.WriteText(w, r.Report); err != nil {
		return err
	}
	execs, stages := 0, len(r.Stages)
	for _, e := range r.Executors {
		if e.ID != "driver" {
			execs++
		}
	}
	fmt.Fprintf(w, "\nRead %d lines: %d executors, %d stage attempts, %d tasks\n", r.Lines, execs, stages, r.Events[sparklog.TypeTaskEnd])
	types := slices.Sorted(maps.Keys(r.Events))
	for _, t := range types {
		fmt.Fprintf(w, "  %8d  %s\n", r.Events[t], t)
	}
	if n := int64(len(r.Problems)) + r.ProblemsOmitted; n > 0 {
		fmt.Fprintf(w, "\nProblems (%d)\n", n)
		for _, p := range r.Problems {
			fmt.Fprintf(w, "  %s\n", p)
		}
		if r.ProblemsOmitted > 0 {
			fmt.Fprintf(w, "  … and %d more\n", r.ProblemsOmitted)
		}
	}
	return nil
}
