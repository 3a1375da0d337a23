package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sparkglance/sparkglance/internal/report/reporttest"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// analyzeTotals is what analyze's text output says about one application.
type analyzeTotals struct {
	available, cpu float64 // core seconds, as printed (rounded: 1h32m, 23m30s, 8.6s)
	efficiency     string  // as printed: 46%, 3.7%
	executors      int
	duration       string // the run time, as printed: 6m57s
	energy         string // as printed: 0.076 Wh; "" without CPU time
}

var (
	totalsLine    = regexp.MustCompile(`core time available (\S+), task CPU (\S+) \(efficiency ([\d.]+%)\)`)
	executorsLine = regexp.MustCompile(`\nRead [\d,]+ lines?: ([\d,]+) executors?`)
	durationLine  = regexp.MustCompile(`\nSpark [^\n]*→ [^(\n]*\(([^)]+)\)`)
	energyLine    = regexp.MustCompile(`\nenergy (\S+ \S+) \(`)
)

func parseAnalyzeText(t *testing.T, out string) analyzeTotals {
	t.Helper()
	m, e, d := totalsLine.FindStringSubmatch(out), executorsLine.FindStringSubmatch(out), durationLine.FindStringSubmatch(out)
	if m == nil || e == nil || d == nil {
		t.Fatalf("analyze's text output lacks the totals, the run time or the executor count:\n%s", out)
	}
	seconds := func(s string) float64 {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("analyze printed %q, not a duration: %v", s, err)
		}
		return d.Seconds()
	}
	n, _ := strconv.Atoi(strings.ReplaceAll(e[1], ",", ""))
	totals := analyzeTotals{available: seconds(m[1]), cpu: seconds(m[2]), efficiency: m[3], executors: n, duration: d[1]}
	if en := energyLine.FindStringSubmatch(out); en != nil {
		totals.energy = en[1]
	}
	return totals
}

// headerKPIs is what the page's header shows.
type headerKPIs struct {
	Duration, Executors, Cores, Efficiency, Wasted, Energy string
	MaxCores                                               int        // the document's
	CoresLine                                              []*float64 // the chart's cores series
	Stepped                                                bool
}

const readHeader = `(() => { const v = id => { const e = document.querySelector("#kpi-" + id + " b"); return e ? e.textContent : ""; };
  const c = window.glance.state.charts[0];
  return { duration: v("duration"), executors: v("executors"), cores: v("cores"), efficiency: v("efficiency"), wasted: v("wasted"),
    energy: v("energy"), maxCores: window.glance.state.doc.maxCores,
    coresLine: c.data[c.data.length - 1], stepped: c.series[c.series.length - 1].label === "available cores" }; })()`

// leadingNumber is the number a KPI starts with ("46%", "1.0", "8 (8 live)").
func leadingNumber(t *testing.T, what, s string) float64 {
	t.Helper()
	m := regexp.MustCompile(`^[\d,]+(\.\d+)?`).FindString(strings.TrimSpace(s))
	v, err := strconv.ParseFloat(strings.ReplaceAll(m, ",", ""), 64)
	if err != nil {
		t.Fatalf("%s %q: no number", what, s)
	}
	return v
}

