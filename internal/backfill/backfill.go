// Package backfill turns finished Spark applications' event logs into
// OpenMetrics text with timestamps, which `promtool tsdb create-blocks-from
// openmetrics` loads into Prometheus: the glance dashboards then show past
// applications as exactly as live ones.
//
// Per application (its latest attempt, as the event-log collector exports
// it) and per interval of the analysis, at the interval's end: the settled
// counters (spark_app_settled_task_seconds_total by category,
// spark_app_settled_core_seconds_total, spark_executor_settled_spill_bytes_total,
// starting from 0 at the first interval's start, so increase() between two
// interval ends is exactly the intervals in between), the interval gauges
// (spark_app_interval_time_ratio, spark_app_interval_efficiency) and
// spark_app_info; spark_stage_active is 1 at each stage attempt's submission
// and every interval end while it runs, then 0 at its completion (a written
// file cannot hold staleness markers, and a 0 ends the lane at once where
// a missing sample would extend it by the lookback delta).
package backfill

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"runtime/trace"
	"slices"
	"strconv"
	"strings"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/appdoc"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
	"github.com/sparkglance/sparkglance/internal/sparklog"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// Options configures a backfill.
type Options struct {
	// Analysis is the analysis configuration; its Interval must be the
	// --eventlog.interval the live exporter uses, so that backfilled and
	// live series look alike. Stage borders are not used.
	Analysis analysis.Config
	// Problem receives damage found while reading (may be nil), log after
	// log in the order they are listed, whatever Parallel.
	Problem func(sparklog.Problem)
	// Parallel is how many logs are read at once; 0 is one per core
	// (GOMAXPROCS).
	Parallel int
	// IncludeUnfinished writes applications without an ApplicationEnd
	// too, up to their last event (a log whose driver died, or the
	// Databricks logs that never carry one); otherwise they are skipped.
	IncludeUnfinished bool
	// Reading is appdoc.ReadOptions.Reading: told when each log is read.
	Reading func(l sparklog.Log) (done func())
}

// Summary says what a backfill wrote and left out.
type Summary struct {
	Apps    int      // applications written
	Samples int      // sample lines written
	Skipped []string // logs not written, each with its reason
	// Unfinished counts the applications written without an
	// ApplicationEnd (Options.IncludeUnfinished), up to their last event.
	Unfinished int
	// ProblemsOmitted counts the problems not given to Options.Problem:
	// those of a log past its first appdoc.MaxProblems.
	ProblemsOmitted int
}

// SkippedUnfinished is the reason given for a log without an
// ApplicationEnd when Options.IncludeUnfinished is off.
const SkippedUnfinished = "application not finished (no ApplicationEnd); --include-unfinished writes it up to its last event"

// app is one application attempt read to its end, as its samples are
// rendered from it.
type app struct {
	user   string
	report *analysis.Report
}

// Write is WriteContext without an interruption.
func Write(w io.Writer, paths []string, opt Options) (Summary, error) {
	return WriteContext(context.Background(), w, paths, opt)
}

