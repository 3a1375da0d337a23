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
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/sparkglance/sparkglance/collectors/eventlog"
	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/appdoc"
	"github.com/sparkglance/sparkglance/internal/human"
	"github.com/sparkglance/sparkglance/internal/inorder"
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
		// Encoding a long application's document takes seconds, in one
		// call that cannot look at ctx: an interruption does not wait for it.
		prepare: func(doc appdoc.Doc) (any, error) {
			return untilDone(ctx, func() (any, error) { return encodeElement(doc) })
		},
		emit: func(elem any) error { return out.add(elem.([]byte)) },
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
	var listed []bool // the log was found by listing a directory, not named
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
		named := len(found) == 1 && (found[0].Path == p || found[0].Path == absPath(p))
		for range found {
			listed = append(listed, !named)
		}
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
	attempts := firstLogs{}
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
			r.interrupted = ctx.Err() != nil
			// Only what the reporting of problems needs waits for its turn.
			r.doc = appdoc.Doc{Log: doc.Log, Events: doc.Events, Problems: doc.Problems, ProblemsOmitted: doc.ProblemsOmitted,
				Report: analysis.Report{AppID: doc.Report.AppID, AttemptID: doc.Report.AttemptID}}
		}
		return r
	}
	use := func(i int, r result) bool {
		l, doc := logs[i], r.doc
		switch {
		case r.interrupted:
			interrupted = fmt.Errorf("interrupted while reading %s; %s read before written", l.Path, human.Plural(apps, "application"))
			return false
		case r.sinkErr != nil:
			writeErr = r.sinkErr
			return false
		case r.err != nil:
			bar.clear()
			fail(r.err)
			return true
		case len(doc.Events) == 0 && listed[i] && notLog(doc) && !sparkLogName(filepath.Base(l.Path)):
			// A README or other file beside the logs of a directory: named
			// once, and no reason for a script to think the read failed.
			bar.clear()
			p, _ := sparklog.NotEventLog(doc.Problems)
			fmt.Fprintf(c.errOut, "sparkglance %s: %s: %s\n", command, l.Path, p.Reason)
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
		if p, dup := attempts.duplicate(doc); dup {
			problems++
			bar.clear()
			fmt.Fprintf(c.errOut, "sparkglance %s: %s\n", command, p)
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
		status = &statusError{status: exitNothingRead, err: fmt.Errorf("no event log could be read from %s", strings.Join(redactLocations(*c.paths), ", "))}
	case len(failed) > 0 || problems > 0:
		status = &statusError{status: exitPartial, err: fmt.Errorf("read with problems: %s read, %s in them, %s unreadable", human.Plural(apps, "application"), human.Plural(problems, "problem"), human.Plural(len(failed), "input"))}
	}
	return docs, status, nil
}

// ProblemDuplicateApp is a log claiming an application attempt (App ID
// and attempt ID) an earlier input already showed: a copy, or two
// applications a broken cluster manager gave one identity.
const ProblemDuplicateApp sparklog.ProblemKind = "duplicate-app"

// firstLogs maps each application attempt read to the log that showed it
// first, in the order of the inputs.
type firstLogs map[[2]string]string

// duplicate records doc's attempt and returns the problem to report when
// an earlier log already showed it. A log without an App ID (very old
// Spark) is no duplicate of anything.
func (f firstLogs) duplicate(doc appdoc.Doc) (sparklog.Problem, bool) {
	if doc.Report.AppID == "" {
		return sparklog.Problem{}, false
	}
	k := [2]string{doc.Report.AppID, doc.Report.AttemptID}
	first, seen := f[k]
	if !seen {
		f[k] = doc.Log
		return sparklog.Problem{}, false
	}
	attempt := ""
	if doc.Report.AttemptID != "" {
		attempt = fmt.Sprintf(", attempt %q", doc.Report.AttemptID)
	}
	return sparklog.Problem{File: doc.Log, Kind: ProblemDuplicateApp,
		Reason: fmt.Sprintf("application %q%s was already read from %s: two logs claim the same application attempt; both are listed", doc.Report.AppID, attempt, first)}, true
}

// notLog says whether a document's problems show its file is not an event
// log (rather than a damaged one).
func notLog(doc appdoc.Doc) bool {
	_, ok := sparklog.NotEventLog(doc.Problems)
	return ok && doc.ProblemsOmitted == 0
}

// sparkLogName says whether a file name is one Spark gives event logs: its
// application id (app-… standalone, application_… YARN, local-…, spark-…
// Kubernetes, digits for Mesos) or Databricks' eventlog. Such a file that
// holds no event is a damaged log, not a stray file.
func sparkLogName(name string) bool {
	for _, prefix := range []string{"app-", "application_", "local-", "spark-", "eventlog"} {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return name != "" && name[0] >= '0' && name[0] <= '9'
}

// absPath is p made absolute, as local logs' paths are; p itself when
// that fails (an object-store URL stays as it is).
func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
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
