package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/alecthomas/kingpin/v2"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/appdoc"
	"github.com/sparkglance/sparkglance/internal/human"
	"github.com/sparkglance/sparkglance/internal/report"
	"github.com/sparkglance/sparkglance/internal/workload"
)

// compareCommand puts two runs side by side.
type compareCommand struct {
	analyze   *analyzeCommand // the analysis flags, exactly as analyze's
	base, new *string
	out       *string
	outGiven  bool
}

func newCompareCommand(cmd *kingpin.CmdClause) *compareCommand {
	c := &compareCommand{
		base: cmd.Arg("base", "The base run: one application's event log (any input analyze takes).").Required().String(),
		new: cmd.Arg("new", "The new run: an event log, or a directory of logs whose latest run of the base run's workload is taken.").
			Required().String(),
	}
	c.analyze = newAnalysisFlags(cmd)
	c.out = cmd.Flag("output", `Write the HTML comparison page to this .html file, or "-" for stdout (default: text, or --json).`).
		Short('o').IsSetByUser(&c.outGiven).String()
	return c
}

// compareDocument is the JSON `compare --json` writes: the workload, both
// runs' summaries and the comparison.
type compareDocument struct {
	Workload string `json:"workload"`
	workload.Comparison
}

func (c *compareCommand) run(ctx context.Context) error {
	defer c.analyze.release()
	base, nw, status, err := c.read(ctx)
	if err != nil {
		return err
	}
	bs, ns := workload.Summarize(&base.Report), workload.Summarize(&nw.Report)
	doc := compareDocument{Workload: bs.Workload, Comparison: workload.Compare(&bs, &ns)}
	out := c.analyze.out
	switch {
	case c.outGiven:
		err = c.writePage(doc, base, nw)
	case *c.analyze.json:
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		err = enc.Encode(doc)
	default:
		// Names from the logs (applications, stages, properties) reach the
		// terminal escaped, as analyze's text does.
		var text bytes.Buffer
		writeComparison(&text, &doc)
		_, err = io.WriteString(out, human.SafeLines(text.String()))
	}
	return cmp.Or(err, status)
}

// read reads the base run and the new one (the latest of the base run's
// workload when NEW holds several).
func (c *compareCommand) read(ctx context.Context) (base, nw appdoc.Doc, status, err error) {
	*c.analyze.paths = []string{*c.base}
	docs, status, err := c.analyze.readAll(ctx, "compare", nil)
	if err != nil || len(docs) == 0 {
		return base, nw, nil, cmp.Or(err, status)
	}
	if len(docs) != 1 {
		return base, nw, nil, usageErrorf("%s holds %d application attempts: BASE must be one run", *c.base, len(docs))
	}
	base = docs[0]
	*c.analyze.paths = []string{*c.new}
	docs, status2, err := c.analyze.readAll(ctx, "compare", nil)
	if err != nil || len(docs) == 0 {
		return base, nw, nil, cmp.Or(err, status2)
	}
	var candidates []appdoc.Doc
	for _, d := range docs {
		if d.Workload == base.Workload && !(d.AppID == base.AppID && d.AttemptID == base.AttemptID) {
			candidates = append(candidates, d)
		}
	}
	switch {
	case len(docs) == 1:
		nw = docs[0] // one run given: compared whatever its workload
	case len(candidates) == 0:
		var keys []string
		for _, d := range docs {
			if !slices.Contains(keys, d.Workload) {
				keys = append(keys, d.Workload)
			}
		}
		return base, nw, nil, fmt.Errorf("%s holds no other run of workload %q (it holds %q)", *c.new, base.Workload, keys)
	default:
		nw = slices.MaxFunc(candidates, func(a, b appdoc.Doc) int { return cmp.Compare(a.Start, b.Start) })
	}
	return base, nw, cmp.Or(status, status2), nil
}

// writePage writes the self-contained comparison page.
func (c *compareCommand) writePage(doc compareDocument, base, nw appdoc.Doc) error {
	data, err := json.Marshal(struct {
		Comparison compareDocument `json:"comparison"`
		Base       appdoc.Doc      `json:"baseDoc"`
		New        appdoc.Doc      `json:"newDoc"`
	}{doc, base, nw})
	if err != nil {
		return err
	}
	var page bytes.Buffer
	if err := report.WriteCompare(&page, report.ComparePage{Doc: data,
		Title: fmt.Sprintf("%s: %s vs %s", doc.Workload, doc.Base.ID(), doc.New.ID())}); err != nil {
		return err
	}
	if out := *c.out; out != "" && out != "-" { // kingpin hands "-o -" over as ""
		return writeFile(out, page.Bytes())
	}
	_, err = c.analyze.out.Write(page.Bytes())
	return err
}

