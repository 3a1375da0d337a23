package glanceweb_test

import (
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/appdoc"
	"github.com/sparkglance/sparkglance/internal/glanceweb"
	"github.com/sparkglance/sparkglance/internal/sparklog"
)

// modelMismatches compares the page's model, built incrementally from the
// previous poll's, with one built from scratch from the same document, and
// lists every difference.
const modelMismatches = `(() => {
  const g = window.glance, m = g.state.model, f = g.buildModel(g.state.doc), out = [];
  const same = (name, a, b) => {
    if (a.length !== b.length) { out.push(name + ": length " + a.length + " vs " + b.length); return; }
    for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) { out.push(name + "[" + i + "]: " + a[i] + " vs " + b[i]); return; }
  };
  if (m.n !== f.n) out.push("n " + m.n + " vs " + f.n);
  same("executors", m.executors, f.executors);
  same("x", m.x, f.x);
  same("execCount", m.execCount, f.execCount);
  m.stack.forEach((s, k) => same("stack " + k, s, f.stack[k]));
  for (const kind of ["memoryBytes", "diskBytes"]) {
    if (m.spillMax[kind] !== f.spillMax[kind]) out.push("spillMax " + kind + " " + m.spillMax[kind] + " vs " + f.spillMax[kind]);
    m.spill[kind].forEach((row, r) => same(kind + " of " + m.executors[r], row, f.spill[kind][r]));
  }
  return out;
})()`

// A live update redraws only what its new data needs: the model keeps the
// spill of the intervals that were settled at the last poll (and equals a
// model built from scratch), a table row stays the same DOM node unless its
// data changed, a changed row shows its new values, and a sorted table
// stays sorted.
func TestLiveUpdateRedrawsOnlyWhatChanged(t *testing.T) {
	r := bigLiveApp(t, 8, 200)
	settled := 0
	for settled < len(r.Intervals) && r.Intervals[settled].Settled {
		settled++
	}
	if settled < 100 {
		t.Fatalf("only %d leading settled intervals of %d; the test needs most settled", settled, len(r.Intervals))
	}
	// before: three intervals fewer; after: all of them, and one executor
	// that finished one more task.
	before := r
	before.Intervals = slices.Clone(r.Intervals[:settled-3])
	after := r
	after.Executors = slices.Clone(r.Executors)
	changed := -1
	for i, e := range after.Executors {
		if e.ID != "driver" {
			changed = i
			break
		}
	}
	after.Executors[changed].TotalTasks += 1000
	changedID, wantTotal := after.Executors[changed].ID, strconv.Itoa(after.Executors[changed].TotalTasks)
	app := func(rep *analysis.Report) glanceweb.App {
		return glanceweb.App{Report: rep, Doc: &appdoc.Doc{Report: *rep, Events: map[string]int64{}, Problems: []sparklog.Problem{}}, Running: true}
	}
	var current atomic.Pointer[glanceweb.App]
	serve := func(rep *analysis.Report) { a := app(rep); current.Store(&a) }
	serve(&before)
	br := openLivePage(t, func() []glanceweb.App { return []glanceweb.App{*current.Load()} }, r.AppID, 2*time.Minute)
	update := func() {
		t.Helper()
		if err := chromedp.Run(br.Ctx, chromedp.Evaluate(`window.glance.update().then(() => window.glance.updates)`, nil,
			func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })); err != nil {
			t.Fatalf("update: %v (errors %v)", err, br.Errors())
		}
	}
	// Mark every table row's DOM node, to see which ones an update replaces.
	mark := `document.querySelectorAll("#executors tbody tr, #stages tbody tr").forEach(tr => { tr._kept = true; })`
	type rows struct {
		Kept, Replaced []string
		Total          string
	}
	rowsOf := func(table string) rows {
		t.Helper()
		var got rows
		br.Eval(t, `(() => {
		  const trs = [...document.querySelectorAll("#`+table+` tbody tr")], th = [...document.querySelectorAll("#`+table+` th")];
		  const total = th.findIndex(h => h.textContent === "Total"), row = trs.find(tr => tr.dataset.key === `+strconv.Quote(changedID)+`);
		  return { kept: trs.filter(tr => tr._kept).map(tr => tr.dataset.key), replaced: trs.filter(tr => !tr._kept).map(tr => tr.dataset.key),
		    total: row && total >= 0 ? row.cells[total].textContent : "" };
		})()`, &got)
		return got
	}

	serve(&after)
	br.Eval(t, mark, nil)
	update()
	var reused, n int
	br.Eval(t, `window.glance.state.model.reused`, &reused)
	br.Eval(t, `window.glance.state.model.n`, &n)
	if reused != len(before.Intervals) || n != len(after.Intervals) {
		t.Errorf("the model reused %d intervals and has %d, want the %d settled ones of the last poll and %d", reused, n, len(before.Intervals), len(after.Intervals))
	}
	var diff []string
	br.Eval(t, modelMismatches, &diff)
	if len(diff) > 0 {
		t.Errorf("the incremental model differs from one built from scratch: %v", diff)
	}
	if got := rowsOf("executors"); !slices.Equal(got.Replaced, []string{changedID}) || len(got.Kept) != len(after.Executors)-1 || got.Total != wantTotal {
		t.Errorf("executor rows kept %v, replaced %v (want only %s), its total %q (want %s)", got.Kept, got.Replaced, changedID, got.Total, wantTotal)
	}
	if got := rowsOf("stages"); len(got.Replaced) != 0 || len(got.Kept) != len(r.Stages) {
		t.Errorf("unchanged stage rows were replaced: %v (kept %d of %d)", got.Replaced, len(got.Kept), len(r.Stages))
	}

	// Sorted by a column, a table stays sorted through an update that
	// changes a row, and the model built from a shorter document (an
	// interval settled since: fewer, as after a rewrite) still equals one
	// built from scratch.
	br.Eval(t, `[...document.querySelectorAll("#executors th")].find(th => th.textContent === "Total").click()`, nil)
	serve(&before)
	update()
	br.Eval(t, modelMismatches, &diff)
	if len(diff) > 0 {
		t.Errorf("after a shorter document, the model differs from one built from scratch: %v", diff)
	}
	var sorted struct {
		Dir    string
		Totals []int
	}
	br.Eval(t, `(() => {
	  const th = [...document.querySelectorAll("#executors th")], k = th.findIndex(h => h.textContent === "Total");
	  return { dir: th[k].dataset.dir || "", totals: [...document.querySelectorAll("#executors tbody tr")].map(tr => +tr.cells[k].textContent.replace(/,/g, "")) };
	})()`, &sorted)
	if sorted.Dir != "desc" || len(sorted.Totals) != len(r.Executors) || !slices.IsSortedFunc(sorted.Totals, func(a, b int) int { return b - a }) {
		t.Errorf("executors after the update: sort %q, totals %v; want still sorted by Total, descending", sorted.Dir, sorted.Totals)
	}
	if got := rowsOf("executors"); got.Total != strconv.Itoa(r.Executors[changed].TotalTasks) {
		t.Errorf("executor %s shows total %q after the update, want %d", changedID, got.Total, r.Executors[changed].TotalTasks)
	}
	if errs := br.Errors(); len(errs) > 0 {
		t.Errorf("page errors: %v", errs)
	}
}