// The glance's header says what analyze's text says, figure for figure
// (one formatting rule, internal/human, in Go and in the page's script):
// run time, efficiency, energy and the executor count on every shared log;
// wasted core-hours from the same two totals; the cores KPI is the most
// cores at once (the document's maxCores), at least the peak of the cores
// line the first chart draws. The index of a report directory agrees.
func TestReportHeaderMatchesAnalyzeText(t *testing.T) {
	dir := t.TempDir()
	sim := filepath.Join(dir, "simulated")
	if code := quiet(t, func() int { return realMain([]string{"simulate", "--out", sim}) }); code != 0 {
		t.Fatalf("simulate exit %d", code)
	}
	logs := append([]string{sim}, sharedLogs(t)...)
	b := reporttest.New(t, 1300, 900, 5*time.Minute)
	fromText := map[string]analyzeTotals{}
	for i, log := range logs {
		stdout := captureStdout(t)
		code := realMain([]string{"analyze", log})
		text := stdout()
		if code != 0 && code != exitPartial {
			t.Fatalf("analyze %s: exit %d", log, code)
		}
		page := filepath.Join(dir, fmt.Sprintf("page%d.html", i))
		if code := quiet(t, func() int { return realMain([]string{"report", "-o", page, log}) }); code != 0 && code != exitPartial {
			t.Fatalf("report %s: exit %d", log, code)
		}
		b.Open(t, "file://"+page)
		var h headerKPIs
		b.Eval(t, readHeader, &h)
		hasCPU := !strings.Contains(text, "this log has no Executor CPU Time")
		want := parseAnalyzeText(t, text)
		fromText[filepath.Base(log)] = want
		t.Logf("%s: analyze says %+v; page header %q %q %q %q %q %q", filepath.Base(log), want, h.Duration, h.Executors, h.Cores, h.Efficiency, h.Wasted, h.Energy)

		if h.Duration != want.duration {
			t.Errorf("%s: header duration %q, analyze %q", log, h.Duration, want.duration)
		}
		if got := leadingNumber(t, "executors", h.Executors); int(got) != want.executors {
			t.Errorf("%s: header shows %v executors, analyze %d", log, got, want.executors)
		}
		if !hasCPU {
			if h.Efficiency != "n/a" || h.Wasted != "n/a" {
				t.Errorf("%s (no CPU time): efficiency %q and wasted %q, want n/a", log, h.Efficiency, h.Wasted)
			}
		} else {
			if h.Efficiency != want.efficiency {
				t.Errorf("%s: header efficiency %q, analyze %q", log, h.Efficiency, want.efficiency)
			}
			if h.Energy != want.energy {
				t.Errorf("%s: header energy %q, analyze %q", log, h.Energy, want.energy)
			}
			// analyze prints durations rounded to at most the minute
			// (1h32m), so each total is off by up to 30 s.
			wasted := (want.available - want.cpu) / 3600
			if got := leadingNumber(t, "wasted", h.Wasted); math.Abs(got-wasted) > 0.05+60.0/3600 {
				t.Errorf("%s: header wasted core-hours %q, analyze's available − task CPU = %.3f", log, h.Wasted, wasted)
			}
		}
		peak := 0.0
		for _, v := range h.CoresLine {
			if v != nil {
				peak = max(peak, *v)
			}
		}
		shown := h.Cores // "16", or on a live page "8 / max 16"
		if _, m, live := strings.Cut(shown, "max "); live {
			shown = m
		}
		if !h.Stepped || leadingNumber(t, "cores", shown) != float64(h.MaxCores) || float64(h.MaxCores) < peak-1e-9 || (h.MaxCores == 0) != (peak == 0) {
			t.Errorf("%s: cores KPI %q, maxCores %d, the chart's cores line peaks at %v (series found: %v)", log, h.Cores, h.MaxCores, peak, h.Stepped)
		}
		if errs := b.Errors(); len(errs) > 0 {
			t.Errorf("%s: page errors: %v", log, errs)
		}
	}

	// The index of all of them: the same run time, efficiency and wasted
	// core-hours, and the page's maximum of cores.
	out := filepath.Join(dir, "all")
	if code := quiet(t, func() int { return realMain(append([]string{"report", "-o", out}, logs...)) }); code != 0 && code != exitPartial {
		t.Fatalf("report exit %d", code)
	}
	if err := chromedp.Run(b.Ctx, chromedp.Navigate("file://"+filepath.Join(out, "index.html"))); err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	b.Eval(t, `[...document.querySelectorAll("#apps tbody tr:not(.ghead)")].map(r => [...r.cells].map(c => c.textContent.trim()).concat(r.querySelector("a").getAttribute("href")))`, &rows)
	if len(rows) < len(logs) {
		t.Fatalf("index has %d rows, want at least %d", len(rows), len(logs))
	}
	for _, r := range rows {
		// Find the log of this row from the page it links.
		var doc struct {
			Log              string `json:"log"`
			CPUTimeAvailable bool   `json:"cpuTimeAvailable"`
			MaxCores         int    `json:"maxCores"`
		}
		page, err := os.ReadFile(filepath.Join(out, r[len(r)-1]))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(between(string(page), `<script id="glance-doc" type="application/json">`, `</script>`)), &doc); err != nil {
			t.Fatalf("%s: embedded document: %v", r[len(r)-1], err)
		}
		want, ok := fromText[filepath.Base(doc.Log)]
		if !ok {
			continue // one of several applications in a log
		}
		if r[3] != want.duration || r[4] != strconv.Itoa(doc.MaxCores) {
			t.Errorf("index row %v: duration %s and cores %s, analyze %s and the page %d", r, r[3], r[4], want.duration, doc.MaxCores)
		}
		eff, wasted := r[5], r[6]
		if !doc.CPUTimeAvailable {
			if eff != "n/a" || wasted != "n/a" {
				t.Errorf("index row %v (no CPU time): want n/a", r)
			}
			continue
		}
		if eff != want.efficiency {
			t.Errorf("index row %v: efficiency %s, analyze %s", r, eff, want.efficiency)
		}
		if got := leadingNumber(t, "index wasted", wasted); math.Abs(got-(want.available-want.cpu)/3600) > 0.05+2.0/3600 {
			t.Errorf("index row %v: wasted %s, analyze's available − task CPU = %.3f", r, wasted, (want.available-want.cpu)/3600)
		}
	}
}

