package report_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/report/reporttest"
	"github.com/sparkglance/sparkglance/internal/simulate"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// simulatedDoc analyses the simulator's demo application (findings on
// stages, memory and disk spill on every executor) the way analyze does.
func simulatedDoc(t *testing.T) (analysis.Report, []byte) {
	t.Helper()
	var log bytes.Buffer
	if _, err := simulate.Write(&log, simulate.DefaultConfig()); err != nil {
		t.Fatal(err)
	}
	app := analysis.New(analysis.DefaultConfig())
	lines := bytes.Split(bytes.TrimSpace(log.Bytes()), []byte("\n"))
	for i, line := range lines {
		ev, err := sparkevent.DecodeLine(line)
		if err != nil {
			t.Fatalf("simulated line %d: %v", i+1, err)
		}
		if ev != nil {
			app.Add(ev)
		}
	}
	r := app.Report()
	doc, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return r, doc
}

// ranges reads the three charts' x ranges.
func ranges(t *testing.T, b *reporttest.Browser) [][2]float64 {
	t.Helper()
	var st chartState
	b.Eval(t, readCharts, &st)
	if len(st.Ranges) != 3 {
		t.Fatalf("%d charts, want 3", len(st.Ranges))
	}
	return st.Ranges
}

func sameRanges(t *testing.T, what string, rs [][2]float64, want [2]float64, tol float64) {
	t.Helper()
	for i, rg := range rs {
		if math.Abs(rg[0]-want[0]) > tol || math.Abs(rg[1]-want[1]) > tol {
			t.Errorf("%s: chart %d shows [%.3f %.3f], want [%.3f %.3f]", what, i, rg[0], rg[1], want[0], want[1])
		}
	}
}

// box is a chart's plotting area in CSS pixels: left, top, width, height.
func box(t *testing.T, b *reporttest.Browser, chart int) [4]float64 {
	t.Helper()
	var bx [4]float64
	b.Eval(t, fmt.Sprintf(`(() => { const r = window.glance.state.charts[%d].over.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()`, chart), &bx)
	return bx
}

// The wheel zooms all three charts around the pointer, 0.8× per notch in,
// 1.25× out, and never past the application's span.
func TestWheelZoomAllThreeFollow(t *testing.T) {
	r, doc := simulatedDoc(t)
	b := reporttest.New(t, 1300, 1000, 90*time.Second)
	b.Open(t, "file://"+writePage(t, doc))
	full := [2]float64{float64(r.Intervals[0].Start) / 1e3, float64(r.Intervals[len(r.Intervals)-1].End) / 1e3}
	sameRanges(t, "before", ranges(t, b), full, 1e-6)

	bx := box(t, b, 0) // the core-time chart
	x, y := bx[0]+bx[2]*0.25, bx[1]+bx[3]/2
	var at float64
	b.Eval(t, fmt.Sprintf(`window.glance.state.charts[0].posToVal(%v, "x")`, x-bx[0]), &at)
	wheel := func(dy float64) {
		t.Helper()
		if err := chromedp.Run(b.Ctx, chromedp.MouseEvent(input.MouseMoved, x, y),
			input.DispatchMouseEvent(input.MouseWheel, x, y).WithDeltaX(0).WithDeltaY(dy)); err != nil {
			t.Fatal(err)
		}
	}
	wheel(-100)
	wheel(-100)
	// Two notches in: 0.64 of the width, the pointer's instant where it was.
	f := 0.8 * 0.8
	want := [2]float64{at - (at-full[0])*f, at + (full[1]-at)*f}
	sameRanges(t, "after two notches in", ranges(t, b), want, 1e-3)

	for range 4 { // out again, further than the whole span
		wheel(100)
	}
	sameRanges(t, "after zooming out", ranges(t, b), full, 1e-6)
}

// findingSpan is the span the page zooms to for a finding: its own, else
// its stage attempt's, padded by 8% each side (seconds).
func findingSpan(t *testing.T, r analysis.Report, f analysis.Finding) [2]float64 {
	t.Helper()
	lo, hi := f.Start, f.End
	if lo <= 0 && f.StageID != nil {
		for _, s := range r.Stages {
			if s.StageID == *f.StageID && (f.StageAttemptID == nil || s.AttemptID == *f.StageAttemptID) && s.SubmissionTime > 0 {
				lo, hi = s.SubmissionTime, s.CompletionTime
				break
			}
		}
	}
	if lo <= 0 {
		t.Fatalf("finding %+v has no span", f)
	}
	hi = max(hi, lo+1000)
	pad := float64(hi-lo) * 0.08
	return [2]float64{(float64(lo) - pad) / 1e3, (float64(hi) + pad) / 1e3}
}

