package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
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

// demoStreamingBatches is the fewest micro-batches each of the demo's two
// streaming queries runs; they start with the executors and run beside
// the batch jobs until these end, so the streaming panels, finding and
// alert have something to show from the demo's first seconds.
const demoStreamingBatches = 12

// demoConfig is the simulated application of the demo's run-th run,
// starting at start.
func demoConfig(run int, start time.Time) simulate.Config {
	cfg := simulate.DefaultConfig()
	cfg.Start = start
	cfg.AppID = fmt.Sprintf("app-%s-%04d", start.UTC().Format("20060102150405"), run)
	cfg.Seed = uint64(run)
	cfg.StreamingBatches = demoStreamingBatches
	cfg.StreamingAlongside = true
	return cfg
}

// runDemo writes the simulated application into dir, speed times faster
// than real time on clock, again and again with a new application id,
// until ctx ends.
func runDemo(ctx context.Context, dir string, speed float64, clock simulate.Clock, logger *slog.Logger) {
	if err := writeDemoHistory(dir, clock.Now()); err != nil {
		logger.Error("demo: could not write the earlier runs", "err", err)
	}
	for run := 1; ctx.Err() == nil; run++ {
		cfg := demoConfig(run, clock.Now())
		logger.Info("demo: simulated Spark application starts", "app_id", cfg.AppID, "dir", dir)
		path, err := simulate.Live(ctx, dir, cfg, simulate.LiveOptions{Codec: "zstd", Speed: speed, Clock: clock})
		if err != nil && ctx.Err() == nil {
			logger.Error("demo: simulator failed", "err", err)
			return
		}
		logger.Info("demo: simulated Spark application ended", "app_id", cfg.AppID, "log", path)
		_ = clock.Sleep(ctx, time.Duration(float64(demoPause)/speed))
	}
}

// demoHistoryRuns is how many finished runs of the demo's job are in its
// directory before the live one starts: enough for a baseline (3) and one
// run judged against it, so the workload pages, the spark_workload_*
// series and the Workloads dashboard have something to show from the
// first scrape.
const demoHistoryRuns = 4

// demoHistorySpacing is how far apart the earlier runs started: recent
// enough for the exporter's default one-hour --eventlog.retention.
const demoHistorySpacing = 10 * time.Minute

// writeDemoHistory writes the demo job's earlier runs, finished, into dir:
// the same job (one workload key) with other seeds, so their numbers
// scatter like real runs, the last one starting demoHistorySpacing before
// now.
func writeDemoHistory(dir string, now time.Time) error {
	for i := range demoHistoryRuns {
		start := now.Add(-time.Duration(demoHistoryRuns-i) * demoHistorySpacing)
		cfg := demoConfig(0, start)
		cfg.AppID = fmt.Sprintf("app-%s-%04d", start.UTC().Format("20060102150405"), 9000+i)
		cfg.Seed = uint64(9000 + i)
		if err := simulate.WriteFile(filepath.Join(dir, cfg.AppID), cfg); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
	}
	return nil
}

// removeDemoDir removes the demo's directory and what the simulator wrote
// into it; a failure is logged, as it does not change how serve ended.
func removeDemoDir(dir string, logger *slog.Logger) {
	if err := os.RemoveAll(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		logger.Warn("demo: could not remove the demo directory", "dir", dir, "err", err)
	}
}

// demoTimeline is when things happen in the demo's first run, from its
// start, at real time: its stream queries' first batch and its end.
type demoTimeline struct {
	firstBatch, end time.Duration
}

// timelineOf plays cfg's application without waiting and reads the times
// off its lines.
func timelineOf(cfg simulate.Config) (demoTimeline, error) {
	rec := &timelineSink{start: cfg.Start.UnixMilli(), first: -1}
	if _, err := simulate.Generate(cfg, rec); err != nil {
		return demoTimeline{}, err
	}
	return demoTimeline{firstBatch: time.Duration(rec.first) * time.Millisecond, end: time.Duration(rec.last) * time.Millisecond}, nil
}

type timelineSink struct{ start, first, last int64 }

func (s *timelineSink) Line(at int64, line string, _ bool) error {
	at -= s.start
	if s.first < 0 && strings.Contains(line, "StreamingQueryListener$QueryProgressEvent") {
		s.first = at
	}
	s.last = max(s.last, at)
	return nil
}

// printDemoBanner tells a newcomer where to look, and when the demo's
// application (played speed times faster than real time) shows what.
func printDemoBanner(w io.Writer, dir, telemetryPath string, addrs []net.Addr, speed float64) {
	at := func(d time.Duration) string {
		return (time.Duration(float64(d)/speed) + time.Second/2).Truncate(time.Second).String()
	}
	cfg := demoConfig(1, time.Unix(0, 0))
	tl, err := timelineOf(cfg)
	fmt.Fprintf(w, "sparkglance demo: a simulated Spark application (%d executors × %d cores) is written live to\n  %s\n", cfg.Executors, cfg.CoresPerExecutor, dir)
	if err == nil {
		fmt.Fprintf(w, "It runs %s: batch jobs from its first seconds (a skewed join, a stage retried after a fetch failure,\n"+
			"executors released, a repartition(1) write) and, beside them, two streaming queries with a batch\n"+
			"every %s from %s (one falls behind); %s after it ends, the next run starts as a new application.\n",
			at(tl.end), simulate.StreamingTrigger, at(tl.firstBatch), at(demoPause))
	}
	fmt.Fprintf(w, "Beside it, %d finished earlier runs of the same job (started %s apart) give it a baseline: see /workloads.\n",
		demoHistoryRuns, demoHistorySpacing)
	for _, a := range addrs {
		host, port, err := net.SplitHostPort(a.String())
		if err != nil {
			continue
		}
		if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
			host = "localhost"
		}
		base := "http://" + net.JoinHostPort(host, port)
		fmt.Fprintf(w, "live pages: %s/apps  (the running and finished applications, updated every few seconds)\n", base)
		fmt.Fprintf(w, "workloads:  %s/workloads  (the job's runs against their baseline)\n", base)
		fmt.Fprintf(w, "metrics:    %s%s  (try: curl -s %s%s | grep '^spark_')\n", base, telemetryPath, base, telemetryPath)
	}
}
