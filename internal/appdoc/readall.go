package appdoc

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/inorder"
	"github.com/sparkglance/sparkglance/internal/sparklog"
)

// The reading pipeline of the commands that read logs once (analyze,
// report, compare and backfill): logs are read on a pool of workers, but
// their documents are handed over in the order of the logs, so the output
// and the messages are the sequential ones whichever log finishes first.

// Progress hears how reading goes, for a progress bar; its methods may be
// called from several workers at once.
type Progress interface {
	// ForLog is the sparklog.Options.OnProgress callback of the i-th log,
	// or nil.
	ForLog(i int) func(sparklog.Progress)
	// Finish says the i-th log, l, has been read completely.
	Finish(i int, l sparklog.Log)
	// Clear is called before a message or output is written, which must
	// not mix with the bar.
	Clear()
	// Done is called once reading is over.
	Done()
}

// ReadOptions configure ReadLogs.
type ReadOptions struct {
	// Analysis configures each log's analysis.
	Analysis analysis.Config
	// Parallel is how many logs are read at once; 0 is one per core
	// (GOMAXPROCS).
	Parallel int
	// Progress, if not nil, is told how reading goes.
	Progress Progress
	// Prepare, if not nil, runs on the worker that read a document with
	// events (to encode it, or render and write its page) so that the
	// document need not wait whole for its turn: the Result carries what
	// Prepare returned, and of the document only what reporting its
	// problems needs (its log, events, problems and application attempt).
	Prepare func(Doc) (any, error)
	// Reading, if not nil, is called on the worker before it reads a log,
	// and the function it returns once the log's document is prepared
	// (to size the memory limit by the logs in flight).
	Reading func(l sparklog.Log) (done func())
}

// Result is one log read by ReadLogs.
type Result struct {
	Doc Doc
	// Err is why the log could not be read (Doc holds what was read
	// before).
	Err error
	// Prepared and PrepareErr are what ReadOptions.Prepare returned.
	Prepared   any
	PrepareErr error
	// Interrupted is set when ctx ended before or while the log was read:
	// the rest of the Result means nothing.
	Interrupted bool
}

// ReadLogs reads every log into its document on opt.Parallel workers and
// hands each Result to use in the order of logs, as soon as it and every
// one before it are read. When use returns false no further log is read.
// Workers may run as far ahead as they like, so a big log does not hold up
// the small ones: what waits for its turn is a document or, with Prepare,
// what Prepare made of it.
func ReadLogs(ctx context.Context, logs []sparklog.Log, opt ReadOptions, use func(i int, r Result) bool) {
	workers := opt.Parallel
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(logs)))
	progress := opt.Progress
	if progress == nil {
		progress = noProgress{}
	}
	held := make([]bool, len(logs)) // the i-th Result holds its whole document, counted in Analyses
	readLog := func(i int) Result {
		if ctx.Err() != nil {
			return Result{Interrupted: true}
		}
		if opt.Reading != nil {
			defer opt.Reading(logs[i])()
		}
		Analyses.begin()
		held[i] = true
		doc, err := read(ctx, logs[i], opt.Analysis, progress.ForLog(i), decodeWorkers(len(logs)-i, workers, runtime.GOMAXPROCS(0)))
		if err == nil {
			progress.Finish(i, logs[i])
		}
		r := Result{Doc: doc, Err: err, Interrupted: ctx.Err() != nil}
		if err == nil && opt.Prepare != nil && len(doc.Events) > 0 {
			r.Prepared, r.PrepareErr = opt.Prepare(doc)
			r.Interrupted = ctx.Err() != nil
			// Only what the reporting of problems needs waits for its turn.
			r.Doc = Doc{Log: doc.Log, Events: doc.Events, Problems: doc.Problems, ProblemsOmitted: doc.ProblemsOmitted,
				Report: analysis.Report{AppID: doc.Report.AppID, AttemptID: doc.Report.AttemptID}}
			held[i] = false
			Analyses.end()
		}
		return r
	}
	inorder.Each(len(logs), workers, len(logs), readLog, func(i int, r Result) bool {
		keep := use(i, r)
		if held[i] {
			held[i] = false
			Analyses.end()
		}
		return keep
	})
	for i := range held { // read, and dropped once use said stop
		if held[i] {
			Analyses.end()
		}
	}
}

// decodeWorkers chooses between reading logs in parallel and decoding one
// log in parallel (sparklog.Options.DecodeWorkers) for a log that starts
// with remaining logs left to read (itself and those not started yet), on
// a pool of workers, with cores. While the pool's other workers have logs
// to read, every core is busy with a log of its own: decoding a log's lines
// on other goroutines only adds hand-offs (measured in docs/performance.md,
// "Many logs"), so the log is decoded on its worker. A pool smaller than
// the cores (--parallel 1), and the last logs, which leave cores idle as
// the other workers run out of logs, let the reader decode a big log on
// every core; so does a pool of one, whatever the cores (a single log).
func decodeWorkers(remaining, workers, cores int) int {
	if workers == 1 || workers < cores || remaining < cores {
		return 0
	}
	return 1
}

type noProgress struct{}

func (noProgress) ForLog(int) func(sparklog.Progress) { return nil }
func (noProgress) Finish(int, sparklog.Log)           {}
func (noProgress) Clear()                             {}
func (noProgress) Done()                              {}

// Sink takes each document as it is read instead of ReadAll keeping them
// all: Prepare runs on the worker that read the document, Emit gets what
// Prepare returned in the order of the inputs. An error from either ends
// the reading.
type Sink struct {
	// Start, if not nil, is told how many logs were listed, before any
	// is read (a sink may hold its documents only when there are several).
	Start   func(logs int) error
	Prepare func(Doc) (any, error)
	Emit    func(any) error
}

