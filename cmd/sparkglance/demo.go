package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/sparkglance/sparkglance/collectors/eventlog"
	"github.com/sparkglance/sparkglance/internal/simulate"
)

// demoPause separates two runs of the simulated application, so that the
// finished one is seen as finished before the next one starts.
const demoPause = 10 * time.Second

// demoOptions are the flags of serve --demo.
type demoOptions struct {
	enabled *bool
	// speed plays the simulated application this many times faster than
	// real time (the pause between runs too), so a test sees every stage
	// of it in seconds.
	speed *float64
	// parent is where the demo's temporary directory is created (the
	// system's temporary directory when empty), so a test can keep it
	// under its own.
	parent *string
}

func addDemoFlags(cmd *kingpin.CmdClause) demoOptions {
	return demoOptions{
		enabled: cmd.Flag("demo", "Also run a built-in simulator that writes a live Spark event log into a temporary directory, followed like any --eventlog.dir.").Bool(),
		speed:   cmd.Flag("demo.speed", "Play the demo this many times faster than real time.").Hidden().Default("1").Float64(),
		parent:  cmd.Flag("demo.tmpdir", "Create the demo's directory in this directory instead of the system's temporary directory.").Hidden().String(),
	}
}

// prepareDemo creates the directory the simulator writes to and tells the
// event-log collector (its configuration cfg) to watch it, as if given with
// --eventlog.dir. The caller removes the directory once the demo and the
// exporter have stopped.
func prepareDemo(opt demoOptions, cfg *eventlog.Config) (string, error) {
	if !(*opt.speed > 0) {
		return "", fmt.Errorf("demo: --demo.speed %v must be positive", *opt.speed)
	}
	dir, err := os.MkdirTemp(*opt.parent, "sparkglance-demo-")
	if err != nil {
		return "", fmt.Errorf("demo: %w", err)
	}
	cfg.Dirs = append(cfg.Dirs, dir)
	return dir, nil
}

// demoStreamingBatches gives the demo its two streaming queries (about a
// minute and a half after the batch jobs at real time), so the streaming
// panels, finding and alert have something to show.
const demoStreamingBatches = 12

// runDemo writes the simulated application into dir, speed times faster
// than real time, again and again with a new application id, until ctx
// ends.
func runDemo(ctx context.Context, dir string, speed float64, logger *slog.Logger) {
	for run := 1; ctx.Err() == nil; run++ {
		cfg := simulate.DefaultConfig()
		cfg.Start = time.Now()
		cfg.AppID = fmt.Sprintf("app-%s-%04d", cfg.Start.UTC().Format("20060102150405"), run)
		cfg.Seed = uint64(run)
		cfg.StreamingBatches = demoStreamingBatches
		logger.Info("demo: simulated Spark application starts", "app_id", cfg.AppID, "dir", dir)
		path, err := simulate.Live(ctx, dir, cfg, simulate.LiveOptions{Codec: "zstd", Speed: speed})
		if err != nil && ctx.Err() == nil {
			logger.Error("demo: simulator failed", "err", err)
			return
		}
		logger.Info("demo: simulated Spark application ended", "app_id", cfg.AppID, "log", path)
		pause := time.NewTimer(time.Duration(float64(demoPause) / speed))
		select {
		case <-ctx.Done():
			pause.Stop()
		case <-pause.C:
		}
	}
}

// removeDemoDir removes the demo's directory and what the simulator wrote
// into it; a failure is logged, as it does not change how serve ended.
func removeDemoDir(dir string, logger *slog.Logger) {
	if err := os.RemoveAll(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		logger.Warn("demo: could not remove the demo directory", "dir", dir, "err", err)
	}
}

// printDemoBanner tells a newcomer where to look.
func printDemoBanner(w io.Writer, dir, telemetryPath string, addrs []net.Addr) {
	fmt.Fprintf(w, "sparkglance demo: a simulated Spark application (8 executors × 4 cores, ~3 min, then again) is written to\n  %s\n", dir)
	for _, a := range addrs {
		host, port, err := net.SplitHostPort(a.String())
		if err != nil {
			continue
		}
		if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
			host = "localhost"
		}
		fmt.Fprintf(w, "metrics: http://%s%s  (try: curl -s http://%s%s | grep '^spark_')\n",
			net.JoinHostPort(host, port), telemetryPath, net.JoinHostPort(host, port), telemetryPath)
	}
}
