// Package report renders "the glance": one self-contained HTML page per
// Spark application attempt with the three synced charts (core time by
// use, spill per executor, stage timeline), the findings and the stage,
// executor and SQL tables, plus an index of applications, the recurring
// workloads' pages and the comparison of two runs.
//
// The page carries the application's analysis document (the JSON `analyze
// --json` writes) and draws everything from it in the browser with its
// script, assets/glance.js, and the embedded uPlot (third_party/uplot), so
// a page is one file that needs no network when it is viewed. The live
// pages of `serve` are the same page told to poll the document's URL.
package report

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/human"
	"github.com/sparkglance/sparkglance/internal/workload"
	"github.com/sparkglance/sparkglance/third_party/uplot"
)

//go:embed assets/page.html assets/index.html assets/index.js assets/glance.js assets/glance.css assets/compare.html assets/compare.js
var assets embed.FS

var (
	pageTmpl  = template.Must(template.New("page.html").ParseFS(assets, "assets/page.html"))
	indexTmpl = template.Must(template.New("index.html").Funcs(template.FuncMap{
		// The page's units (internal/human, as glance.js).
		"duration": func(ms int64) string { return human.Millis(ms) }, "percent": human.Percent,
		"fixed1":    func(f float64) string { return human.Decimal(f, 1) },
		"count":     human.Count[int],
		"plural":    func(n int, noun string) string { return human.Plural(n, noun) },
		"sparkline": sparkline, "measure": func(s string) string { return strings.ReplaceAll(s, "_", " ") },
		"money": analysis.FormatMoney,
	}).ParseFS(assets, "assets/index.html"))
	compareTmpl = template.Must(template.New("compare.html").ParseFS(assets, "assets/compare.html"))
	compareJS   = mustRead("assets/compare.js")
	glanceJS    = mustRead("assets/glance.js")
	glanceCSS   = mustRead("assets/glance.css")
	indexJS     = mustRead("assets/index.js")
)

func mustRead(name string) string {
	b, err := assets.ReadFile(name)
	if err != nil {
		panic(err) // embedded at build time: cannot be missing
	}
	return string(b)
}

// Page is what one application's page is built from.
type Page struct {
	// Doc is the application's analysis document in JSON (an object with
	// at least the fields of analysis.Report).
	Doc []byte
	// LiveURL, when set, makes the page poll that URL for a fresh document
	// every few seconds (the live pages of serve).
	LiveURL string
	// IndexURL, when set, is linked from the header ("all applications").
	IndexURL string
}

// WritePage writes the self-contained HTML page of one application.
func WritePage(w io.Writer, p Page) error {
	p.Doc = TruncateLongStrings(p.Doc, MaxDisplayString)
	head, err := readHead(p.Doc)
	if err != nil {
		return fmt.Errorf("report: the application document is not a JSON object: %w", err)
	}
	// Inside <script> only "</" and "<!--" matter; HTMLEscape turns every
	// <, > and & within JSON strings into \u escapes, which JSON.parse reads
	// back unchanged.
	var doc bytes.Buffer
	json.HTMLEscape(&doc, bytes.TrimSpace(p.Doc))
	title := strings.TrimSpace(head.AppName + " " + head.AppID)
	if title == "" {
		title = "Spark application"
	}
	return pageTmpl.Execute(w, map[string]any{
		"Title":    title,
		"Doc":      template.JS(doc.String()),
		"LiveURL":  p.LiveURL,
		"IndexURL": p.IndexURL,
		"UPlotJS":  template.JS(uplot.JS),
		"UPlotCSS": template.CSS(uplot.CSS),
		"JS":       template.JS(glanceJS),
		"CSS":      template.CSS(glanceCSS),
		"CSP":      pageMetaCSP,
	})
}

type docHead struct{ AppID, AppName string }

// readHead reads the document's top-level "appId" and "appName", which an
// analysis document holds first: it stops once both are read rather than
// parsing a document of many megabytes for its title. The page's script
// parses the whole document anyway.
func readHead(doc []byte) (docHead, error) {
	var h docHead
	dec := json.NewDecoder(bytes.NewReader(doc))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		if err == nil {
			err = fmt.Errorf("found %v", t)
		}
		return h, err
	}
	var gotID, gotName bool
	for dec.More() && !(gotID && gotName) {
		t, err := dec.Token()
		if err != nil {
			return h, err
		}
		key, _ := t.(string)
		switch key {
		case "appId":
			err, gotID = dec.Decode(&h.AppID), true
		case "appName":
			err, gotName = dec.Decode(&h.AppName), true
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return h, fmt.Errorf("key %q: %w", key, err)
		}
	}
	return h, nil
}

