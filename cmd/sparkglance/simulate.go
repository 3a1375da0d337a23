package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/alecthomas/kingpin/v2"

	"github.com/sparkglance/sparkglance/internal/simulate"
)

// simulateCommand writes a realistic synthetic Spark event log.
type simulateCommand struct {
	out              *string
	appID            *string
	executors        *int
	coresPerExecutor *int
	tasksPerStage    *int
	repeat           *int
	seed             *uint64
	live             *bool
	streamingBatches *int
	workloadRuns     *int
}

func newSimulateCommand(cmd *kingpin.CmdClause) *simulateCommand {
	d := simulate.DefaultConfig()
	return &simulateCommand{
		out:              cmd.Flag("out", "File to write (\"-\" for standard output).").Default("-").String(),
		appID:            cmd.Flag("app-id", "Application id.").Default(d.AppID).String(),
		executors:        cmd.Flag("executors", fmt.Sprintf("Executors at start (1 to %d).", simulate.MaxExecutors)).Default(fmt.Sprint(d.Executors)).Int(),
		coresPerExecutor: cmd.Flag("cores", fmt.Sprintf("Cores per executor (1 to %d).", simulate.MaxCores)).Default(fmt.Sprint(d.CoresPerExecutor)).Int(),
		tasksPerStage:    cmd.Flag("tasks-per-stage", fmt.Sprintf("Tasks in each multi-task stage (1 to %d).", simulate.MaxTasksPerStage)).Default(fmt.Sprint(d.TasksPerStage)).Int(),
		repeat:           cmd.Flag("repeat", fmt.Sprintf("Run the demo scenario this many times (1 to %d).", simulate.MaxRepeat)).Default("1").Int(),
		seed:             cmd.Flag("seed", "Random seed.").Default(fmt.Sprint(d.Seed)).Uint64(),
		live:             cmd.Flag("live", "Leave the application unfinished (no ApplicationEnd).").Bool(),
		workloadRuns:     cmd.Flag("workload-runs", "Write this many runs of one nightly job into the directory --out (4 or more): steady runs, then one where a property change makes a stage 3× slower, one whose input doubles with proportional time, one with half the executors.").Default("0").Int(),
		streamingBatches: cmd.Flag("streaming-batches", fmt.Sprintf("Add two Structured Streaming queries of this many micro-batches each, one falling behind its input and trigger (0 to %d; 0: none).", simulate.MaxStreamingBatches)).Default("0").Int(),
	}
}

func (c *simulateCommand) run(ctx context.Context) error {
	if *c.workloadRuns != 0 {
		return c.writeWorkloadRuns()
	}
	cfg := simulate.DefaultConfig()
	cfg.AppID = *c.appID
	cfg.Executors = *c.executors
	cfg.CoresPerExecutor = *c.coresPerExecutor
	cfg.TasksPerStage = *c.tasksPerStage
	cfg.Repeat = *c.repeat
	cfg.Seed = *c.seed
	cfg.Live = *c.live
	cfg.StreamingBatches = *c.streamingBatches
	// Checked before --out is created, so a bad value leaves no empty file.
	if err := cfg.Validate(); err != nil {
		return &statusError{status: exitUsage, err: err}
	}
	var w io.Writer = os.Stdout
	if *c.out != "-" {
		f, err := os.Create(*c.out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	n, err := simulate.Write(w, cfg)
	if err != nil {
		return err
	}
	if *c.out != "-" {
		fmt.Fprintf(os.Stderr, "wrote %d events to %s\n", n, *c.out)
	}
	return nil
}

// writeWorkloadRuns writes the workload series into the directory --out,
// one log per run named after its application id.
func (c *simulateCommand) writeWorkloadRuns() error {
	runs, err := simulate.WorkloadRuns(*c.workloadRuns, simulate.DefaultConfig().Start)
	if err != nil {
		return &statusError{status: exitUsage, err: err}
	}
	if *c.out == "-" {
		return usageErrorf("--workload-runs writes one log per run: give a directory as --out")
	}
	if err := os.MkdirAll(*c.out, 0o755); err != nil {
		return err
	}
	for _, r := range runs {
		path := filepath.Join(*c.out, r.AppID)
		if err := simulate.WriteFile(path, r.Config); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "wrote %s (%s)\n", path, r.Change)
	}
	return nil
}
