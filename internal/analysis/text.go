package analysis

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sparkglance/sparkglance/internal/human"
)

const maxChartRows = 60

// WriteText prints a readable summary: the efficiency timeline as a text
// chart (intervals bucketed to at most 60 rows, runs of identical rows
// collapsed, spill per executor), the longest stages, the what-if
// (predicted wall time per executor count, critical path), the findings grouped
// by kind and operator with their advice, and the analysis problems.
//
// It takes any Report, also one built by hand: no value makes it panic.
func WriteText(w io.Writer, r Report) error {
	bw := bufio.NewWriter(w)
	name := r.AppName
	if name == "" {
		name = "(unnamed)"
	}
	fmt.Fprintf(bw, "%s  %s", r.AppID, name)
	if r.AttemptID != "" {
		fmt.Fprintf(bw, "  attempt %s", r.AttemptID)
	}
	if r.Workload != "" {
		fmt.Fprintf(bw, "\nworkload %s", r.Workload)
	}
	fmt.Fprintf(bw, "\nSpark %s, %s → %s (%s)", orDash(r.SparkVersion), fmtTime(r.Start), fmtTime(r.End),
		fmtSeconds(float64(r.End-r.Start)/1e3))
	if r.Live {
		fmt.Fprint(bw, ", no ApplicationEnd yet (still running, or the driver died)")
	}
	fmt.Fprintln(bw)
	t := r.Totals
	eff := 0.0
	if t.AvailableCoreSecs > 0 {
		eff = max(t.CPUSeconds, 0) / t.AvailableCoreSecs
	}
	fmt.Fprintf(bw, "%s; core time available %s, task CPU %s (efficiency %s), serde %s, shuffle wait %s, GC %s\n",
		human.Plural(t.Tasks, "task"), fmtSeconds(t.AvailableCoreSecs), fmtSeconds(t.CPUSeconds), human.Percent(eff),
		fmtSeconds(t.SerdeSeconds), fmtSeconds(t.ShuffleSeconds), fmtSeconds(t.GCSeconds))
	if t.MemoryBytesSpill > 0 || t.DiskBytesSpill > 0 {
		fmt.Fprintf(bw, "spilled %s from memory, %s to disk\n", fmtBytes(t.MemoryBytesSpill), fmtBytes(t.DiskBytesSpill))
	}
	writeEnergy(bw, r)
	writeCost(bw, r)
	if !r.CPUTimeAvailable {
		fmt.Fprintln(bw, "(this log has no Executor CPU Time: efficiency cannot be measured; the chart shows busy task time instead)")
	}
	if r.CoresEstimated {
		fmt.Fprintf(bw, "(local[*]: %s estimated from the most tasks busy at once)\n", human.Plural(r.LocalCores, "core"))
	}
	writeChart(bw, r)
	writeWorstStages(bw, r)
	writeWhatIf(bw, r.WhatIf)
	writeStreaming(bw, r)
	writeFindings(bw, r.Findings)
	writeProblems(bw, r)
	return bw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func fmtTime(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05")
}

// fmtSeconds and fmtBytes are the report page's units (internal/human).
func fmtSeconds(s float64) string { return human.Seconds(s) }

func fmtBytes(b float64) string { return human.Bytes(b) }

// chartRow is one printed line of the chart, without its time label.
type chartRow struct {
	start     int64
	intervals int
	text      string
}

// writeChart draws one row per group of intervals: cpu (█), serde (▓),
// shuffle (▒) and other busy task time (░) as shares of available cores,
// then the spill of the row's top executors. A run of identical rows is
// printed once, followed by how many intervals it hides.
func writeChart(w io.Writer, r Report) {
	ivs := r.Intervals
	if len(ivs) == 0 {
		return
	}
	group := (len(ivs) + maxChartRows - 1) / maxChartRows
	const width = 50
	var rows []chartRow
	for i := 0; i < len(ivs); i += group {
		var avail, cpu, serde, shuffle, task float64
		j := min(i+group, len(ivs))
		spill := map[string][2]float64{}
		for _, iv := range ivs[i:j] {
			avail += iv.AvailableCoreSeconds
			cpu += max(iv.CPUSeconds, 0)
			serde += max(iv.SerdeSeconds, 0)
			shuffle += max(iv.ShuffleSeconds, 0)
			task += max(iv.TaskSeconds, 0)
			for _, s := range iv.Spill {
				v := spill[s.ExecutorID]
				spill[s.ExecutorID] = [2]float64{v[0] + max(s.MemoryBytes, 0), v[1] + max(s.DiskBytes, 0)}
			}
		}
		bar := ""
		share := 0.0
		if avail > 0 {
			// Shares are clamped to [0, 1] first: the cell counts can
			// neither be negative nor overflow, whatever the report holds.
			cells := func(v float64) int { return int(min(max(v/avail, 0), 1)*width + 0.5) }
			c, s, sh := cells(cpu), cells(serde), cells(shuffle)
			s = min(s, width-c)
			sh = min(sh, width-c-s)
			other := max(cells(task)-c-s-sh, 0)
			bar = strings.Repeat("█", c) + strings.Repeat("▓", s) + strings.Repeat("▒", sh) + strings.Repeat("░", other)
			share = cpu / avail
		}
		text := fmt.Sprintf("%4.0f%% |%s", 100*min(share, 9.99), bar)
		if sp := spillText(spill); sp != "" {
			text += strings.Repeat(" ", width-len([]rune(bar))) + "| " + sp
		}
		rows = append(rows, chartRow{start: ivs[i].Start, intervals: j - i, text: text})
	}
	layout := "15:04:05"
	if ivs[len(ivs)-1].End-ivs[0].Start > 24*3600*1000 {
		layout = "01-02 15:04"
	}
	fmt.Fprintf(w, "\nTimeline (█ cpu ▓ serde ▒ shuffle ░ other task time; full width = all available cores)\n")
	for i := 0; i < len(rows); {
		j := i + 1
		for j < len(rows) && rows[j].text == rows[i].text {
			j++
		}
		fmt.Fprintf(w, "%s %s\n", time.UnixMilli(rows[i].start).UTC().Format(layout), rows[i].text)
		switch hidden := rows[i+1 : j]; {
		case len(hidden) == 1:
			fmt.Fprintf(w, "%s %s\n", time.UnixMilli(hidden[0].start).UTC().Format(layout), hidden[0].text)
		case len(hidden) > 1:
			n := 0
			for _, h := range hidden {
				n += h.intervals
			}
			fmt.Fprintf(w, "%*s … %d identical intervals …\n", len(layout), "", n)
		}
		i = j
	}
}

// maxSpillExecutors is how many executors a chart row names.
const maxSpillExecutors = 3

// spillText names the executors that spilled most within a row: memory
// spill, or disk spill when no memory spill is reported (as the findings).
func spillText(spill map[string][2]float64) string {
	var total [2]float64
	for _, v := range spill {
		total[0] += v[0]
		total[1] += v[1]
	}
	k, what := 0, "memory"
	if total[0] <= 0 {
		k, what = 1, "disk"
	}
	if total[k] <= 0 {
		return ""
	}
	// The first maxSpillExecutors in the order of most spill, then
	// compareExecIDs, kept as the executors go by: sorting them all (a
	// million in one row) to name three took seconds.
	type spilled struct {
		id    string
		bytes float64
	}
	before := func(x, y spilled) bool { return cmp.Or(cmp.Compare(y.bytes, x.bytes), compareExecIDs(x.id, y.id)) < 0 }
	top := make([]spilled, 0, maxSpillExecutors+1)
	n := 0
	for id, v := range spill {
		if v[k] <= 0 {
			continue
		}
		n++
		s := spilled{id, v[k]}
		i := len(top)
		for i > 0 && before(s, top[i-1]) {
			i--
		}
		if i < maxSpillExecutors {
			top = slices.Insert(top, i, s)[:min(len(top)+1, maxSpillExecutors)]
		}
	}
	parts := make([]string, 0, maxSpillExecutors+1)
	for _, s := range top {
		parts = append(parts, "exec "+s.id+" "+fmtBytes(s.bytes))
	}
	if more := n - maxSpillExecutors; more > 0 {
		parts = append(parts, fmt.Sprintf("+%d more", more))
	}
	return fmt.Sprintf("spill %s %s: %s", what, fmtBytes(total[k]), strings.Join(parts, ", "))
}

// writeWorstStages lists the stages with the longest wall time.
func writeWorstStages(w io.Writer, r Report) {
	stages := slices.Clone(r.Stages)
	dur := func(s Stage) int64 {
		if s.CompletionTime == 0 || s.SubmissionTime == 0 {
			return 0
		}
		return max(s.CompletionTime-s.SubmissionTime, 0)
	}
	slices.SortFunc(stages, func(x, y Stage) int { return cmp.Compare(dur(y), dur(x)) })
	if len(stages) == 0 {
		return
	}
	fmt.Fprintf(w, "\nLongest stages\n")
	for _, s := range stages[:min(5, len(stages))] {
		med := ""
		if q := s.TaskDurations; q != nil {
			med = fmt.Sprintf(", task median %s max %s", fmtSeconds(q.Median/1e3), fmtSeconds(q.Max/1e3))
		}
		tasks := "tasks"
		if s.NumTasks == 1 {
			tasks = "task"
		}
		fmt.Fprintf(w, "  stage %d.%d %-9s %7s  %d %s%s  %s\n", s.StageID, s.AttemptID, s.Status,
			fmtSeconds(float64(dur(s))/1e3), s.NumTasks, tasks, med, shortStageName(s.Name, maxStageName))
	}
}

// maxStageName is how many characters of a stage name the report shows.
const maxStageName = 48

// shortStageName keeps what tells stages apart. Spark names a stage after
// its call site, "method at File.scala:42"; the directory of a script
// (".../nds/nds_power.py:132") or the package of a class
// ("org.apache.spark.sql.Dataset.scala:123") only makes it long, so they
// go first. What still does not fit loses the start of the method, never
// the file and line.
func shortStageName(name string, n int) string {
	name = strings.Join(strings.Fields(name), " ")
	method, site, ok := cutLast(name, " at ")
	if !ok {
		return truncate(name, n)
	}
	file, line, hasLine := cutLast(site, ":")
	if _, err := strconv.Atoi(line); !hasLine || err != nil {
		file, line = site, ""
	}
	if i := strings.LastIndexAny(file, `/\`); i >= 0 && i < len(file)-1 {
		file = file[i+1:]
	}
	if parts := strings.Split(file, "."); len(parts) > 2 { // package.Class.scala → Class.scala
		file = strings.Join(parts[len(parts)-2:], ".")
	}
	if line != "" {
		file += ":" + line
	}
	if i := strings.LastIndex(method, "."); i >= 0 && i < len(method)-1 { // org.apache.spark.rdd.RDD.collect → collect
		method = method[i+1:]
	}
	tail := " at " + file
	room := n - len([]rune(tail))
	if room < 2 {
		return "…" + string(lastRunes(file, n-1))
	}
	if m := []rune(method); len(m) > room {
		method = "…" + string(m[len(m)-room+1:])
	}
	return method + tail
}

func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

func lastRunes(s string, n int) []rune {
	r := []rune(s)
	return r[max(len(r)-max(n, 0), 0):]
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:max(n-1, 0)]) + "…"
	}
	return s
}

// findingGroup is findings of one kind about the same thing (the same SQL
// operator name, or the application's timeline), printed once with a count.
type findingGroup struct {
	kind, operator string
	members        []Finding
}

// maxGroupSubjects is how many of a group's subjects the report names.
const maxGroupSubjects = 3

func writeFindings(w io.Writer, fs []Finding) {
	fmt.Fprintf(w, "\nFindings (%d)\n", len(fs))
	var groups []*findingGroup
	index := map[[2]string]*findingGroup{}
	for _, f := range fs {
		op := strings.TrimSpace(f.Operator)
		key := [2]string{f.Kind, op}
		g := index[key]
		if g == nil {
			g = &findingGroup{kind: f.Kind, operator: op}
			index[key] = g
			groups = append(groups, g)
		}
		g.members = append(g.members, f)
	}
	for _, g := range groups {
		f := g.members[0]
		if len(g.members) == 1 {
			fmt.Fprintf(w, "  %s: %s:%s\n", g.kind, findingSubject(f), fmtNumbers(f.Numbers))
		} else {
			what := ""
			if g.operator != "" {
				what = " " + g.operator + " in"
			}
			fmt.Fprintf(w, "  %s ×%d:%s %s\n", g.kind, len(g.members), what, groupPlaces(g.members))
			fmt.Fprintf(w, "      first:%s\n", fmtNumbers(f.Numbers))
		}
		fmt.Fprintf(w, "      → %s\n", f.Advice)
	}
}

// groupPlaces names where a group's findings are, briefly: the operators
// of each query ("query 26 operators 22, 24, +13 more"), else the first
// few places.
func groupPlaces(fs []Finding) string {
	var queries []int64
	ops := map[int64][]string{}
	for _, f := range fs {
		if f.ExecutionID == nil || f.OperatorID == nil {
			queries = nil
			break
		}
		q := *f.ExecutionID
		if _, ok := ops[q]; !ok {
			queries = append(queries, q)
		}
		ops[q] = append(ops[q], strconv.Itoa(*f.OperatorID))
	}
	var parts []string
	shown := 0
	if queries != nil {
		for _, q := range queries {
			if shown >= 2*maxGroupSubjects {
				break
			}
			ids := ops[q][:min(len(ops[q]), 2*maxGroupSubjects-shown)]
			shown += len(ids)
			word := "operators"
			if len(ids) == 1 {
				word = "operator"
			}
			parts = append(parts, fmt.Sprintf("query %d %s %s", q, word, strings.Join(ids, ", ")))
		}
	} else {
		for _, f := range fs[:min(len(fs), maxGroupSubjects)] {
			parts = append(parts, findingPlace(f))
		}
		shown = len(parts)
	}
	if n := len(fs) - shown; n > 0 {
		parts = append(parts, fmt.Sprintf("+%d more", n))
	}
	return strings.Join(parts, "; ")
}

// findingSubject says what a finding concerns: stage, executor, time range
// or SQL query and operator.
func findingSubject(f Finding) string {
	place := findingPlace(f)
	if op := strings.TrimSpace(f.Operator); op != "" {
		place = strings.TrimSpace(place + " (" + op + ")")
	}
	if place == "" {
		return "whole application"
	}
	return place
}

// findingPlace locates a finding without naming its operator.
func findingPlace(f Finding) string {
	var parts []string
	if f.StageID != nil && f.StageAttemptID != nil {
		parts = append(parts, fmt.Sprintf("stage %d.%d", *f.StageID, *f.StageAttemptID))
	}
	if f.ExecutorID != "" {
		parts = append(parts, "executor "+f.ExecutorID)
	}
	if f.ExecutionID != nil {
		q := fmt.Sprintf("query %d", *f.ExecutionID)
		if f.OperatorID != nil {
			q += fmt.Sprintf(" operator %d", *f.OperatorID)
		}
		parts = append(parts, q)
	}
	if f.QueryID != "" {
		parts = append(parts, "streaming query "+streamingQueryLabel(f.QueryName, f.QueryID))
	}
	if f.Start != 0 {
		parts = append(parts, fmt.Sprintf("%s–%s (%s)", fmtTime(f.Start), time.UnixMilli(f.End).UTC().Format("15:04:05"),
			fmtSeconds(float64(f.End-f.Start)/1e3)))
	}
	return strings.Join(parts, ", ")
}

// fmtNumbers prints a finding's numbers sorted by name, in human units
// where the name tells them (…Bytes, …Seconds, …Ms).
func fmtNumbers(m map[string]float64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		v := m[k]
		switch {
		case strings.HasSuffix(k, "Bytes"):
			fmt.Fprintf(&b, " %s=%s", k, fmtBytes(v))
		case strings.HasSuffix(k, "Seconds"):
			fmt.Fprintf(&b, " %s=%s", k, fmtSeconds(v))
		case strings.HasSuffix(k, "Ms"):
			fmt.Fprintf(&b, " %s=%s", k, fmtSeconds(v/1e3))
		default:
			fmt.Fprintf(&b, " %s=%s", k, human.Number(v))
		}
	}
	return b.String()
}

// maxTextProblems is how many analysis problems the text report lists.
const maxTextProblems = 10

func writeProblems(w io.Writer, r Report) {
	if r.ProblemCount <= 0 && len(r.Problems) == 0 {
		return
	}
	fmt.Fprintf(w, "\nAnalysis problems (%d)\n", max(r.ProblemCount, int64(len(r.Problems))))
	for _, p := range r.Problems[:min(len(r.Problems), maxTextProblems)] {
		fmt.Fprintf(w, "  %s\n", p)
	}
	if n := max(r.ProblemCount, int64(len(r.Problems))) - int64(min(len(r.Problems), maxTextProblems)); n > 0 {
		fmt.Fprintf(w, "  … and %d more\n", n)
	}
}