// WriteContext reads every log under paths (files, rolling directories or
// directories of logs, as `analyze` takes them, through the same pipeline,
// appdoc.ReadLogs) and writes the finished applications' series to w.
// Unfinished logs are left out and listed in the summary unless
// opt.IncludeUnfinished; a path that cannot be listed or read is an error
// naming it. When ctx ends, reading stops, nothing more is written (w holds
// nothing, or a part of the file if every log was read already) and the
// error wraps ctx.Err().
//
// The file groups each family's samples of every application, so no
// application can be written before every log is read. Its samples wait
// in a temporary file instead of its report in memory: the worker that
// read a log renders them, family by family, into that file, and memory
// keeps where each family's chunk is. Once every log is read, the file is
// assembled family by family from the chunks, so what a run holds at once
// is bounded by the logs in flight, however many logs it reads.
func WriteContext(ctx context.Context, w io.Writer, paths []string, opt Options) (Summary, error) {
	cfg := opt.Analysis
	cfg.StageBorders = false
	if cfg.Interval <= 0 {
		return Summary{}, fmt.Errorf("backfill: interval %v must be positive", cfg.Interval)
	}
	sp, err := newSpool()
	if err != nil {
		return Summary{}, fmt.Errorf("backfill: %w", err)
	}
	defer sp.close()
	var sum Summary
	type written struct {
		log string
		*rendered
	}
	latest := map[string]written{} // by application id: the attempt that started last
	for _, p := range paths {
		logs, err := sparklog.DiscoverGiven(p)
		if err != nil {
			return sum, fmt.Errorf("backfill: %s: %w", p, err)
		}
		// A log's problems wait with what was rendered of it so that they
		// reach opt.Problem in the order of the logs, as a sequential read
		// gives them.
		var failed error
		ropt := appdoc.ReadOptions{Analysis: cfg, Parallel: opt.Parallel, Reading: opt.Reading, Prepare: func(doc appdoc.Doc) (any, error) {
			return sp.render(doc, opt.IncludeUnfinished)
		}}
		appdoc.ReadLogs(ctx, logs, ropt, func(i int, r appdoc.Result) bool {
			l, doc := logs[i], r.Doc
			if r.Interrupted {
				failed = fmt.Errorf("backfill: interrupted while reading %s: %w", l.Path, ctx.Err())
				return false
			}
			// An application is what an ApplicationStart began.
			started := r.Err == nil && doc.Events[sparkevent.TypeApplicationStart] > 0
			if !started && r.Err == nil && doc.ProblemsOmitted == 0 {
				if p, ok := sparklog.NotEventLog(doc.Problems); ok {
					// A README beside the logs: said once, as skipped.
					sum.Skipped = append(sum.Skipped, l.Path+": "+p.Reason)
					return true
				}
			}
			if opt.Problem != nil {
				for _, p := range doc.Problems {
					opt.Problem(p)
				}
			}
			sum.ProblemsOmitted += int(doc.ProblemsOmitted)
			if r.Err != nil {
				failed = fmt.Errorf("backfill: %w", r.Err) // r.Err names the log
				return false
			}
			if r.PrepareErr != nil {
				failed = fmt.Errorf("backfill: %s: %w", l.Path, r.PrepareErr)
				return false
			}
			if !started {
				sum.Skipped = append(sum.Skipped, l.Path+": no application in the log")
				return true
			}
			a := r.Prepared.(*rendered) // a log with an ApplicationStart has events: Prepare had it
			if a.live && !opt.IncludeUnfinished {
				sum.Skipped = append(sum.Skipped, l.Path+": "+SkippedUnfinished)
				return true
			}
			if a.live {
				sum.Unfinished++
			}
			id := a.id()
			if cur, ok := latest[id]; ok {
				if cur.start > a.start {
					sum.Skipped = append(sum.Skipped, l.Path+": an attempt of "+id+" that started later is written instead")
					return true
				}
				sum.Skipped = append(sum.Skipped, cur.log+": an attempt of "+id+" that started later is written instead")
			}
			latest[id] = written{l.Path, a}
			return true
		})
		if failed != nil {
			return sum, failed
		}
	}
	if testAssembling != nil {
		testAssembling()
	}
	// The part after reading, for execution traces of directory runs.
	defer trace.StartRegion(ctx, "backfill: assemble").End()
	apps := make([]*rendered, 0, len(latest))
	for _, a := range latest {
		apps = append(apps, a.rendered)
	}
	// By application id; applications without one (very old Spark), by
	// name.
	slices.SortFunc(apps, func(a, b *rendered) int {
		return cmp.Or(strings.Compare(a.appID, b.appID), strings.Compare(a.id(), b.id()))
	})

	bw := bufio.NewWriterSize(w, 1<<16)
	for f := range families {
		if err := ctx.Err(); err != nil {
			return sum, fmt.Errorf("backfill: interrupted while writing: %w", err)
		}
		writeHeader(bw, families[f].m)
		for _, a := range apps {
			if err := sp.copyTo(bw, a.chunks[f]); err != nil {
				return sum, fmt.Errorf("backfill: %w", err)
			}
		}
	}
	for _, a := range apps {
		sum.Samples += a.samples
	}
	bw.WriteString("# EOF\n")
	sum.Apps = len(apps)
	return sum, bw.Flush()
}

