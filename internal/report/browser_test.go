package report_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/report"
	"github.com/sparkglance/sparkglance/internal/report/reporttest"
	"github.com/sparkglance/sparkglance/internal/sparklog"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// readDoc analyses a real log the way analyze does and returns its report
// and the JSON document.
func readDoc(t *testing.T, path string) (analysis.Report, []byte) {
	t.Helper()
	logs, err := sparklog.Discover(path)
	if err != nil || len(logs) != 1 {
		t.Fatalf("%s: %v (%d logs)", path, err, len(logs))
	}
	app := analysis.New(analysis.DefaultConfig())
	h := sparklog.HandlerFuncs{OnEvent: func(_ sparklog.Position, ev sparkevent.Event) error { app.Add(ev); return nil }}
	if _, err := sparklog.Read(logs[0], h, sparklog.Options{}); err != nil {
		t.Fatal(err)
	}
	r := app.Report()
	doc, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return r, doc
}

func writePage(t *testing.T, doc []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "page.html")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := report.WritePage(f, report.Page{Doc: doc}); err != nil {
		t.Fatal(err)
	}
	return path
}

// chartState is what the page says about its three charts.
type chartState struct {
	Ranges [][2]float64 `json:"ranges"`
	Tips   []string     `json:"tips"`
}

const readCharts = `(() => { const cs = window.glance.state.charts;
  return { ranges: cs.map(c => [c.scales.x.min, c.scales.x.max]),
           tips: cs.map(c => c.root.parentNode.querySelector(".tip").dataset.ts || "") }; })()`