// Clicking a finding's place zooms all three charts to its span and marks
// its stage in the stage table.
func TestFindingClickZoomsAllThree(t *testing.T) {
	r, doc := simulatedDoc(t)
	b := reporttest.New(t, 1300, 1000, 90*time.Second)
	b.Open(t, "file://"+writePage(t, doc))
	var links []int
	b.Eval(t, `[...document.querySelectorAll("#findings a.place")].map(a => +a.dataset.i)`, &links)
	clicked := 0
	for _, i := range links {
		f := r.Findings[i]
		if f.StageID == nil {
			continue
		}
		want := findingSpan(t, r, f)
		if err := chromedp.Run(b.Ctx, chromedp.Click(fmt.Sprintf(`#findings a.place[data-i="%d"]`, i), chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		sameRanges(t, fmt.Sprintf("after clicking finding %d (%s, stage %d)", i, f.Kind, *f.StageID), ranges(t, b), want, 1e-6)
		var marked []string
		b.Eval(t, `[...document.querySelectorAll("#stages tr.selected")].map(r => r.dataset.key)`, &marked)
		wantKey := fmt.Sprintf("%d.%d", *f.StageID, *f.StageAttemptID)
		if len(marked) != 1 || marked[0] != wantKey {
			t.Errorf("finding on stage %s: the stage table marks %v", wantKey, marked)
		}
		if clicked++; clicked == 2 {
			break
		}
	}
	if clicked < 2 {
		t.Fatalf("only %d finding(s) with a stage to click among %d links (%d findings)", clicked, len(links), len(r.Findings))
	}
	if errs := b.Errors(); len(errs) > 0 {
		t.Errorf("page errors: %v", errs)
	}
}

// Clicking a column header sorts the stage table by it, descending first
// for numbers, then ascending; the order read back is the analysis'.
func TestSortStageTableByDuration(t *testing.T) {
	r, doc := simulatedDoc(t)
	b := reporttest.New(t, 1300, 1000, 90*time.Second)
	b.Open(t, "file://"+writePage(t, doc))
	type row struct {
		key string
		dur int64
	}
	var rows []row
	for _, s := range r.Stages {
		d := int64(-1)
		if s.SubmissionTime > 0 {
			end := s.CompletionTime
			if end <= 0 {
				end = r.End
			}
			d = end - s.SubmissionTime
		}
		rows = append(rows, row{fmt.Sprintf("%d.%d", s.StageID, s.AttemptID), d})
	}
	readOrder := func() (keys []string, dir string) {
		var got struct {
			Keys []string
			Dir  string
		}
		b.Eval(t, `({ keys: [...document.querySelectorAll("#stages tbody tr")].map(r => r.dataset.key),
		  dir: [...document.querySelectorAll("#stages th")].find(th => th.textContent === "Duration").dataset.dir || "" })`, &got)
		return got.Keys, got.Dir
	}
	click := `[...document.querySelectorAll("#stages th")].find(th => th.textContent === "Duration").click()`
	for _, tc := range []struct {
		dir  string
		less func(a, b row) bool
	}{
		{"desc", func(a, b row) bool { return a.dur > b.dur }},
		{"asc", func(a, b row) bool { return a.dur < b.dur }},
	} {
		b.Eval(t, click, nil)
		want := append([]row(nil), rows...)
		sort.SliceStable(want, func(i, j int) bool { return tc.less(want[i], want[j]) })
		keys, dir := readOrder()
		if dir != tc.dir || len(keys) != len(want) {
			t.Fatalf("sorted %q with %d rows, want %q with %d", dir, len(keys), tc.dir, len(want))
		}
		for i := range want {
			if keys[i] != want[i].key {
				t.Fatalf("%s: row %d is stage %s, want %s (%d ms); page order %v", tc.dir, i, keys[i], want[i].key, want[i].dur, keys)
			}
		}
	}
}

// The disk/memory switch redraws the spill heatmap from the other kind:
// the cell with the most spill of the chosen kind takes the darkest colour
// of the ramp, and the scale names that kind's maximum.
func TestSpillSwitch(t *testing.T) {
	r, doc := simulatedDoc(t)
	b := reporttest.New(t, 1300, 1000, 90*time.Second)
	b.Open(t, "file://"+writePage(t, doc))
	type cell struct {
		interval int
		executor string
		bytes    float64
	}
	maxOf := func(kind func(analysis.Spill) float64) cell {
		var c cell
		for i, iv := range r.Intervals {
			for _, s := range iv.Spill {
				if v := kind(s); v > c.bytes {
					c = cell{i, s.ExecutorID, v}
				}
			}
		}
		return c
	}
	mem := maxOf(func(s analysis.Spill) float64 { return s.MemoryBytes })
	disk := maxOf(func(s analysis.Spill) float64 { return s.DiskBytes })
	if mem.bytes == 0 || disk.bytes == 0 || mem.bytes == disk.bytes {
		t.Fatalf("the simulated application should spill different amounts to memory and disk: %+v %+v", mem, disk)
	}
	// pixel reads the heatmap's colour at the centre of a cell.
	pixel := func(c cell) [3]int {
		var rgb [3]int
		b.Eval(t, fmt.Sprintf(`(() => { const u = window.glance.state.charts[1], m = window.glance.state.model;
		  const row = m.executors.indexOf(%q), x = (m.x[%d] + m.x[%d + 1]) / 2;
		  const px = Math.round(u.valToPos(x, "x", true)), py = Math.round(u.bbox.top + (row + 0.5) * u.bbox.height / m.executors.length);
		  return Array.from(u.ctx.getImageData(px, py, 1, 1).data.slice(0, 3)); })()`, c.executor, c.interval, c.interval), &rgb)
		return rgb
	}
	darkest := [3]int{90, 10, 20}
	check := func(kind string, c cell) {
		t.Helper()
		var st struct {
			Kind, Scale string
		}
		b.Eval(t, `({ kind: window.glance.state.spillKind, scale: document.getElementById("spill-scale").textContent })`, &st)
		if st.Kind != kind {
			t.Errorf("spill kind %q, want %q", st.Kind, kind)
		}
		if p := pixel(c); p != darkest {
			t.Errorf("%s: the cell of executor %s, interval %d (%.0f bytes, the most) is %v, want the darkest %v", kind, c.executor, c.interval, c.bytes, p, darkest)
		}
		if want := humanBytes(c.bytes); !bytes.Contains([]byte(st.Scale), []byte(want)) {
			t.Errorf("%s: scale %q does not name the maximum %s", kind, st.Scale, want)
		}
	}
	check("diskBytes", disk)
	if err := chromedp.Run(b.Ctx, chromedp.Click(`input[name="spill"][value="memoryBytes"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	check("memoryBytes", mem)
	if err := chromedp.Run(b.Ctx, chromedp.Click(`input[name="spill"][value="diskBytes"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	check("diskBytes", disk)
}

// humanBytes formats like the page: binary units, one decimal below 10.
func humanBytes(n float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	v, i := n, 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if v < 10 && i > 0 {
		return fmt.Sprintf("%.1f %s", v, units[i])
	}
	return fmt.Sprintf("%.0f %s", v, units[i])
}

// Each wide enough stage bar carries its label inside it: white text on
// the bar's first pixels (a label drawn with the context's leftover
// right alignment ends where the bar starts, white on white).
func TestStageLabelsInsideTheirBars(t *testing.T) {
	_, doc := simulatedDoc(t)
	b := reporttest.New(t, 1300, 1000, 90*time.Second)
	b.Open(t, "file://"+writePage(t, doc))
	var got []struct {
		Stage int
		Width float64
		Light int
	}
	b.Eval(t, `(() => { const u = window.glance.state.charts[2], m = window.glance.state.model, out = [];
	  const laneH = u.bbox.height / m.lanes;
	  for (const bar of m.bars) {
	    const x0 = Math.round(u.valToPos(bar.start, "x", true)), x1 = Math.round(u.valToPos(bar.end, "x", true));
	    if (x1 - x0 < 80) continue;
	    const y = Math.round(u.bbox.top + bar.lane * laneH + laneH / 2 - 6);
	    const d = u.ctx.getImageData(x0 + 2, y, 30, 12).data;
	    let light = 0;
	    for (let i = 0; i < d.length; i += 4) if (d[i] > 200 && d[i + 1] > 200) light++;
	    out.push({ stage: bar.stage.stageId, width: x1 - x0, light });
	  }
	  return out; })()`, &got)
	if len(got) < 3 {
		t.Fatalf("only %d stage bars wide enough for a label: %+v", len(got), got)
	}
	for _, g := range got {
		if g.Light < 10 {
			t.Errorf("stage %d (bar %v px wide): no label text inside the bar's start (%d light pixels)", g.Stage, g.Width, g.Light)
		}
	}
}