// writeHeader writes an OpenMetrics family's TYPE and HELP lines; counters'
// family names drop the _total their samples carry.
func writeHeader(w *bufio.Writer, m *sm.Metric) {
	name, typ := m.Name, "gauge"
	if m.Type == sm.Counter {
		name, typ = strings.TrimSuffix(m.Name, "_total"), "counter"
	}
	fmt.Fprintf(w, "# TYPE %s %s\n# HELP %s %s\n", name, typ, name, escape(m.Help))
}

// family is one family written and how to write an application's samples
// of it: s holds the application's labels; the steps are the interval ends,
// and counters start at 0 at the first interval's start.
type family struct {
	m     *sm.Metric
	write func(s *sampler, a *app, ivs []analysis.Interval)
}

// families are the families written, in file order.
var families = []family{
	{sm.AppInfo, func(s *sampler, a *app, ivs []analysis.Interval) {
		r := a.report
		labels := []string{"spark_version", r.SparkVersion, "user", a.user, "attempt_id", r.AttemptID}
		s.at(ivs[0].Start, 1, labels...)
		for _, iv := range ivs {
			s.at(iv.End, 1, labels...)
		}
	}},
	{sm.AppSettledTaskSeconds, func(s *sampler, _ *app, ivs []analysis.Interval) {
		for _, c := range sm.IntervalCategory.Values {
			total := 0.0
			s.at(ivs[0].Start, 0, sm.IntervalCategory.Name, string(c))
			for _, iv := range ivs {
				total += categoryValue(&iv, c)
				s.at(iv.End, total, sm.IntervalCategory.Name, string(c))
			}
		}
	}},
	{sm.AppSettledCoreSeconds, func(s *sampler, _ *app, ivs []analysis.Interval) {
		total := 0.0
		s.at(ivs[0].Start, 0)
		for _, iv := range ivs {
			total += iv.AvailableCoreSeconds
			s.at(iv.End, total)
		}
	}},
	{sm.AppIntervalEfficiency, func(s *sampler, _ *app, ivs []analysis.Interval) {
		for _, iv := range ivs {
			s.at(iv.End, iv.Efficiency)
		}
	}},
	{sm.AppIntervalTimeRatio, func(s *sampler, _ *app, ivs []analysis.Interval) {
		for _, c := range sm.IntervalCategory.Values {
			for _, iv := range ivs {
				ratio := 0.0
				if iv.AvailableCoreSeconds > 0 {
					ratio = categoryValue(&iv, c) / iv.AvailableCoreSeconds
				}
				s.at(iv.End, ratio, sm.IntervalCategory.Name, string(c))
			}
		}
	}},
	{sm.StageActive, writeStageActive},
	{sm.ExecutorSettledSpillBytes, writeSettledSpill},
}

// writeFamily writes one application's samples of a family and returns
// how many.
func writeFamily(w *bytes.Buffer, f family, a *app) int {
	r := a.report
	if len(r.Intervals) == 0 {
		return 0
	}
	s := sampler{w: w, name: f.m.Name, base: []string{"app_id", r.AppID, "app_name", r.AppName}}
	f.write(&s, a, r.Intervals)
	return s.n
}

