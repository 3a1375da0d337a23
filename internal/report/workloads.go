package report

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/sparkglance/sparkglance/internal/human"
	"github.com/sparkglance/sparkglance/internal/workload"
	"github.com/sparkglance/sparkglance/third_party/uplot"
)

//go:embed assets/workloads.html assets/workload.html assets/workload.js
var workloadAssets embed.FS

var (
	workloadFuncs = template.FuncMap{
		"duration": func(ms int64) string { return human.Millis(ms) }, "percent": human.Percent,
		"sparkline": sparkline, "measure": func(s string) string { return strings.ReplaceAll(s, "_", " ") },
		"plural": func(n int, noun string) string { return human.Plural(n, noun) },
		"ratio":  func(f float64) string { return fmt.Sprintf("%.2f×", f) },
	}
	workloadsTmpl = template.Must(template.New("workloads.html").Funcs(workloadFuncs).ParseFS(workloadAssets, "assets/workloads.html"))
	workloadTmpl  = template.Must(template.New("workload.html").Funcs(workloadFuncs).ParseFS(workloadAssets, "assets/workload.html"))
	workloadJS    = mustReadFS(workloadAssets, "assets/workload.js")
)

func mustReadFS(fs embed.FS, name string) string {
	b, err := fs.ReadFile(name)
	if err != nil {
		panic(err) // embedded at build time: cannot be missing
	}
	return string(b)
}

// TrendRuns is how many of a workload's latest runs the sparklines show.
const TrendRuns = 20

// WorkloadRun is one run of a workload as the workload pages show it,
// judged against the runs of its workload that started before it.
type WorkloadRun struct {
	AppID     string `json:"appId"`
	AttemptID string `json:"attemptId,omitempty"`
	AppName   string `json:"appName"`
	Start     int64  `json:"start"` // epoch ms
	End       int64  `json:"end"`
	Finished  bool   `json:"finished"`
	// Status is running, or how the finished run compared with its
	// baseline: ok, regressed, explained_by_input, no_baseline.
	Status string          `json:"status"`
	Values workload.Values `json:"values"`
	// Baseline is the baseline's medians (nil before there is one);
	// BaselineRun the baseline run closest to the median, which the
	// comparison is against.
	Baseline    *workload.Values   `json:"baseline,omitempty"`
	BaselineRun string             `json:"baselineRun,omitempty"`
	Ratios      map[string]float64 `json:"ratios,omitempty"`
	Regressed   []string           `json:"regressed"`
	Why         []string           `json:"why"`
	// Page links the run's glance page, Compare its comparison with the
	// baseline run (empty where none is available).
	Page    string `json:"page,omitempty"`
	Compare string `json:"compare,omitempty"`
}

// DurationMs is the run's wall time so far.
func (r WorkloadRun) DurationMs() int64 { return r.End - r.Start }

// Value is the run's value of the named measure (NaN when unknown).
func (r WorkloadRun) Value(name string) float64 {
	for _, m := range workload.Measures() {
		if m.String() == name {
			if v, ok := r.Values.Get(m); ok {
				return v
			}
		}
	}
	return math.NaN()
}

// Workload is one workload's runs, oldest first, as its page and the
// /api/v1/workloads/{key} document show them.
type Workload struct {
	Key      string `json:"workload"`
	Currency string `json:"currency,omitempty"`
	// Runs are the runs kept, oldest first.
	Runs []WorkloadRun `json:"runs"`
	// Status is the latest run's status; Regressed the measures on which
	// the latest finished run regressed (what the alert follows).
	Status    string   `json:"status"`
	Regressed []string `json:"regressed"`
	Page      string   `json:"page,omitempty"`
}

// Latest is the newest run.
func (w *Workload) Latest() WorkloadRun { return w.Runs[len(w.Runs)-1] }

// Trend is the wall time (seconds) and efficiency of the latest
// TrendRuns finished runs, oldest first.
func (w *Workload) Trend() (wall, eff []float64) {
	for _, r := range w.Runs {
		if !r.Finished {
			continue
		}
		wall = append(wall, float64(r.DurationMs())/1e3)
		eff = append(eff, r.Value(workload.Efficiency.String()))
	}
	if n := len(wall) - TrendRuns; n > 0 {
		wall, eff = wall[n:], eff[n:]
	}
	return wall, eff
}

// TrendWallTime and TrendEfficiency are the two halves of Trend.
func (w *Workload) TrendWallTime() []float64 { wall, _ := w.Trend(); return wall }

// TrendEfficiency is the efficiency half of Trend.
func (w *Workload) TrendEfficiency() []float64 { _, eff := w.Trend(); return eff }

// WorkloadLinks make the links of a workload's runs; any may be nil.
type WorkloadLinks struct {
	Workload func(key string) string
	// Page is the run's glance page.
	Page func(s *workload.Summary) string
	// Compare is the run's comparison with the baseline's closest run
	// (base is that run's ID).
	Compare func(s *workload.Summary, base string) string
}

