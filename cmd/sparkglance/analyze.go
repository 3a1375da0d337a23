package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/sparkglance/sparkglance/collectors/eventlog"
	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/appdoc"
	"github.com/sparkglance/sparkglance/internal/inorder"
	"github.com/sparkglance/sparkglance/internal/sparklog"
	"github.com/sparkglance/sparkglance/internal/sparklog/codec"
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
	c := &analyzeCommand{cfg: analysis.DefaultConfig(), workload: eventlog.DefaultWorkloadFlags(), out: os.Stdout, errOut: os.Stderr, paths: new([]string)}
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
		writeWorkloads(c.out, runs)
		return status
	}
	out := jsonArrayWriter{w: bufio.NewWriterSize(c.out, 1<<16)}
	sink := &docSink{
		prepare: func(doc appdoc.Doc) (any, error) { return encodeElement(doc) },
		emit:    func(elem any) error { return out.add(elem.([]byte)) },
	}
	_, status, err := c.readAll(ctx, "analyze", sink)
	if err != nil {
		return err
	}
	if err := out.close(); err != nil {
		return err
	}
	return status
}

// docSink takes each document as it is read instead of readAll keeping
// them all: prepare runs on the worker that read the document (encoding
// it, or rendering and writing its page), emit gets what prepare returned
// in the order of the inputs. An error from either ends the command.
type docSink struct {
	prepare func(appdoc.Doc) (any, error)
	emit    func(any) error
}

