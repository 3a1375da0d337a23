package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/report/reporttest"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// compareJSON is what the tests read of `compare --json`.
type compareJSON struct {
	Workload string `json:"workload"`
	Base     struct {
		AppID     string `json:"appId"`
		AttemptID string `json:"attemptId"`
	} `json:"base"`
	New struct {
		AppID     string `json:"appId"`
		AttemptID string `json:"attemptId"`
	} `json:"new"`
	Measures []struct {
		Measure string  `json:"measure"`
		Base    float64 `json:"base"`
		New     float64 `json:"new"`
		Delta   float64 `json:"delta"`
		Ratio   float64 `json:"ratio"`
	} `json:"measures"`
	Stages []struct {
		Key     string  `json:"key"`
		DeltaMs int64   `json:"deltaMs"`
		Share   float64 `json:"share"`
		Base    struct {
			StageID int   `json:"stageId"`
			WallMs  int64 `json:"wallMs"`
		} `json:"base"`
		New struct {
			StageID int   `json:"stageId"`
			WallMs  int64 `json:"wallMs"`
		} `json:"new"`
	} `json:"stages"`
	OnlyBase   []json.RawMessage `json:"onlyBase"`
	OnlyNew    []json.RawMessage `json:"onlyNew"`
	Properties []struct {
		Name string `json:"name"`
		Base string `json:"base"`
		New  string `json:"new"`
	} `json:"properties"`
	ExecutorChanges []string `json:"executorChanges"`
}

func runJSON(t *testing.T, out any, args ...string) {
	t.Helper()
	stdout := captureStdout(t)
	code := quiet(t, func() int { return realMain(args) })
	text := stdout()
	if code != 0 {
		t.Fatalf("%v: exit %d", args, code)
	}
	if err := json.Unmarshal([]byte(text), out); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, text)
	}
}

// measuresOf computes the baseline measures from an analyze --json
// document, independently of package workload.
func measuresOf(d analysis.Report) map[string]float64 {
	m := map[string]float64{
		"wall_time": float64(d.End-d.Start) / 1e3, "core_hours": d.Totals.AvailableCoreSecs / 3600,
		"spill_memory": d.Totals.MemoryBytesSpill, "spill_disk": d.Totals.DiskBytesSpill,
	}
	for _, s := range d.Stages {
		m["shuffle_read"] += float64(s.ShuffleReadBytes)
		m["shuffle_write"] += float64(s.ShuffleWriteBytes)
		m["input"] += float64(s.InputBytes)
	}
	if d.CPUTimeAvailable {
		m["task_cpu_time"] = d.Totals.CPUSeconds
		m["efficiency"] = d.Totals.CPUSeconds / d.Totals.AvailableCoreSecs
		m["wasted_core_hours"] = (d.Totals.AvailableCoreSecs - d.Totals.CPUSeconds) / 3600
	}
	if d.Energy != nil {
		m["energy"] = d.Energy.WattHours
	}
	if d.Cost != nil {
		m["cost"] = d.Cost.Total
	}
	return m
}