// Options configure ReadAll.
type Options struct {
	// Analysis configures each log's analysis.
	Analysis analysis.Config
	// Parallel is how many logs are read at once; 0 is one per core.
	Parallel int
	// Sink, if not nil, takes the documents; otherwise ReadAll returns
	// them in Summary.Docs.
	Sink *Sink
	// Listed, if not nil, is called once the inputs are listed, before any
	// is read; it returns the Progress to tell (nil for none).
	Listed func(logs []sparklog.Log) Progress
	// Warn gets each message about an input, without a newline: why it
	// could not be read, that it is not an event log, that it repeats an
	// application attempt.
	Warn func(msg string)
	// Problems gets a document with reading problems, n of them (those
	// not omitted are doc.Problems).
	Problems func(doc Doc, n int64)
	// Reading is ReadOptions.Reading.
	Reading func(l sparklog.Log) (done func())
}

// Summary says what ReadAll read.
type Summary struct {
	// Docs are the documents read, in the order of the inputs (none
	// with a Sink).
	Docs []Doc
	// Apps counts the documents read, kept or given to the sink.
	Apps int
	// Problems counts the reading problems in them, duplicates included.
	Problems int64
	// Unreadable counts the inputs and logs that could not be read or
	// held no event.
	Unreadable int
	// Interrupted is the log being read when ctx ended; "" when reading
	// was not interrupted.
	Interrupted string
}

// ProblemDuplicateApp is a log claiming an application attempt (App ID
// and attempt ID) an earlier input already showed: a copy, or two
// applications a broken cluster manager gave one identity.
const ProblemDuplicateApp sparklog.ProblemKind = "duplicate-app"

// ReadAll reads every log of inputs (files, rolling directories, zips or
// directories of logs, as sparklog.DiscoverGiven takes them) into its
// document, telling opt.Warn and opt.Problems what went wrong on the way
// in the order of the inputs. An input that cannot be read, and a log
// that holds no event, are counted as unreadable; a file beside the logs
// of a directory that is not an event log (a README) is named once and
// not counted. The error is the Sink's only.
func ReadAll(ctx context.Context, inputs []string, opt Options) (Summary, error) {
	var sum Summary
	warn := func(msg string) {
		if opt.Warn != nil {
			opt.Warn(msg)
		}
	}
	fail := func(err error) {
		sum.Unreadable++
		warn(err.Error())
	}
	var logs []sparklog.Log
	var listed []bool // the log was found by listing a directory, not named
	for _, p := range inputs {
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

	var progress Progress
	if opt.Listed != nil {
		progress = opt.Listed(logs)
	}
	if progress == nil {
		progress = noProgress{}
	}
	ropt := ReadOptions{Analysis: opt.Analysis, Parallel: opt.Parallel, Progress: progress, Reading: opt.Reading}
	if opt.Sink != nil {
		ropt.Prepare = opt.Sink.Prepare
		if opt.Sink.Start != nil {
			if err := opt.Sink.Start(len(logs)); err != nil {
				progress.Done()
				return Summary{}, err
			}
		}
	}
	var sinkErr error
	attempts := firstLogs{}
	ReadLogs(ctx, logs, ropt, func(i int, r Result) bool {
		l, doc := logs[i], r.Doc
		switch {
		case r.Interrupted:
			sum.Interrupted = l.Path
			return false
		case r.PrepareErr != nil:
			sinkErr = r.PrepareErr
			return false
		case r.Err != nil:
			progress.Clear()
			fail(r.Err)
			return true
		case len(doc.Events) == 0 && listed[i] && notLog(doc) && !sparkLogName(filepath.Base(l.Path)):
			// A README or other file beside the logs of a directory: named
			// once, and no reason for a script to think the read failed.
			progress.Clear()
			p, _ := sparklog.NotEventLog(doc.Problems)
			warn(fmt.Sprintf("%s: %s", l.Path, p.Reason))
			return true
		case len(doc.Events) == 0:
			// Not an application: say why instead of giving an empty one.
			progress.Clear()
			fail(fmt.Errorf("%s: holds no Spark event: %s", l.Path, firstProblem(doc)))
			return true
		}
		if n := int64(len(doc.Problems)) + doc.ProblemsOmitted; n > 0 {
			sum.Problems += n
			progress.Clear()
			if opt.Problems != nil {
				opt.Problems(doc, n)
			}
		}
		if p, dup := attempts.duplicate(doc); dup {
			sum.Problems++
			progress.Clear()
			warn(p.String())
		}
		if opt.Sink != nil {
			progress.Clear() // the output may go to the terminal the bar is drawn on
			if err := opt.Sink.Emit(r.Prepared); err != nil {
				if ctx.Err() != nil {
					// A sink that writes as it encodes stops with ctx:
					// the same interruption as a read's.
					sum.Interrupted = l.Path
				} else {
					sinkErr = err
				}
				return false
			}
		} else {
			sum.Docs = append(sum.Docs, doc)
		}
		sum.Apps++
		return true
	})
	progress.Done()
	if sinkErr != nil {
		return Summary{}, sinkErr
	}
	return sum, nil
}

// firstLogs maps each application attempt read to the log that showed it
// first, in the order of the inputs.
type firstLogs map[[2]string]string

// duplicate records doc's attempt and returns the problem to report when
// an earlier log already showed it. A log without an App ID (very old
// Spark) is no duplicate of anything.
func (f firstLogs) duplicate(doc Doc) (sparklog.Problem, bool) {
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
func notLog(doc Doc) bool {
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

// firstProblem explains why a log gave no event: its first problem, or
// that it holds no line at all.
func firstProblem(doc Doc) string {
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