// The report of a real log opens from a file with no request but the file
// itself and no console error; its three charts share one x range, a drag
// zoom in one zooms all three, and a hover shows one instant in all three.
func TestReportPageInBrowser(t *testing.T) {
	r, doc := readDoc(t, testkit.Events(t, "app-20200706201101-0003"))
	page := writePage(t, doc)
	b := reporttest.New(t, 1300, 1000, 90*time.Second)
	b.Open(t, "file://"+page)

	var st chartState
	b.Eval(t, readCharts, &st)
	if len(st.Ranges) != 3 {
		t.Fatalf("%d charts, want 3", len(st.Ranges))
	}
	wantLo, wantHi := float64(r.Intervals[0].Start)/1e3, float64(r.Intervals[len(r.Intervals)-1].End)/1e3
	for i, rg := range st.Ranges {
		if rg != st.Ranges[0] || math.Abs(rg[0]-wantLo) > 1e-6 || math.Abs(rg[1]-wantHi) > 1e-6 {
			t.Errorf("chart %d x range %v, want [%v %v] like the others", i, rg, wantLo, wantHi)
		}
	}

	// Drag across the middle of the spill chart (the second one).
	var box []float64
	b.Eval(t, `(() => { const r = window.glance.state.charts[1].over.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()`, &box)
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
	b.Eval(t, readCharts, &st)
	for i, rg := range st.Ranges {
		if rg != st.Ranges[0] {
			t.Errorf("after zooming the spill chart, chart %d shows %v, chart 0 %v", i, rg, st.Ranges[0])
		}
	}
	if z := st.Ranges[0]; !(z[0] > wantLo+1 && z[1] < wantHi-1) {
		t.Errorf("drag zoom did not narrow the x range: %v of [%v %v]", z, wantLo, wantHi)
	}

	// Hover over the stage timeline (the third chart).
	b.Eval(t, `(() => { const o = window.glance.state.charts[2].over; o.scrollIntoView({ block: "center" }); const r = o.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()`, &box)
	if err := chromedp.Run(b.Ctx, chromedp.MouseEvent(input.MouseMoved, box[0]+box[2]/2, box[1]+box[3]/3)); err != nil {
		t.Fatal(err)
	}
	b.Eval(t, readCharts, &st)
	if st.Tips[2] == "" {
		t.Fatalf("no tooltip on the hovered stage timeline: %q", st.Tips)
	}
	// The first two snap to the interval under the pointer: the same
	// instant as the timeline's, up to one interval.
	hover := parse(t, st.Tips[2])
	for i := range 2 {
		at := parse(t, st.Tips[i])
		if at > hover || hover-at > float64(r.IntervalMs)/1e3 {
			t.Errorf("chart %d tooltip at %v, timeline at %v", i, at, hover)
		}
	}
	if st.Tips[0] != st.Tips[1] {
		t.Errorf("the two interval charts show different intervals: %q", st.Tips)
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

func parse(t *testing.T, s string) float64 {
	t.Helper()
	var f float64
	if err := json.Unmarshal([]byte(s), &f); err != nil {
		t.Fatalf("tooltip timestamp %q: %v", s, err)
	}
	return f
}

// The charts draw the document's own numbers: read back from the page,
// they equal the analysis of the log.
func TestReportChartDataEqualsAnalysis(t *testing.T) {
	r, doc := readDoc(t, testkit.Events(t, "extra", "spark-rapids-tools", "spark-events-qualification", "nds_q88_photon_db_13_3.zstd"))
	page := writePage(t, doc)
	b := reporttest.New(t, 1300, 1000, 120*time.Second)
	b.Open(t, "file://"+page)
	var got struct {
		Data  [][]*float64 `json:"data"`
		Bars  [][3]float64 `json:"bars"`
		Execs []string     `json:"execs"`
		Disk  [][]float64  `json:"disk"`
	}
	b.Eval(t, `(() => { const g = window.glance.state, m = g.model;
	  return { data: g.charts[0].data, bars: m.bars.map(b => [b.stage.stageId, b.start, b.end]),
	           execs: m.executors, disk: m.spill.diskBytes.map(r => Array.from(r)) }; })()`, &got)
	n := len(r.Intervals)
	if len(got.Data) != 9 || len(got.Data[0]) != n+1 {
		t.Fatalf("core chart has %d series of %d points, want 9 of %d", len(got.Data), len(got.Data[0]), n+1)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(b)) }
	for i, iv := range r.Intervals {
		w := float64(iv.End-iv.Start) / 1e3
		cpu := 0.0
		if iv.AvailableCoreSeconds > 0 {
			cpu = iv.CPUSeconds / iv.AvailableCoreSeconds
		}
		// Series: x, then the stack top to bottom (idle … cpu), efficiency, cores.
		if !near(*got.Data[0][i], float64(iv.Start)/1e3) || !near(*got.Data[6][i], cpu) ||
			!near(*got.Data[7][i], iv.Efficiency) || !near(*got.Data[8][i], iv.AvailableCoreSeconds/w) {
			t.Fatalf("interval %d: page x %v cpu %v eff %v cores %v; analysis start %d cpu %v eff %v cores %v", i,
				*got.Data[0][i], *got.Data[6][i], *got.Data[7][i], *got.Data[8][i], iv.Start, cpu, iv.Efficiency, iv.AvailableCoreSeconds/w)
		}
		for _, s := range iv.Spill {
			row := -1
			for k, id := range got.Execs {
				if id == s.ExecutorID {
					row = k
				}
			}
			if row < 0 || got.Disk[row][i] != s.DiskBytes {
				t.Fatalf("interval %d executor %s: page disk spill row %d, analysis %v", i, s.ExecutorID, row, s.DiskBytes)
			}
		}
	}
	submitted := 0
	for _, s := range r.Stages {
		if s.SubmissionTime > 0 {
			submitted++
		}
	}
	if len(got.Bars) != submitted || submitted == 0 {
		t.Errorf("%d stage bars, %d submitted stage attempts", len(got.Bars), submitted)
	}
	if errs := b.Errors(); len(errs) > 0 {
		t.Errorf("page errors: %v", errs)
	}
	if !strings.Contains(string(doc), r.AppID) {
		t.Error("document lacks the app id")
	}
}