// Summary is one application attempt's row in an index.
type Summary struct {
	AppID, AttemptID, AppName string
	Start, End                int64 // epoch ms
	Live                      bool  // no ApplicationEnd yet
	// MaxCores is the most cores available at once.
	MaxCores int
	// Efficiency is task CPU time over the available core time; HasCPU is
	// false for logs without Executor CPU Time, where it cannot be measured.
	Efficiency float64
	HasCPU     bool
	// WastedCoreHours is the available core time not spent on task CPU
	// (what the fleet dashboard and its recording rule count as wasted);
	// like Efficiency it needs HasCPU.
	WastedCoreHours float64
	Findings        int
	Href            string
	// Workload is the run's workload key; Cost and WastedCost are in
	// Currency (empty when cost is off; WastedCost needs HasCPU).
	Workload         string
	Cost, WastedCost float64
	Currency         string
	// Run is the run's workload summary (a few kilobytes, never the
	// analysis), by which an index groups runs by workload.
	Run *workload.Summary
}

// DurationMs is the application's run time so far.
func (s Summary) DurationMs() int64 { return s.End - s.Start }

// Summarize computes an index row from an analysis.
func Summarize(r *analysis.Report) Summary {
	s := Summary{
		AppID: r.AppID, AttemptID: r.AttemptID, AppName: r.AppName,
		Start: r.Start, End: r.End, Live: r.Live, HasCPU: r.CPUTimeAvailable,
		Findings: len(r.Findings), MaxCores: r.MaxCores, Workload: r.Workload,
	}
	if c := r.Cost; c != nil {
		s.Cost, s.WastedCost, s.Currency = c.Total, c.Wasted, c.Model.Currency
	}
	if r.Workload != "" {
		run := workload.Summarize(r)
		s.Run = &run
	}
	t := r.Totals
	if t.AvailableCoreSecs > 0 {
		s.Efficiency = t.CPUSeconds / t.AvailableCoreSecs
		s.WastedCoreHours = max(0, t.AvailableCoreSecs-t.CPUSeconds) / 3600
	}
	return s
}

// docScriptOpen opens the script element a page carries its document in
// (assets/page.html).
const docScriptOpen = `<script id="glance-doc" type="application/json">`

// ErrNotPage is returned by SummarizePage for HTML that is not a glance
// page (no embedded application document).
var ErrNotPage = errors.New("not a sparkglance page (no embedded application document)")

// SummarizePage computes the index row of a page written by WritePage from
// the document it embeds, so that an index can list pages written by
// earlier runs. Href is left empty.
func SummarizePage(page []byte) (Summary, error) {
	_, rest, ok := bytes.Cut(page, []byte(docScriptOpen))
	if !ok {
		return Summary{}, ErrNotPage
	}
	// WritePage escapes every '<' inside the document, so the first "</"
	// ends it.
	doc, _, ok := bytes.Cut(rest, []byte("</script>"))
	if !ok {
		return Summary{}, errors.New("the page's application document is not closed (a truncated page?)")
	}
	var r analysis.Report
	if err := json.Unmarshal(doc, &r); err != nil {
		return Summary{}, fmt.Errorf("the page's application document: %w", err)
	}
	return Summarize(&r), nil
}

// FileName is the page's file name in a report directory: the application
// id and attempt, with anything but letters, digits, '-', '_' and '.'
// replaced, so that an id never names a path.
func FileName(appID, attemptID string) string {
	name := appID
	if name == "" {
		name = "application"
	}
	if attemptID != "" {
		name += "_" + attemptID
	}
	name = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, name)
	return strings.TrimLeft(name, ".") + ".html"
}

// Index is an index page of applications.
type Index struct {
	Title string
	Apps  []Summary
	// Live adds a note that the list refreshes, and reloads it now and then.
	Live bool
	// WorkloadsURL, when set, links the page of recurring workloads.
	WorkloadsURL string
	// GroupByWorkload groups the rows by workload (report DIR): each
	// workload's runs under a row with its trend and regression marks,
	// the regressed workloads first, each run with its status.
	GroupByWorkload bool
}

// WriteIndex writes the index page: one row per application, linked.
func WriteIndex(w io.Writer, ix Index) error {
	// One table body per workload, or one for every run in the order given.
	var groups []indexGroup
	switch {
	case ix.GroupByWorkload:
		groups = groupByWorkload(ix.Apps)
	case len(ix.Apps) > 0:
		rows := make([]indexRow, len(ix.Apps))
		for i, a := range ix.Apps {
			rows[i] = indexRow{Summary: a}
		}
		groups = []indexGroup{{Rows: rows}}
	}
	return indexTmpl.Execute(w, map[string]any{
		"Title": ix.Title,
		"Apps":  ix.Apps,
		"Live":  ix.Live,
		"CSS":   template.CSS(glanceCSS),
		"JS":    template.JS(indexJS),
		"CSP":   indexMetaCSP,

		"WorkloadsURL": ix.WorkloadsURL,
		"Groups":       groups,
		"Grouped":      ix.GroupByWorkload,
	})
}