// sharedLogs are the shared event logs of one application each: every
// entry of spark-events but its README and the extra collections, and
// nds_q88 (whose text and page once disagreed by a second).
func sharedLogs(t *testing.T) []string {
	t.Helper()
	dir := testkit.Events(t)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var logs []string
	for _, e := range entries {
		if e.Name() != "README.md" && e.Name() != "extra" {
			logs = append(logs, filepath.Join(dir, e.Name()))
		}
	}
	return append(logs, testkit.Events(t, "extra", "spark-rapids-tools", "spark-events-qualification", "nds_q88_photon_db_13_3.zstd"))
}

func between(s, start, end string) string {
	i := strings.Index(s, start)
	if i < 0 {
		return ""
	}
	s = s[i+len(start):]
	if j := strings.Index(s, end); j >= 0 {
		return s[:j]
	}
	return ""
}

// report DIR over a nightly job's runs writes the comparison page of the
// regressed run with its baseline run, linked from the grouped index, and
// no other comparison.
func TestReportDirComparesRegressedRun(t *testing.T) {
	dir := t.TempDir()
	logs, out := filepath.Join(dir, "logs"), filepath.Join(dir, "out")
	if code := quiet(t, func() int { return realMain([]string{"simulate", "--workload-runs", "10", "--out", logs}) }); code != 0 {
		t.Fatalf("simulate exit %d", code)
	}
	if code := quiet(t, func() int { return realMain([]string{"report", "-o", out, logs}) }); code != 0 {
		t.Fatalf("report exit %d", code)
	}
	compares, err := filepath.Glob(filepath.Join(out, "compare-*.html"))
	if err != nil || len(compares) != 1 || !strings.Contains(filepath.Base(compares[0]), "-0008-vs-app-") {
		t.Fatalf("comparison pages %v (%v), want the regressed run's only", compares, err)
	}
	page, err := os.ReadFile(compares[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `"baseDoc"`) || !strings.Contains(string(page), `"newDoc"`) {
		t.Error("the comparison page lacks the runs' documents")
	}
	index, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(index), `<a href="`+filepath.Base(compares[0])+`">compare with its baseline run</a>`) {
		t.Error("the index does not link the comparison")
	}
}