// Two attempts of one real job (RAPIDS tools' multiple_attempts): every
// stage is matched, and each measure of the comparison is the one the two
// analyze --json documents give.
func TestCompareRealRunsEqualsAnalyze(t *testing.T) {
	dir := testkit.Events(t, "extra", "spark-rapids-tools", "spark-events-qualification", "multiple_attempts")
	a, b := filepath.Join(dir, "attempt_1_eventlog.zstd"), filepath.Join(dir, "attempt_2_eventlog.zstd")
	var c compareJSON
	runJSON(t, &c, "compare", "--json", a, b)
	var da, db []analysis.Report
	runJSON(t, &da, "analyze", "--json", a)
	runJSON(t, &db, "analyze", "--json", b)
	if c.Workload != "ProcessLargeDataset" || da[0].Workload != c.Workload || db[0].Workload != c.Workload {
		t.Errorf("workload %q, analyze %q and %q", c.Workload, da[0].Workload, db[0].Workload)
	}
	if c.Base.AttemptID != "1" || c.New.AttemptID != "2" {
		t.Errorf("runs %+v %+v", c.Base, c.New)
	}
	if len(c.Stages) != len(da[0].Stages) || len(c.Stages) != len(db[0].Stages) || len(c.OnlyBase)+len(c.OnlyNew) != 0 {
		t.Errorf("%d stages matched of %d and %d; unmatched %d and %d", len(c.Stages), len(da[0].Stages), len(db[0].Stages), len(c.OnlyBase), len(c.OnlyNew))
	}
	for _, s := range c.Stages {
		if s.Base.StageID != s.New.StageID || s.DeltaMs != s.New.WallMs-s.Base.WallMs {
			t.Errorf("stage %q: ids %d/%d, delta %d of %d − %d", s.Key, s.Base.StageID, s.New.StageID, s.DeltaMs, s.New.WallMs, s.Base.WallMs)
		}
	}
	ma, mb := measuresOf(da[0]), measuresOf(db[0])
	if len(c.Measures) != len(ma) {
		t.Errorf("%d measures, analyze gives %d", len(c.Measures), len(ma))
	}
	for _, m := range c.Measures {
		wa, wb := ma[m.Measure], mb[m.Measure]
		if !near(m.Base, wa) || !near(m.New, wb) || !near(m.Delta, wb-wa) {
			t.Errorf("%s: base %v new %v delta %v; analyze %v %v", m.Measure, m.Base, m.New, m.Delta, wa, wb)
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// NEW may be a directory: its latest run of BASE's workload is compared.
func TestCompareNewDirectoryTakesLatestRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs")
	if code := quiet(t, func() int { return realMain([]string{"simulate", "--workload-runs", "5", "--out", dir}) }); code != 0 {
		t.Fatalf("simulate exit %d", code)
	}
	var c compareJSON
	runJSON(t, &c, "compare", "--json", filepath.Join(dir, "app-20261130090000-0001"), dir)
	if c.New.AppID != "app-20261204090000-0005" || c.Base.AppID != "app-20261130090000-0001" {
		t.Errorf("compared %s with %s, want the latest run 0005", c.Base.AppID, c.New.AppID)
	}
	// Run 5 has half the executors; run 1 is a steady one.
	if !slices.Equal(c.ExecutorChanges, []string{"executors 12 → 6", "at most 8 → 4 at once"}) {
		t.Errorf("executor changes %q", c.ExecutorChanges)
	}
	// Text by default; run 3 of 5 is the property change.
	stdout := captureStdout(t)
	code := quiet(t, func() int {
		return realMain([]string{"compare", filepath.Join(dir, "app-20261130090000-0001"), filepath.Join(dir, "app-20261202090000-0003")})
	})
	text := stdout()
	if code != 0 || !strings.Contains(text, "spark.sql.shuffle.partitions: 200 → 2000") ||
		!strings.Contains(text, "\n  join at NightlyRollup.scala:88 ") {
		t.Errorf("exit %d, text:\n%s", code, text)
	}
	if i := strings.Index(text, "Stages matched"); i < 0 || !strings.HasPrefix(strings.SplitN(text[i:], "\n", 4)[2], "  join at NightlyRollup.scala:88") {
		t.Errorf("the slowed join is not the first stage:\n%s", text)
	}
	// A directory without another run of the workload is an error.
	other := filepath.Join(t.TempDir(), "other")
	if code := quiet(t, func() int { return realMain([]string{"simulate", "--out", other}) }); code != 0 {
		t.Fatal(code)
	}
	otherDir := filepath.Join(t.TempDir(), "otherdir")
	if err := os.Mkdir(otherDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a", "b"} {
		data, _ := os.ReadFile(other)
		if err := os.WriteFile(filepath.Join(otherDir, n), []byte(strings.ReplaceAll(string(data), "app-20261130090000-0001", "app-20261130090000-000"+n)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code := quiet(t, func() int {
		return realMain([]string{"compare", filepath.Join(dir, "app-20261130090000-0001"), otherDir})
	}); code == 0 {
		t.Error("compare against a directory with no run of the workload succeeded")
	}
}

// compareCharts is what the page says of its six charts.
const readCompareCharts = `(() => { const cs = window.compare.state.charts;
  return { ranges: cs.map(c => [c.scales.x.min, c.scales.x.max]),
           tips: cs.map(c => c.root.parentNode.querySelector(".tip").dataset.ts || "") }; })()`

// The comparison page opens from a file with no other request and no
// console error; its six charts share one relative x range, a drag zoom in
// one zooms all six, a hover shows one instant in all six, and the tables
// carry the numbers of compare --json. With SPARKGLANCE_SCREENSHOTS=DIR
// (make screenshots) it writes DIR/compare.png.
func TestComparePageInBrowser(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs")
	if code := quiet(t, func() int { return realMain([]string{"simulate", "--workload-runs", "4", "--out", dir}) }); code != 0 {
		t.Fatalf("simulate exit %d", code)
	}
	base, nw := filepath.Join(dir, "app-20261130090000-0001"), filepath.Join(dir, "app-20261201090000-0002")
	page := filepath.Join(t.TempDir(), "compare.html")
	if code := quiet(t, func() int { return realMain([]string{"compare", "-o", page, base, nw}) }); code != 0 {
		t.Fatalf("compare -o exit %d", code)
	}
	var c compareJSON
	runJSON(t, &c, "compare", "--json", base, nw)

	b := reporttest.New(t, 1300, 1400, 2*time.Minute)
	b.OpenWhen(t, "file://"+page, `window.compare && window.compare.state.charts.length === 6`)
	var st chartState
	b.Eval(t, readCompareCharts, &st)
	if len(st.Ranges) != 6 {
		t.Fatalf("%d charts, want 6", len(st.Ranges))
	}
	var wall []float64
	for _, m := range c.Measures {
		if m.Measure == "wall_time" {
			wall = []float64{m.Base, m.New}
		}
	}
	span := max(wall[0], wall[1])
	for i, rg := range st.Ranges {
		if rg[0] != 0 || math.Abs(rg[1]-span) > 10 {
			t.Errorf("chart %d x range %v, want [0 ≈%v] (the longer run)", i, rg, span)
		}
		if rg != st.Ranges[0] {
			t.Errorf("chart %d x range %v, chart 0 %v", i, rg, st.Ranges[0])
		}
	}

	if shots := os.Getenv("SPARKGLANCE_SCREENSHOTS"); shots != "" { // make screenshots
		writeShot(t, filepath.Join(shots, "compare.png"), b.Screenshot(t))
	}

	// Drag across the new run's spill chart (the fifth).
	var box []float64
	b.Eval(t, `(() => { const r = window.compare.state.charts[4].over; r.scrollIntoView({ block: "center" }); const r2 = r.getBoundingClientRect(); return [r2.left, r2.top, r2.width, r2.height]; })()`, &box)
	y := box[1] + box[3]/2
	x0, x1 := box[0]+box[2]*0.3, box[0]+box[2]*0.6
	err := chromedp.Run(b.Ctx,
		chromedp.MouseEvent(input.MouseMoved, x0, y),
		chromedp.MouseEvent(input.MousePressed, x0, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.MouseMoved, (x0+x1)/2, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.MouseMoved, x1, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.MouseReleased, x1, y, chromedp.ButtonLeft),
	)
	if err != nil {
		t.Fatal(err)
	}
	b.Eval(t, readCompareCharts, &st)
	for i, rg := range st.Ranges {
		if rg != st.Ranges[0] {
			t.Errorf("after zooming chart 4, chart %d shows %v, chart 0 %v", i, rg, st.Ranges[0])
		}
	}
	if z := st.Ranges[0]; !(z[0] > 1 && z[1] < span-1) {
		t.Errorf("drag zoom did not narrow the x range: %v of [0 %v]", z, span)
	}

	// Hover over the base run's stage timeline (the third chart): all six
	// show the same instant (the interval charts snap to their interval).
	b.Eval(t, `(() => { const r = window.compare.state.charts[2].over; r.scrollIntoView({ block: "center" }); const r2 = r.getBoundingClientRect(); return [r2.left, r2.top, r2.width, r2.height]; })()`, &box)
	if err := chromedp.Run(b.Ctx, chromedp.MouseEvent(input.MouseMoved, box[0]+box[2]/2, box[1]+box[3]/3)); err != nil {
		t.Fatal(err)
	}
	b.Eval(t, readCompareCharts, &st)
	hover := parse(t, st.Tips[2])
	for i, ts := range st.Tips {
		if ts == "" {
			t.Fatalf("chart %d shows no tooltip: %q", i, st.Tips)
		}
		if at := parse(t, ts); at > hover+1e-9 || hover-at > 10 {
			t.Errorf("chart %d tooltip at %v s, the hovered timeline at %v s", i, at, hover)
		}
	}

	// The tables carry compare --json's numbers.
	var rows struct {
		Measures [][]string `json:"measures"`
		Stages   [][]string `json:"stages"`
		Props    []string   `json:"props"`
	}
	b.Eval(t, `(() => ({
	  measures: [...document.querySelectorAll("#measure-table tbody tr")].map(r => [r.dataset.measure, r.dataset.base, r.dataset.new, r.dataset.delta]),
	  stages: [...document.querySelectorAll("#stage-table tbody tr")].map(r => [r.dataset.key, r.dataset.deltaMs, r.dataset.share]),
	  props: [...document.querySelectorAll("#property-diff li")].map(l => l.dataset.name) }))()`, &rows)
	if len(rows.Measures) != len(c.Measures) || len(rows.Stages) != len(c.Stages) {
		t.Fatalf("page rows %d measures %d stages; JSON %d and %d", len(rows.Measures), len(rows.Stages), len(c.Measures), len(c.Stages))
	}
	for i, m := range c.Measures {
		r := rows.Measures[i]
		if r[0] != m.Measure || parse(t, r[1]) != m.Base || parse(t, r[2]) != m.New || parse(t, r[3]) != m.Delta {
			t.Errorf("measure row %v, JSON %+v", r, m)
		}
	}
	for i, s := range c.Stages {
		r := rows.Stages[i]
		if r[0] != s.Key || parse(t, r[1]) != float64(s.DeltaMs) || parse(t, r[2]) != s.Share {
			t.Errorf("stage row %v, JSON %+v", r, s)
		}
	}
	if c.Stages[0].Key != "join at NightlyRollup.scala:88" || !slices.Equal(rows.Props, []string{"spark.sql.shuffle.partitions"}) {
		t.Errorf("first stage %q, properties %v", c.Stages[0].Key, rows.Props)
	}

	if errs := b.Errors(); len(errs) > 0 {
		t.Errorf("page errors: %v", errs)
	}
	for _, u := range b.Requests() {
		if u != "file://"+page {
			t.Errorf("the page requested %s", u)
		}
	}
}

// chartState is what the page says about its charts.
type chartState struct {
	Ranges [][2]float64 `json:"ranges"`
	Tips   []string     `json:"tips"`
}

func parse(t *testing.T, s string) float64 {
	t.Helper()
	var f float64
	if err := json.Unmarshal([]byte(s), &f); err != nil {
		t.Fatalf("number %q: %v", s, err)
	}
	return f
}

// The report page shows the workload and the cost analyze --json gives,
// and the index of a report directory lists the cost of each run.
func TestReportShowsWorkloadAndCost(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs")
	if code := quiet(t, func() int { return realMain([]string{"simulate", "--workload-runs", "4", "--out", dir}) }); code != 0 {
		t.Fatalf("simulate exit %d", code)
	}
	log := filepath.Join(dir, "app-20261130090000-0001")
	var docs []analysis.Report
	runJSON(t, &docs, "analyze", "--json", "--cost.core-hour=0.05", "--cost.memory-gib-hour=0.01", "--cost.currency=EUR", log)
	d := docs[0]
	if d.Workload != "nightly sales rollup <date>" || d.Cost == nil || d.Cost.Model.Currency != "EUR" || d.Cost.Model.CoreHour != 0.05 {
		t.Fatalf("workload %q cost %+v", d.Workload, d.Cost)
	}
	page := filepath.Join(t.TempDir(), "page.html")
	if code := quiet(t, func() int {
		return realMain([]string{"report", "-o", page, "--cost.core-hour=0.05", "--cost.memory-gib-hour=0.01", "--cost.currency=EUR", log})
	}); code != 0 {
		t.Fatalf("report exit %d", code)
	}
	b := reporttest.New(t, 1300, 900, time.Minute)
	b.Open(t, "file://"+page)
	var got []string
	b.Eval(t, `[document.getElementById("workload").textContent, document.querySelector("#kpi-cost b").textContent, document.querySelector("#kpi-wasted-cost b").textContent]`, &got)
	if got[0] != d.Workload || !strings.HasSuffix(got[1], " EUR") || !strings.HasSuffix(got[2], " EUR") {
		t.Fatalf("page shows %q", got)
	}
	for i, want := range []float64{d.Cost.Total, d.Cost.Wasted} {
		v := parse(t, strings.TrimSuffix(got[i+1], " EUR"))
		if math.Abs(v-want) > 0.005*want {
			t.Errorf("page cost %q, analyze %v", got[i+1], want)
		}
	}
	if errs := b.Errors(); len(errs) > 0 {
		t.Errorf("page errors: %v", errs)
	}

	out := filepath.Join(t.TempDir(), "report")
	if code := quiet(t, func() int { return realMain([]string{"report", "-o", out, dir}) }); code != 0 {
		t.Fatalf("report dir exit %d", code)
	}
	index, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	var all []analysis.Report
	runJSON(t, &all, "analyze", "--json", dir)
	for _, r := range all {
		if !strings.Contains(string(index), `data-value="`+strconv.FormatFloat(r.Cost.Total, 'g', -1, 64)+`"`) {
			t.Errorf("index has no cost cell of %s (%v)", r.AppID, r.Cost.Total)
		}
	}
}

// The --workload.* flags choose the key; a baseline of fewer than 3 runs
// is a usage error.
func TestWorkloadKeyFlags(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs")
	if code := quiet(t, func() int { return realMain([]string{"simulate", "--workload-runs", "4", "--out", dir}) }); code != 0 {
		t.Fatalf("simulate exit %d", code)
	}
	log := filepath.Join(dir, "app-20261130090000-0001")
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{nil, "nightly sales rollup <date>"},
		{[]string{"--workload.normalize=false"}, "nightly sales rollup 2026-11-30"},
		{[]string{"--workload.key-property=missing", "--workload.key-property=spark.sparkglance.team"}, "sales"},
	} {
		var docs []analysis.Report
		runJSON(t, &docs, append(append([]string{"analyze", "--json"}, c.flags...), log)...)
		if docs[0].Workload != c.want {
			t.Errorf("%v: workload %q, want %q", c.flags, docs[0].Workload, c.want)
		}
	}
	if code := quiet(t, func() int { return realMain([]string{"analyze", "--workload.baseline-runs=2", log}) }); code != exitUsage {
		t.Errorf("--workload.baseline-runs=2: exit %d, want %d", code, exitUsage)
	}
	// Over the four runs, the text lists the workload's runs and the
	// regressed one's explanation.
	stdout := captureStdout(t)
	code := quiet(t, func() int { return realMain([]string{"analyze", "--workload.baseline-runs=3", dir}) })
	text := stdout()
	if code != 0 || !strings.Contains(text, "\nWorkload nightly sales rollup <date>: 4 runs\n") {
		t.Fatalf("exit %d:\n%s", code, text)
	}
	// Run 2 (the property change) has only one run before it: no baseline.
	if !strings.Contains(text, "app-20261201090000-0002          2026-12-01 09:00:00") || strings.Contains(text, "workload_regression") {
		t.Errorf("text:\n%s", text[strings.Index(text, "\nWorkload "):])
	}
}
