package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/sparkglance/sparkglance/collectors/eventlog"
	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/appdoc"
	"github.com/sparkglance/sparkglance/internal/appdoc/jsonout"
	"github.com/sparkglance/sparkglance/internal/human"
	"github.com/sparkglance/sparkglance/internal/sparklog"
	"github.com/sparkglance/sparkglance/internal/sparklog/codec"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
	"github.com/sparkglance/sparkglance/internal/workload"
)

// progressMinBytes is the input size from which a progress bar is drawn.
const progressMinBytes = 50 << 20

// analyzeCommand reads event logs once and prints what they say.
type analyzeCommand struct {
	paths    *[]string
	json     *bool
	interval *string
	cpus     *int
	parallel *int
	cfg      analysis.Config
	// nodePower is the Spark nodes' power, an alternative to --energy.core-watts.
	nodePower eventlog.NodePower
	workload  eventlog.WorkloadFlags
	out       io.Writer
	errOut    io.Writer
	// releaseMemory ends the memory limit of a directory run (limitDirMemory),
	// which readAll leaves on for the writing that follows the reading.
	releaseMemory []func()
}

func newAnalyzeCommand(cmd *kingpin.CmdClause) *analyzeCommand {
	paths := cmd.Arg("path", "Event log files, rolling eventlog_v2_* directories, zips, or directories of logs; local paths or file:// URLs.").Required().Strings()
	c := newAnalysisFlags(cmd)
	c.paths = paths
	return c
}

// newAnalysisFlags declares analyze's flags without its inputs (compare
// names its two inputs itself and sets paths).
func newAnalysisFlags(cmd *kingpin.CmdClause) *analyzeCommand {
	// Messages name files, applications and problems an event log chose:
	// they reach the terminal escaped (human.SafeWriter), as the text does.
	c := &analyzeCommand{cfg: analysis.DefaultConfig(), workload: eventlog.DefaultWorkloadFlags(), out: os.Stdout, errOut: human.SafeWriter{W: os.Stderr}, paths: new([]string)}
	c.json = cmd.Flag("json", "Print JSON: an array with one object per application attempt.").Bool()
	c.interval = cmd.Flag("interval", `Interval width (e.g. 10s, 1m), or "stages" for spark-sight's stage borders.`).Default("10s").String()
	c.cpus = cmd.Flag("cpus", "Count a constant N cores instead of the executors' (0: from the log).").Default("0").Int()
	c.parallel = cmd.Flag("parallel", "Logs read at once (0: one per core, GOMAXPROCS). The output is the same, in the same order, whatever the number.").Default("0").Int()
	eventlog.RegisterFindingFlags(cmd, &c.cfg)
	c.nodePower.Packages = 1
	eventlog.RegisterEnergyFlags(cmd, &c.cfg.Energy, &c.nodePower, true)
	eventlog.RegisterCostFlags(cmd, &c.cfg.Cost)
	eventlog.RegisterWorkloadFlags(cmd, &c.workload)
	return c
}

// maxStderrProblems bounds the problems listed on stderr per application
// in text mode; the JSON keeps up to appdoc.MaxProblems.
const maxStderrProblems = 20