// writeStageActive writes each stage attempt's lane: 1 from its
// submission and at every interval end while it runs, 0 at its end.
func writeStageActive(s *sampler, a *app, ivs []analysis.Interval) {
	r := a.report
	stages := slices.Clone(r.Stages)
	slices.SortFunc(stages, func(x, y analysis.Stage) int {
		return cmp.Or(cmp.Compare(x.StageID, y.StageID), cmp.Compare(x.AttemptID, y.AttemptID))
	})
	for _, st := range stages {
		from, to := st.SubmissionTime, st.CompletionTime
		if from <= 0 {
			continue // never submitted: no lane
		}
		if to < from {
			to = max(r.End, from) // never completed: ran until the application ended
		}
		labels := []string{"stage_id", strconv.Itoa(st.StageID), "attempt_id", strconv.Itoa(st.AttemptID)}
		s.at(from, 1, labels...)
		for _, iv := range ivs {
			if iv.End > from && iv.End < to {
				s.at(iv.End, 1, labels...)
			}
		}
		s.at(max(to, from+1), 0, labels...)
	}
}

// writeSettledSpill writes each executor's settled spill by medium.
func writeSettledSpill(s *sampler, a *app, ivs []analysis.Interval) {
	spill := map[string][]analysis.Spill{} // executor → per interval
	for i, iv := range ivs {
		for _, sp := range iv.Spill {
			if spill[sp.ExecutorID] == nil {
				spill[sp.ExecutorID] = make([]analysis.Spill, len(ivs))
			}
			spill[sp.ExecutorID][i] = sp
		}
	}
	for _, ex := range a.report.Executors {
		if spill[ex.ID] == nil {
			spill[ex.ID] = make([]analysis.Spill, len(ivs))
		}
	}
	execs := make([]string, 0, len(spill))
	for id := range spill {
		execs = append(execs, id)
	}
	slices.Sort(execs)
	for _, id := range execs {
		for _, medium := range sm.SpillMedium.Values {
			total := 0.0
			s.at(ivs[0].Start, 0, "executor_id", id, sm.SpillMedium.Name, string(medium))
			for i, iv := range ivs {
				if medium == sm.MediumDisk {
					total += spill[id][i].DiskBytes
				} else {
					total += spill[id][i].MemoryBytes
				}
				s.at(iv.End, total, "executor_id", id, sm.SpillMedium.Name, string(medium))
			}
		}
	}
}

func categoryValue(iv *analysis.Interval, c sm.Category) float64 {
	switch c {
	case sm.CategoryCPU:
		return iv.CPUSeconds
	case sm.CategoryGC:
		return iv.GCSeconds
	case sm.CategorySerde:
		return iv.SerdeSeconds
	}
	return iv.ShuffleSeconds
}

// sampler writes the sample lines of one family.
type sampler struct {
	w    *bytes.Buffer
	name string
	base []string // label name, value, … common to the family's series
	n    int
	num  []byte
}

// at writes one sample at ms (epoch milliseconds) with the base labels and
// extra (name, value pairs).
func (s *sampler) at(ms int64, v float64, extra ...string) {
	w := s.w
	w.WriteString(s.name)
	w.WriteByte('{')
	for i, kv := 0, append(slices.Clip(s.base), extra...); i < len(kv); i += 2 {
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString(kv[i])
		w.WriteString(`="`)
		// Invalid UTF-8 (an application name from a damaged or foreign
		// log) would make promtool reject the whole file: replaced as on
		// /metrics.
		w.WriteString(escape(sm.LabelValue(kv[i+1])))
		w.WriteByte('"')
	}
	w.WriteString("} ")
	s.num = appendValue(s.num[:0], v)
	w.Write(s.num)
	w.WriteByte(' ')
	// OpenMetrics timestamps are seconds; event times have milliseconds.
	s.num = strconv.AppendFloat(s.num[:0], float64(ms)/1e3, 'f', 3, 64)
	w.Write(s.num)
	w.WriteByte('\n')
	s.n++
}

func appendValue(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(b, "NaN"...)
	case math.IsInf(v, 1):
		return append(b, "+Inf"...)
	case math.IsInf(v, -1):
		return append(b, "-Inf"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// escape escapes a label value or help text as OpenMetrics requires.
func escape(s string) string {
	if !strings.ContainsAny(s, "\\\"\n") {
		return s
	}
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}