// BuildWorkload judges every run of the workload key in h. ok is false for
// an unknown workload.
func BuildWorkload(h *workload.History, key string, links WorkloadLinks) (Workload, bool) {
	runs := h.Runs(key)
	if len(runs) == 0 {
		return Workload{}, false
	}
	out := Workload{Key: key, Runs: make([]WorkloadRun, 0, len(runs)), Regressed: []string{}}
	if links.Workload != nil {
		out.Page = links.Workload(key)
	}
	for i := range runs {
		s := &runs[i]
		res, ok := h.Evaluate(key, s.AppID, s.AttemptID)
		if !ok {
			continue
		}
		if s.Currency != "" {
			out.Currency = s.Currency
		}
		out.Runs = append(out.Runs, runOf(s, &res, links))
	}
	if len(out.Runs) == 0 {
		return Workload{}, false
	}
	out.Status = out.Latest().Status
	for i := len(out.Runs) - 1; i >= 0; i-- {
		if out.Runs[i].Finished {
			out.Regressed = out.Runs[i].Regressed
			break
		}
	}
	return out, true
}

func runOf(s *workload.Summary, res *workload.Result, links WorkloadLinks) WorkloadRun {
	r := WorkloadRun{
		AppID: s.AppID, AttemptID: s.AttemptID, AppName: s.AppName, Start: s.Start, End: s.End, Finished: s.Finished,
		Status: res.StatusLabel(), Values: s.Values, Regressed: []string{}, Why: res.Why,
	}
	if !s.Finished {
		r.Status = "running"
	}
	if r.Why == nil {
		r.Why = []string{}
	}
	if b := res.Baseline; b != nil {
		r.Baseline, r.BaselineRun = &b.Values, b.Closest
		r.Ratios = map[string]float64{}
		for _, c := range res.Ratios {
			r.Ratios[c.Name] = c.Ratio
		}
		for _, c := range res.Regressed {
			r.Regressed = append(r.Regressed, c.Name)
		}
		if links.Compare != nil && b.Closest != "" && b.Closest != s.ID() {
			r.Compare = links.Compare(s, b.Closest)
		}
	}
	if links.Page != nil {
		r.Page = links.Page(s)
	}
	return r
}