func (c *analyzeCommand) run(ctx context.Context) error {
	defer c.release()
	if !*c.json {
		docs, status, err := c.readAll(ctx, "analyze", nil)
		if err != nil {
			return err
		}
		runs := judgeRuns(docs, workload.Options{BaselineRuns: c.workload.BaselineRuns, Thresholds: c.cfg.Thresholds})
		addRegressionFindings(docs, runs)
		if err := c.print(docs); err != nil {
			return err
		}
		var tables bytes.Buffer
		writeWorkloads(&tables, runs)
		if _, err := io.WriteString(c.out, human.SafeLines(tables.String())); err != nil { // names from the logs, escaped as print does
			return err
		}
		return status
	}
	out := jsonout.New(c.out, workload.Options{BaselineRuns: c.workload.BaselineRuns, Thresholds: c.cfg.Thresholds})
	_, status, err := c.readAll(ctx, "analyze", out.Sink(ctx))
	if err != nil {
		out.Abort()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return status
}

// readAll reads every input into its documents (appdoc.ReadAll), telling
// stderr what went wrong on the way. err is a usage error found before
// anything was read, or the sink's; status is what the command returns
// once it has written its output (nil, or the exit status for nothing
// read, problems met, or an interruption). report and compare share it,
// so the commands read and fail alike. With a sink, the documents go to
// it and docs stays empty.
func (c *analyzeCommand) readAll(ctx context.Context, command string, sink *appdoc.Sink) (docs []appdoc.Doc, status, err error) {
	cfg, err := c.config()
	if err != nil {
		return nil, nil, err
	}
	parallel, err := c.workers()
	if err != nil {
		return nil, nil, err
	}
	// An unsupported location is a usage error, found before anything is
	// read rather than after minutes spent on the other inputs.
	paths := make([]string, len(*c.paths))
	for i, p := range *c.paths {
		local, err := sparklog.ResolveLocation(p)
		if err != nil {
			return nil, nil, &statusError{status: exitUsage, err: err}
		}
		paths[i] = local
	}
	// The memory limit is one log's, or sized by the logs read at once
	// (then kept on until the command is done: c.release).
	stopLimit := func() {}
	defer func() { stopLimit() }()
	var reading func(sparklog.Log) func()
	sum, err := appdoc.ReadAll(ctx, paths, appdoc.Options{
		Analysis: cfg,
		Parallel: parallel,
		Sink:     sink,
		Listed: func(logs []sparklog.Log) appdoc.Progress {
			switch {
			case len(logs) == 1:
				stopLimit = limitReadMemory(logs[0])
			case len(logs) > 1:
				var stop func()
				workers := parallel
				if workers <= 0 {
					workers = runtime.GOMAXPROCS(0)
				}
				reading, stop = limitDirMemory(min(workers, len(logs)))
				c.releaseMemory = append(c.releaseMemory, stop)
			}
			if bar := newProgressBar(c.errOut, logs); bar != nil {
				return bar
			}
			return nil
		},
		Warn:     func(msg string) { fmt.Fprintf(c.errOut, "sparkglance %s: %s\n", command, msg) },
		Problems: func(doc appdoc.Doc, n int64) { c.reportProblems(command, doc, n) },
		Reading: func(l sparklog.Log) func() {
			if reading == nil {
				return func() {}
			}
			return reading(l)
		},
	})
	if err != nil {
		return nil, nil, err
	}
	switch {
	case sum.Interrupted != "":
		status = &statusError{status: exitInterrupted, err: fmt.Errorf("interrupted while reading %s; %s read before written", sum.Interrupted, human.Plural(sum.Apps, "application"))}
	case sum.Apps == 0:
		status = &statusError{status: exitNothingRead, err: fmt.Errorf("no event log could be read from %s", strings.Join(redactLocations(*c.paths), ", "))}
	case sum.Unreadable > 0 || sum.Problems > 0:
		status = &statusError{status: exitPartial, err: fmt.Errorf("read with problems: %s read, %s in them, %s unreadable", human.Plural(sum.Apps, "application"), human.Plural(sum.Problems, "problem"), human.Plural(sum.Unreadable, "input"))}
	}
	return sum.Docs, status, nil
}

// release ends what readAll left on for the command's writing: the memory
// limit of a directory run.
func (c *analyzeCommand) release() {
	for _, stop := range c.releaseMemory {
		stop()
	}
	c.releaseMemory = nil
}

// config is the analysis configuration the flags give.
func (c *analyzeCommand) config() (analysis.Config, error) {
	cfg := c.cfg
	cfg.CPUs = *c.cpus
	energy, err := eventlog.ResolveEnergyModel(cfg.Energy, c.nodePower)
	if err != nil {
		return cfg, usageErrorf("%v", err)
	}
	cfg.Energy = energy
	if err := eventlog.CheckCostModel(cfg.Cost); err != nil {
		return cfg, usageErrorf("%v", err)
	}
	if cfg.Workload, err = c.workload.Resolve(); err != nil {
		return cfg, usageErrorf("%v", err)
	}
	if *c.interval == "stages" {
		cfg.StageBorders = true
	} else {
		d, err := time.ParseDuration(*c.interval)
		if err != nil || d < time.Millisecond {
			return cfg, usageErrorf("--interval=%q: want a duration of at least 1ms (e.g. 10s) or \"stages\"", *c.interval)
		}
		cfg.Interval = d
	}
	return cfg, nil
}

// workers is --parallel checked: how many logs are read at once (0: one
// per core).
func (c *analyzeCommand) workers() (int, error) {
	if n := *c.parallel; n < 0 {
		return 0, usageErrorf("--parallel=%d: want 0 (one per core) or more", n)
	}
	return *c.parallel, nil
}

// reportProblems lists a log's problems on stderr, one compiler-style line
// each (file:line: kind: reason), bounded; in JSON mode they are in the
// output, so stderr only says how many there are.
func (c *analyzeCommand) reportProblems(command string, doc appdoc.Doc, n int64) {
	if *c.json {
		fmt.Fprintf(c.errOut, "sparkglance %s: %s: %s, listed under \"problems\" in the JSON\n", command, doc.Log, human.Plural(n, "problem"))
		return
	}
	shown := doc.Problems[:min(len(doc.Problems), maxStderrProblems)]
	for _, p := range shown {
		fmt.Fprintf(c.errOut, "sparkglance %s: %s\n", command, p)
	}
	if rest := n - int64(len(shown)); rest > 0 {
		fmt.Fprintf(c.errOut, "sparkglance %s: %s: … and %s more (--json lists up to %s)\n", command, doc.Log, human.Plural(rest, "problem"), human.Count(appdoc.MaxProblems))
	}
}

// print writes the text output (the JSON one is jsonArrayWriter's). Each
// application's text is escaped whole (human.SafeLines): names from the
// log must not drive the terminal (set its title, clear the screen).
func (c *analyzeCommand) print(docs []appdoc.Doc) error {
	var b bytes.Buffer
	for i, d := range docs {
		b.Reset()
		if i > 0 {
			fmt.Fprintln(&b, strings.Repeat("─", 78))
		}
		if err := writeTextResult(&b, d); err != nil {
			return err
		}
		if _, err := io.WriteString(c.out, human.SafeLines(b.String())); err != nil {
			return err
		}
	}
	return nil
}

// writeTextResult prints the analysis summary, then the reading summary.
func writeTextResult(w io.Writer, r appdoc.Doc) error {
	fmt.Fprintf(w, "log: %s\n", r.Log)
	if err := analysis.WriteText(w, r.Report); err != nil {
		return err
	}
	execs, stages := 0, len(r.Stages)
	for _, e := range r.Executors {
		if e.ID != "driver" {
			execs++
		}
	}
	fmt.Fprintf(w, "\nRead %s: %s, %s, %s\n", human.Plural(r.Lines, "line"), human.Plural(execs, "executor"),
		human.Plural(stages, "stage attempt"), human.Plural(r.Events[sparkevent.TypeTaskEnd], "task"))
	types := slices.Sorted(maps.Keys(r.Events))
	for _, t := range types {
		fmt.Fprintf(w, "  %10s  %s\n", human.Count(r.Events[t]), t)
	}
	if n := int64(len(r.Problems)) + r.ProblemsOmitted; n > 0 {
		fmt.Fprintf(w, "\nProblems: %s (listed on stderr)\n", human.Count(n))
	}
	return nil
}

// Reading one log keeps a few tens of MiB live at most (chunks in flight,
// their decoded events, the analysis), but Go's collector lets garbage grow
// to as much again before collecting; and a zstd frame may declare a history
// window of up to 128 MiB (Databricks writes such frames), which the decoder
// keeps as live heap, so garbage could then grow by 128 MiB more. A soft
// memory limit of readBudget, plus the window when it is big, keeps the peak
// near what reading really needs, for a few per cent more collector CPU.
// A limit set by GOMEMLIMIT is left alone.
//
// The analysis of one application can itself keep far more live: a
// million executors make gigabytes of summaries. A limit below the live
// heap has the collector run back to back (half the CPU, by its own cap),
// so the limit follows the live heap (followLiveHeap): never below the
// budget (plus the window), and the window plus half as much again as the
// rest of the heap kept live (more beyond 256 MiB: memoryLimitFor), so
// that the collector's work stays in proportion to what is allocated. (The window is live heap that does not
// grow: counting it half again too put nds_q88 at 212 MB instead of 184.)
const readBudget = 32 << 20

func limitReadMemory(l sparklog.Log) (stop func()) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return func() {}
	}
	window := bigWindowOf(l)
	budget := readBudget + windowHeadroom(window)
	debug.SetMemoryLimit(budget + window)
	return followLiveHeap(budget, window)
}

