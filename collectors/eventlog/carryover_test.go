package eventlog

import (
	"strconv"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// viewOfLog is the view the collector builds of a real log, as running.
func viewOfLog(t *testing.T, path string) *appView {
	t.Helper()
	r := referenceReport(t, path, time.Minute)
	r.ExecutorTaskSums = map[string]execTotals{"1": {MemorySpill: 5, Input: 7}}
	v := buildView(&r, "user", true, time.Minute, time.UnixMilli(r.LastEventTime))
	if len(v.executors) == 0 {
		t.Fatalf("%s: no executors in the view", path)
	}
	return v
}

// Two views built from the same data are the same whatever their caches
// hold; any change to the data, deep inside too, makes them differ.
func TestSameDataComparesTheData(t *testing.T) {
	path := testkit.Events(t, "app-20161116163331-0000")
	a, b := viewOfLog(t, path), viewOfLog(t, path)
	if !a.sameData(b) {
		t.Fatal("two views of the same report differ")
	}
	a.encode() // a's cache filled, b's empty
	a.scraped.Store(true)
	if !a.sameData(b) || !b.sameData(a) {
		t.Fatal("the parts cache counts as data")
	}
	changes := map[string]func(v *appView){
		"lastEventMs": func(v *appView) { v.lastEventMs++ },
		"running":     func(v *appView) { v.running = !v.running },
		"an executor's spill": func(v *appView) {
			v.executors = append([]execView(nil), v.executors...)
			v.executors[0].totals.MemorySpill++
		},
		"a task count":      func(v *appView) { v.tasks[1]++ },
		"settled spill map": func(v *appView) { v.settled.spill = map[string][2]float64{"1": {1, 2}} },
		"interval":          func(v *appView) { v.interval = &intervalView{start: 1} },
		"sql":               func(v *appView) { v.sql.DurationsSeconds = []float64{3} },
	}
	for what, change := range changes {
		c := viewOfLog(t, path)
		change(c)
		if a.sameData(c) {
			t.Errorf("a view with another %s is the same", what)
		}
	}
}

// Views derived from a view (shaped by the executor settings, or ended)
// keep every datum they do not mean to change: a field added to viewData
// is carried without anyone having to remember it.
func TestDerivedViewsKeepTheData(t *testing.T) {
	v := viewOfLog(t, testkit.Events(t, "app-20161116163331-0000"))
	v.settled.core = 42
	if c := v.withExecutors(v.executors, v.execSummary, v.interval, v.settled.spill); !c.sameData(v) {
		t.Error("a view shaped to the same executors differs from its source")
	}
	e := v.asEnded()
	if e.running || e.cores != 0 || e.activeTasks != 0 || len(e.activeStages) != 0 {
		t.Errorf("the ended view still runs: %+v", e.viewData)
	}
	for _, ex := range e.executors {
		if ex.live {
			t.Errorf("executor %s still live in the ended view", ex.id)
		}
	}
	e.running, e.cores, e.activeTasks, e.activeStages, e.executors = v.running, v.cores, v.activeTasks, v.activeStages, v.executors
	if !e.sameData(v) {
		t.Error("the ended view lost data besides what ending changes (a counter would go back)")
	}
}

// A republished view equal to the published one leaves it in place, with
// the parts already built; a changed view replaces it, and is encoded at
// once if a scrape used the one it replaces, not if none did.
func TestStoreKeepsAnUnchangedViewAndEncodesAfterAScrape(t *testing.T) {
	path := testkit.Events(t, "app-20161116163331-0000")
	a := &trackedApp{}
	v1 := viewOfLog(t, path)
	a.store(v1)
	if a.view.Load() != v1 {
		t.Fatal("the first view was not published")
	}
	parts := v1.partsOnce()
	v1.scraped.Store(true)

	a.store(viewOfLog(t, path))
	if a.view.Load() != v1 {
		t.Fatal("an unchanged view replaced the published one")
	}
	if got := a.view.Load().partsOnce(); &got[0] != &parts[0] {
		t.Fatal("the kept view's parts were built again")
	}

	v2 := viewOfLog(t, path)
	v2.lastEventMs++
	a.store(v2)
	if a.view.Load() != v2 {
		t.Fatal("a changed view was not published")
	}
	if v2.parts == nil {
		t.Fatal("a view replacing a scraped one was not encoded on publication")
	}
	for i, p := range v2.parts {
		if p != nil && p.Len() > 0 && !p.Encoded() {
			t.Errorf("%s: part built but its text not encoded", families[i].m.Name)
		}
	}

	v3 := viewOfLog(t, path)
	v3.lastEventMs += 2
	a.store(v3)
	if a.view.Load() != v3 || v3.parts != nil {
		t.Fatalf("a view replacing one no scrape used: published %v, encoded %v; want published, not encoded", a.view.Load() == v3, v3.parts != nil)
	}
}

// BenchmarkSameData: what deciding to keep a republished view costs, for a
// view of 100 executors (paid at every publication of a live application).
func BenchmarkSameData(b *testing.B) {
	mk := func() *appView {
		v := &appView{viewData: viewData{appID: "app-1", appName: "bench", running: true, interval: &intervalView{spill: map[string][2]float64{}}}}
		for i := range 100 {
			v.executors = append(v.executors, execView{id: strconv.Itoa(i), live: true, cores: 2})
			v.interval.spill[strconv.Itoa(i)] = [2]float64{1, 2}
		}
		return v
	}
	x, y := mk(), mk()
	for b.Loop() {
		if !x.sameData(y) {
			b.Fatal("equal views differ")
		}
	}
}