// writeComparison prints the comparison as text.
func writeComparison(w io.Writer, d *compareDocument) {
	b, n := d.Base, d.New
	fmt.Fprintf(w, "workload %s\n", d.Workload)
	fmt.Fprintf(w, "base  %s  %s  started %s\n", b.ID(), b.AppName, fmtEpoch(b.Start))
	fmt.Fprintf(w, "new   %s  %s  started %s\n", n.ID(), n.AppName, fmtEpoch(n.Start))
	fmt.Fprintf(w, "\n  %-18s %14s %14s %14s %8s\n", "measure", "base", "new", "delta", "ratio")
	for _, m := range d.Measures {
		ratio := "-"
		if m.Ratio != 0 {
			ratio = fmt.Sprintf("%.2f×", m.Ratio)
		}
		fmt.Fprintf(w, "  %-18s %14s %14s %14s %8s\n", m.Measure.Title(), fmtMeasure(m.Measure, m.Base, b.Currency),
			fmtMeasure(m.Measure, m.New, n.Currency), signed(fmtMeasure(m.Measure, m.Delta, n.Currency), m.Delta), ratio)
	}
	if d.SparkVersion != "" || len(d.ExecutorChanges) > 0 {
		fmt.Fprintln(w)
		if d.SparkVersion != "" {
			fmt.Fprintf(w, "Spark %s\n", d.SparkVersion)
		}
		if len(d.ExecutorChanges) > 0 {
			fmt.Fprintf(w, "Executors: %s\n", strings.Join(d.ExecutorChanges, "; "))
		}
	}
	fmt.Fprintf(w, "\nStages matched: %d (biggest contributors to the wall-time difference first)\n", len(d.Stages))
	fmt.Fprintf(w, "  %-44s %9s %9s %10s %7s %13s %21s %21s\n", "stage", "base", "new", "delta", "share", "tasks", "spill", "shuffle read/write")
	for _, s := range d.Stages {
		fmt.Fprintf(w, "  %-44s %9s %9s %10s %7s %13s %21s %21s\n", truncate(s.Key, 44), fmtSecs(float64(s.Base.WallMs)/1e3), fmtSecs(float64(s.New.WallMs)/1e3),
			signed(fmtSecs(float64(abs(s.DeltaMs))/1e3), float64(s.DeltaMs)), fmt.Sprintf("%.0f%%", math.Round(100*s.Share)+0), // +0: no "-0%"
			fmt.Sprintf("%d→%d", s.Base.Tasks, s.New.Tasks), fmtBytes(float64(s.Base.SpillBytes))+"→"+fmtBytes(float64(s.New.SpillBytes)),
			fmtBytes(float64(s.New.ShuffleRead))+"/"+fmtBytes(float64(s.New.ShuffleWrite)))
	}
	for _, only := range []struct {
		title  string
		stages []workload.StageSummary
	}{{"Only in base", d.OnlyBase}, {"Only in new", d.OnlyNew}} {
		if len(only.stages) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s: %d stage(s)\n", only.title, len(only.stages))
		for _, s := range only.stages {
			fmt.Fprintf(w, "  %-44s %9s  %d tasks\n", truncate(s.Key, 44), fmtSecs(float64(s.WallMs)/1e3), s.Tasks)
		}
	}
	fmt.Fprintf(w, "\nProperties changed: %d\n", len(d.Properties))
	for _, p := range d.Properties {
		fmt.Fprintf(w, "  %s\n", p)
	}
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// signed puts the sign of x before text (which renders |x| or x).
func signed(text string, x float64) string {
	text = strings.TrimPrefix(text, "-")
	if x < 0 {
		return "-" + text
	}
	return "+" + text
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// fmtMeasure renders a value of m in its unit.
func fmtMeasure(m workload.Measure, v float64, currency string) string {
	switch m.Unit() {
	case "seconds":
		return fmtSecs(max(v, -v))
	case "bytes":
		return fmtBytes(max(v, -v))
	case "ratio":
		return fmt.Sprintf("%.1f%%", 100*v)
	case "currency":
		return analysis.FormatMoney(v, currency)
	case "watt-hours":
		return human.WattHours(v)
	}
	return human.Number(v)
}

// fmtBytes renders bytes in binary units.
func fmtBytes(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	i := 0
	for ; b >= 1024 && i < len(units)-1; i++ {
		b /= 1024
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", b)
	}
	return fmt.Sprintf("%.1f %s", b, units[i])
}