// bigWindowOf is the biggest zstd window l's files declare when it is big
// (codec.BigZstdWindow or more), else 0.
func bigWindowOf(l sparklog.Log) int64 {
	var window int64
	for _, f := range l.Files {
		if f.Member != "" || f.Codec != codec.Zstd {
			continue
		}
		window = max(window, zstdWindowOf(f.Path))
	}
	if window < codec.BigZstdWindow {
		return 0
	}
	return window
}

// windowHeadroom is what a window adds to the read budget. Under a soft
// limit the runtime sets the heap goal 3% below it (its pacing headroom),
// so 128 MiB of window took 4 MiB from the 32 the rest may use: nds_q88 as
// stored collected 12–14 times, as plain JSON 9.
func windowHeadroom(window int64) int64 {
	return window / 32
}

// followLiveHeap sets the soft memory limit after each collection to
// memoryLimitFor(budget, window, the heap it left live), until stop is
// called.
func followLiveHeap(budget, window int64) (stop func()) {
	return afterEachGC(func(live int64) {
		debug.SetMemoryLimit(memoryLimitFor(budget, window, live))
	})
}

// afterEachGC calls f with the heap each collection left live, until stop
// is called. (A finalizer runs once per collection that finds its object
// unreachable: each run arms the next.)
func afterEachGC(f func(live int64)) (stop func()) {
	var mu sync.Mutex
	stopped := false
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var arm func()
	arm = func() {
		runtime.SetFinalizer(new(gcTick), func(*gcTick) {
			mu.Lock()
			defer mu.Unlock()
			if stopped {
				return
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				f(int64(sample[0].Value.Uint64()))
			}
			arm()
		})
	}
	arm()
	return func() {
		mu.Lock()
		stopped = true
		mu.Unlock()
	}
}