// The JSON output is one array of every application's document. Encoding
// it is a large part of the work for many small logs, so each document is
// encoded by the worker that read it (encodeElement, indented as an element
// of the array) and written as soon as the documents before it are: the
// bytes are those of encoding the whole array with an indent of two spaces,
// and no document is held longer than that.
func encodeElement(doc appdoc.Doc) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("  ", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// jsonArrayWriter writes the elements encodeElement made as one array.
type jsonArrayWriter struct {
	w *bufio.Writer
	n int
}

func (a *jsonArrayWriter) add(elem []byte) error {
	sep := ",\n  "
	if a.n == 0 {
		sep = "[\n  "
	}
	a.n++
	a.w.WriteString(sep)
	_, err := a.w.Write(elem)
	return err
}

func (a *jsonArrayWriter) close() error {
	if a.n == 0 {
		a.w.WriteString("[]\n")
	} else {
		a.w.WriteString("\n]\n")
	}
	return a.w.Flush()
}

// readAll reads every input into its documents, telling stderr what went
// wrong on the way. err is a usage error found before anything was read;
// status is what the command returns once it has written its output (nil,
// or the exit status for nothing read, problems met, or an interruption).
// report shares it, so both commands read and fail alike. With a sink,
// the documents go to it and docs stays empty.
func (c *analyzeCommand) readAll(ctx context.Context, command string, sink *docSink) (docs []appdoc.Doc, status, err error) {
	cfg := c.cfg
	cfg.CPUs = *c.cpus
	energy, err := eventlog.ResolveEnergyModel(cfg.Energy, c.nodePower)
	if err != nil {
		return nil, nil, usageErrorf("%v", err)
	}
	cfg.Energy = energy
	if err := eventlog.CheckCostModel(cfg.Cost); err != nil {
		return nil, nil, usageErrorf("%v", err)
	}
	if cfg.Workload, err = c.workload.Resolve(); err != nil {
		return nil, nil, usageErrorf("%v", err)
	}
	if *c.interval == "stages" {
		cfg.StageBorders = true
	} else {
		d, err := time.ParseDuration(*c.interval)
		if err != nil || d < time.Millisecond {
			return nil, nil, usageErrorf("--interval=%q: want a duration of at least 1ms (e.g. 10s) or \"stages\"", *c.interval)
		}
		cfg.Interval = d
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

	var logs []sparklog.Log
	var failed []string
	fail := func(err error) {
		failed = append(failed, err.Error())
		fmt.Fprintf(c.errOut, "sparkglance %s: %v\n", command, err)
	}
	for _, p := range paths {
		found, err := sparklog.DiscoverGiven(p)
		if err == nil && len(found) == 0 {
			err = fmt.Errorf("%s: %s", p, noLogReason(p))
		}
		if err != nil {
			fail(err)
			continue
		}
		logs = append(logs, found...)
	}

	if len(logs) == 1 {
		limitReadMemory(logs[0])
	}

	// Logs are read on a pool of workers, but their results are taken in
	// the order of logs: the output and the messages are the sequential
	// ones, whichever log finishes first.
	type result struct {
		doc         appdoc.Doc
		prepared    any   // what sink.prepare made of doc
		sinkErr     error // from sink.prepare
		err         error
		interrupted bool
	}
	bar := newProgressBar(c.errOut, logs)
	var problems int64
	var interrupted, writeErr error
	apps := 0 // documents read, kept or given to the sink
	read := func(i int) result {
		if ctx.Err() != nil {
			return result{interrupted: true}
		}
		doc, err := appdoc.Read(ctx, logs[i], cfg, bar.forLog(i))
		if err == nil {
			bar.finish(i, logs[i])
		}
		r := result{doc: doc, err: err, interrupted: ctx.Err() != nil}
		if err == nil && sink != nil && len(doc.Events) > 0 {
			r.prepared, r.sinkErr = sink.prepare(doc)
			// Only what the reporting of problems needs waits for its turn.
			r.doc = appdoc.Doc{Log: doc.Log, Events: doc.Events, Problems: doc.Problems, ProblemsOmitted: doc.ProblemsOmitted}
		}
		return r
	}
	use := func(i int, r result) bool {
		l, doc := logs[i], r.doc
		switch {
		case r.interrupted:
			interrupted = fmt.Errorf("interrupted while reading %s; %d application(s) read before are written", l.Path, apps)
			return false
		case r.sinkErr != nil:
			writeErr = r.sinkErr
			return false
		case r.err != nil:
			bar.clear()
			fail(r.err)
			return true
		case len(doc.Events) == 0:
			// Not an application: say why instead of printing an empty one.
			bar.clear()
			fail(fmt.Errorf("%s: holds no Spark event: %s", l.Path, firstProblem(doc)))
			return true
		}
		if n := int64(len(doc.Problems)) + doc.ProblemsOmitted; n > 0 {
			problems += n
			bar.clear()
			c.reportProblems(command, doc, n)
		}
		if sink != nil {
			bar.clear() // stdout may be the terminal the bar is drawn on
			if err := sink.emit(r.prepared); err != nil {
				writeErr = err
				return false
			}
		} else {
			docs = append(docs, doc)
		}
		apps++
		return true
	}
	// Workers may run as far ahead as they like, so a big log does not hold
	// up the small ones: what waits for its turn is a document (kept for
	// the output anyway) or, with a sink, its encoding.
	inorder.Each(len(logs), parallel, len(logs), read, use)
	bar.done()
	if writeErr != nil {
		return nil, nil, writeErr
	}

	switch {
	case interrupted != nil:
		status = &statusError{status: exitInterrupted, err: interrupted}
	case apps == 0:
		status = &statusError{status: exitNothingRead, err: fmt.Errorf("no event log could be read from %s", strings.Join(*c.paths, ", "))}
	case len(failed) > 0 || problems > 0:
		status = &statusError{status: exitPartial, err: fmt.Errorf("read with problems: %d application(s) read, %d problem(s) in them, %d input(s) unreadable", apps, problems, len(failed))}
	}
	return docs, status, nil
}

// workers is --parallel resolved: how many logs are read at once.
func (c *analyzeCommand) workers() (int, error) {
	switch n := *c.parallel; {
	case n < 0:
		return 0, usageErrorf("--parallel=%d: want 0 (one per core) or more", n)
	case n == 0:
		return defaultParallel(), nil
	default:
		return n, nil
	}
}

// reportProblems lists a log's problems on stderr, one compiler-style line
// each (file:line: kind: reason), bounded; in JSON mode they are in the
// output, so stderr only says how many there are.
func (c *analyzeCommand) reportProblems(command string, doc appdoc.Doc, n int64) {
	if *c.json {
		fmt.Fprintf(c.errOut, "sparkglance %s: %s: %d problem(s), listed under \"problems\" in the JSON\n", command, doc.Log, n)
		return
	}
	shown := doc.Problems[:min(len(doc.Problems), maxStderrProblems)]
	for _, p := range shown {
		fmt.Fprintf(c.errOut, "sparkglance %s: %s\n", command, p)
	}
	if rest := n - int64(len(shown)); rest > 0 {
		fmt.Fprintf(c.errOut, "sparkglance %s: %s: … and %d more problem(s) (--json lists up to %d)\n", command, doc.Log, rest, appdoc.MaxProblems)
	}
}

// firstProblem explains why a log gave no event: its first problem, or
// that it holds no line at all.
func firstProblem(doc appdoc.Doc) string {
	if len(doc.Problems) == 0 {
		return "no line was read"
	}

	return doc.Problems[0].Reason
}

// noLogReason says why a path that exists yielded no log: Discover returns
// nothing only for a directory without event logs at its top level.
func noLogReason(dir string) string {
	entries, err := os.ReadDir(dir)
	if err == nil && len(entries) == 0 {
		return "empty directory, no event log in it"
	}
	return "no event log in this directory: Spark's log directories hold log files, zips and eventlog_v2_* directories at their top level, and other sub-directories are not searched"
}

// print writes the text output (the JSON one is jsonArrayWriter's).
func (c *analyzeCommand) print(docs []appdoc.Doc) error {
	for i, d := range docs {
		if i > 0 {
			fmt.Fprintln(c.out, strings.Repeat("─", 78))
		}
		if err := writeTextResult(c.out, d); err != nil {
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
	fmt.Fprintf(w, "\nRead %d lines: %d executors, %d stage attempts, %d tasks\n", r.Lines, execs, stages, r.Events[sparklog.TypeTaskEnd])
	types := slices.Sorted(maps.Keys(r.Events))
	for _, t := range types {
		fmt.Fprintf(w, "  %8d  %s\n", r.Events[t], t)
	}
	if n := int64(len(r.Problems)) + r.ProblemsOmitted; n > 0 {
		fmt.Fprintf(w, "\nProblems: %d (listed on stderr)\n", n)
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
const (
	readBudget = 32 << 20
	bigWindow  = 16 << 20
)

func limitReadMemory(l sparklog.Log) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return
	}
	var window int64
	for _, f := range l.Files {
		if f.Member != "" || f.Codec != codec.Zstd {
			continue
		}
		window = max(window, zstdWindowOf(f.Path))
	}
	if window < bigWindow {
		window = 0
	}
	debug.SetMemoryLimit(readBudget + window)
}

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
