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
	efficiency     float64 // percent, as printed (whole percent)
	executors      int
}

var (
	totalsLine    = regexp.MustCompile(`core time available (\S+), task CPU (\S+) \(efficiency (\d+)%\)`)
	executorsLine = regexp.MustCompile(`\nRead \d+ lines: (\d+) executors`)
)

func parseAnalyzeText(t *testing.T, out string) analyzeTotals {
	t.Helper()
	m, e := totalsLine.FindStringSubmatch(out), executorsLine.FindStringSubmatch(out)
	if m == nil || e == nil {
		t.Fatalf("analyze's text output lacks the totals or the executor count:\n%s", out)
	}
	seconds := func(s string) float64 {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("analyze printed %q, not a duration: %v", s, err)
		}
		return d.Seconds()
	}
	eff, _ := strconv.ParseFloat(m[3], 64)
	n, _ := strconv.Atoi(e[1])
	return analyzeTotals{available: seconds(m[1]), cpu: seconds(m[2]), efficiency: eff, executors: n}
}

// headerKPIs is what the page's header shows.
type headerKPIs struct {
	Executors, Cores, Efficiency, Wasted string
	CoresLine                            []*float64 // the chart's cores series
	Stepped                              bool
}

const readHeader = `(() => { const v = id => { const e = document.querySelector("#kpi-" + id + " b"); return e ? e.textContent : ""; };
  const c = window.glance.state.charts[0];
  return { executors: v("executors"), cores: v("cores"), efficiency: v("efficiency"), wasted: v("wasted"),
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

// The glance's header says what analyze's text says: efficiency, wasted
// core-hours (available core time minus task CPU, from the same two
// totals) and the executor count; the cores KPI is the peak of the cores
// line the first chart draws. The index of a report directory agrees.
func TestReportHeaderMatchesAnalyzeText(t *testing.T) {
	dir := t.TempDir()
	sim := filepath.Join(dir, "simulated")
	if code := quiet(t, func() int { return realMain([]string{"simulate", "--out", sim}) }); code != 0 {
		t.Fatalf("simulate exit %d", code)
	}
	logs := []string{sim, testkit.Events(t, "app-20200706201101-0003"), testkit.Events(t, "application_1628109047826_1317105"),
		testkit.Events(t, "local-1422981759269")} // the last one has no Executor CPU Time
	b := reporttest.New(t, 1300, 900, 2*time.Minute)
	fromText := map[string]analyzeTotals{}
	for i, log := range logs {
		stdout := captureStdout(t)
		code := realMain([]string{"analyze", log})
		text := stdout()
		if code != 0 {
			t.Fatalf("analyze %s: exit %d", log, code)
		}
		page := filepath.Join(dir, fmt.Sprintf("page%d.html", i))
		if code := quiet(t, func() int { return realMain([]string{"report", "-o", page, log}) }); code != 0 {
			t.Fatalf("report %s: exit %d", log, code)
		}
		b.Open(t, "file://"+page)
		var h headerKPIs
		b.Eval(t, readHeader, &h)
		hasCPU := !strings.Contains(text, "this log has no Executor CPU Time")
		want := parseAnalyzeText(t, text)
		fromText[filepath.Base(log)] = want
		t.Logf("%s: analyze says %+v; page header %q %q %q %q", filepath.Base(log), want, h.Executors, h.Cores, h.Efficiency, h.Wasted)

		if got := leadingNumber(t, "executors", h.Executors); int(got) != want.executors {
			t.Errorf("%s: header shows %v executors, analyze %d", log, got, want.executors)
		}
		if !hasCPU {
			if h.Efficiency != "n/a" || h.Wasted != "n/a" {
				t.Errorf("%s (no CPU time): efficiency %q and wasted %q, want n/a", log, h.Efficiency, h.Wasted)
			}
		} else {
			// analyze prints whole percents and durations rounded to at most
			// the minute (1h32m), so each total is off by up to 30 s.
			if got := leadingNumber(t, "efficiency", h.Efficiency); math.Abs(got-want.efficiency) > 0.5+1e-9 {
				t.Errorf("%s: header efficiency %q, analyze %v%%", log, h.Efficiency, want.efficiency)
			}
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
		if !h.Stepped || peak <= 0 || leadingNumber(t, "cores", h.Cores) != math.Round(peak) {
			t.Errorf("%s: cores KPI %q, the chart's cores line peaks at %v (series found: %v)", log, h.Cores, peak, h.Stepped)
		}
		if errs := b.Errors(); len(errs) > 0 {
			t.Errorf("%s: page errors: %v", log, errs)
		}
	}

	// The index of all four: the same efficiency and wasted core-hours.
	out := filepath.Join(dir, "all")
	if code := quiet(t, func() int { return realMain(append([]string{"report", "-o", out}, logs...)) }); code != 0 {
		t.Fatalf("report exit %d", code)
	}
	if err := chromedp.Run(b.Ctx, chromedp.Navigate("file://"+filepath.Join(out, "index.html"))); err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	b.Eval(t, `[...document.querySelectorAll("#apps tbody tr:not(.ghead)")].map(r => [...r.cells].map(c => c.textContent.trim()).concat(r.querySelector("a").getAttribute("href")))`, &rows)
	if len(rows) != len(logs) {
		t.Fatalf("index has %d rows, want %d", len(rows), len(logs))
	}
	for _, r := range rows {
		// Find the log of this row from the page it links.
		var doc struct {
			Log              string `json:"log"`
			CPUTimeAvailable bool   `json:"cpuTimeAvailable"`
		}
		page, err := os.ReadFile(filepath.Join(out, r[len(r)-1]))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(between(string(page), `<script id="glance-doc" type="application/json">`, `</script>`)), &doc); err != nil {
			t.Fatalf("%s: embedded document: %v", r[len(r)-1], err)
		}
		want := fromText[filepath.Base(doc.Log)]
		eff, wasted := r[5], r[6]
		if !doc.CPUTimeAvailable {
			if eff != "n/a" || wasted != "n/a" {
				t.Errorf("index row %v (no CPU time): want n/a", r)
			}
			continue
		}
		if got := leadingNumber(t, "index efficiency", eff); math.Abs(got-want.efficiency) > 0.5+1e-9 {
			t.Errorf("index row %v: efficiency %s, analyze %v%%", r, eff, want.efficiency)
		}
		if got := leadingNumber(t, "index wasted", wasted); math.Abs(got-(want.available-want.cpu)/3600) > 0.05+2.0/3600 {
			t.Errorf("index row %v: wasted %s, analyze's available − task CPU = %.3f", r, wasted, (want.available-want.cpu)/3600)
		}
	}
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