// BuildWorkloads judges every workload of h, the ones whose latest
// finished run regressed first, then by key.
func BuildWorkloads(h *workload.History, links WorkloadLinks) []Workload {
	var out []Workload
	for _, k := range h.Workloads() {
		if w, ok := BuildWorkload(h, k, links); ok {
			out = append(out, w)
		}
	}
	slices.SortStableFunc(out, func(a, b Workload) int {
		if ra, rb := len(a.Regressed) > 0, len(b.Regressed) > 0; ra != rb {
			if ra {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Key, b.Key)
	})
	return out
}

// WorkloadsIndex is the page listing workloads.
type WorkloadsIndex struct {
	Title     string
	Workloads []Workload
	// Live reloads the page now and then (serve).
	Live bool
	// AppsURL, when set, links the list of applications.
	AppsURL string
}

// WriteWorkloads writes the page listing workloads: latest run, its
// status, runs seen, the trend of wall time and efficiency, the measures
// regressed.
func WriteWorkloads(w io.Writer, ix WorkloadsIndex) error {
	return workloadsTmpl.Execute(w, map[string]any{
		"Title": ix.Title, "Workloads": ix.Workloads, "Live": ix.Live, "AppsURL": ix.AppsURL,
		// The index's table sorting, under the index's policy.
		"CSS": template.CSS(glanceCSS), "JS": template.JS(indexJS), "CSP": indexMetaCSP,
	})
}

// WorkloadPage is one workload's page.
type WorkloadPage struct {
	Workload Workload
	// IndexURL links the list of workloads.
	IndexURL string
	// Live reloads the page now and then (serve).
	Live bool
}

// WriteWorkload writes the self-contained page of one workload: its run
// history as charts (wall time, efficiency, core-hours, cost per run) and
// a table of its runs linking their pages and comparisons.
func WriteWorkload(w io.Writer, p WorkloadPage) error {
	b, err := json.Marshal(p.Workload)
	if err != nil {
		return err
	}
	var doc bytes.Buffer
	json.HTMLEscape(&doc, b)
	return workloadTmpl.Execute(w, map[string]any{
		"W": p.Workload, "Doc": template.JS(doc.String()), "IndexURL": p.IndexURL, "Live": p.Live,
		"UPlotJS": template.JS(uplot.JS), "UPlotCSS": template.CSS(uplot.CSS),
		"JS": template.JS(workloadJS), "CSS": template.CSS(glanceCSS), "CSP": workloadMetaCSP,
	})
}

// sparkline draws values (oldest first) as a small inline SVG polyline;
// NaN values are left out, and fewer than two values draw a dash.
func sparkline(values []float64, color, title string) template.HTML {
	const w, h = 120.0, 24.0
	lo, hi, n := math.Inf(1), math.Inf(-1), 0
	for _, v := range values {
		if !math.IsNaN(v) {
			lo, hi, n = min(lo, v), max(hi, v), n+1
		}
	}
	if n < 2 { // no line to draw
		return template.HTML(`<span class="muted">–</span>`)
	}
	var pts strings.Builder
	for i, v := range values {
		if math.IsNaN(v) {
			continue
		}
		x := w / 2
		if len(values) > 1 {
			x = float64(i) * w / float64(len(values)-1)
		}
		y := h / 2
		if hi > lo {
			y = 2 + (h-4)*(hi-v)/(hi-lo)
		}
		fmt.Fprintf(&pts, "%.1f,%.1f ", x, y)
	}
	return template.HTML(fmt.Sprintf( //nolint:gosec // numbers and an escaped title only
		`<svg class="spark" width="%g" height="%g" viewBox="0 0 %g %g" role="img"><title>%s</title><polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/></svg>`,
		w, h, w, h, template.HTMLEscapeString(title), template.HTMLEscapeString(color), strings.TrimSpace(pts.String())))
}

// indexGroup is one workload of a grouped index: its trend and marks, and
// its runs' rows, newest first, each with its status.
type indexGroup struct {
	Workload *Workload // nil for the runs of no workload
	Rows     []indexRow
}

type indexRow struct {
	Summary
	Status    string
	Regressed []string
	// Compare is the file of the regressed run's comparison with its
	// baseline run (CompareFileName), when both pages are in the index.
	Compare string
}

// CompareFileName is the file of run's comparison page with base in a
// report directory.
func CompareFileName(run, base *Summary) string {
	return "compare-" + strings.TrimSuffix(run.Href, ".html") + "-vs-" + base.Href
}

// RegressedPair is a regressed run of a report directory and its
// baseline's run closest to the median: the pair report DIR writes the
// comparison page of.
type RegressedPair struct {
	Workload  string
	Base, New Summary
	File      string // CompareFileName
}

// RegressedPairs lists the regressed runs among rows (as the grouped index
// judges them) with their baseline run, both pages in rows.
func RegressedPairs(rows []Summary) []RegressedPair {
	var out []RegressedPair
	for _, g := range groupByWorkload(rows) {
		for _, r := range g.Rows {
			if r.Compare == "" {
				continue
			}
			base, _ := baselineRow(rows, g.Workload, r.Summary)
			out = append(out, RegressedPair{Workload: g.Workload.Key, Base: base, New: r.Summary, File: r.Compare})
		}
	}
	return out
}

// baselineRow is the row of the baseline run run was judged against.
func baselineRow(rows []Summary, w *Workload, run Summary) (Summary, bool) {
	if w == nil || run.Run == nil {
		return Summary{}, false
	}
	var closest string
	for _, r := range w.Runs {
		if r.AppID == run.AppID && r.AttemptID == run.AttemptID {
			closest = r.BaselineRun
		}
	}
	for _, b := range rows {
		if b.Run != nil && b.Run.Workload == w.Key && b.Run.ID() == closest && closest != "" {
			return b, true
		}
	}
	return Summary{}, false
}

// groupByWorkload groups rows by their run's workload, judging each of a
// workload's latest runs (workload.DefaultMaxRuns) against the runs before
// it in rows, the older ones shown unjudged: the regressed workloads first,
// then by key; rows without a workload last.
func groupByWorkload(rows []Summary) []indexGroup {
	h := workload.NewHistory(workload.HistoryOptions{MaxWorkloads: len(rows) + 1})
	byRun := map[string][]int{} // workload and run → rows (two logs of one attempt: both)
	byWorkload := map[string][]int{}
	var none []indexRow
	for i, r := range rows {
		if r.Run == nil || r.Run.Workload == "" {
			none = append(none, indexRow{Summary: r})
			continue
		}
		h.Add(*r.Run)
		k := r.Run.Workload + "\x00" + r.Run.ID()
		byRun[k] = append(byRun[k], i)
		byWorkload[r.Run.Workload] = append(byWorkload[r.Run.Workload], i)
	}
	page := func(s *workload.Summary) string {
		if is := byRun[s.Workload+"\x00"+s.ID()]; len(is) > 0 {
			return rows[is[0]].Href
		}
		return ""
	}
	var out []indexGroup
	for _, w := range BuildWorkloads(h, WorkloadLinks{Page: page}) {
		g := indexGroup{Workload: &w}
		shown := map[int]bool{}
		for i := len(w.Runs) - 1; i >= 0; i-- {
			run := w.Runs[i]
			id := run.AppID
			if run.AttemptID != "" {
				id += "/" + run.AttemptID
			}
			for _, ri := range byRun[w.Key+"\x00"+id] {
				row := indexRow{Summary: rows[ri], Status: run.Status, Regressed: run.Regressed}
				if run.Status == "regressed" {
					if b, ok := baselineRow(rows, &w, rows[ri]); ok && b.Href != "" && row.Href != "" {
						row.Compare = CompareFileName(&row.Summary, &b)
					}
				}
				g.Rows = append(g.Rows, row)
				shown[ri] = true
			}
		}
		for _, ri := range slices.Backward(byWorkload[w.Key]) { // older than the runs judged
			if !shown[ri] {
				g.Rows = append(g.Rows, indexRow{Summary: rows[ri]})
			}
		}
		out = append(out, g)
	}
	if len(none) > 0 {
		out = append(out, indexGroup{Rows: none})
	}
	return out
}