// gcTick is the object whose finalizer marks a collection (big enough not
// to be a tiny allocation, whose finalizer may never run).
type gcTick struct{ _ [16]byte }

// memoryLimitFor is the soft limit with live bytes kept live, window of
// them the zstd decoder's: the budget, or the rest plus its headroom when
// that is more, plus the window. The headroom is half the rest up to
// 256 MiB, then the rest less 128 MiB: the collector marks the whole live
// heap each time the headroom has been allocated, and a million
// executors keep over 1 GB live (27 collections instead of 31 for their
// `analyze --json`, the last ones the costly ones, at the same peak RSS:
// docs/performance.md, "Many executors").
func memoryLimitFor(budget, window, live int64) int64 {
	rest := max(live-window, 0)
	return window + max(budget, rest+max(rest/2, rest-bigHeadroomFrom/2))
}

// bigHeadroomFrom is the live heap from which the headroom grows faster
// than half of it.
const bigHeadroomFrom = 256 << 20

// zstdWindowOf reads the window the first frame of a zstd file declares; 0
// when the file cannot be read (reading it reports why).
func zstdWindowOf(path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	head := make([]byte, 18)
	n, _ := io.ReadFull(f, head)
	return codec.ZstdWindow(head[:n])
}

// untilDone returns what f returns, or ctx's error as soon as ctx is done
// while f still runs: f is then abandoned, to finish on its own goroutine
// (the command is about to exit), so f must not touch shared state.
func untilDone[T any](ctx context.Context, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}
