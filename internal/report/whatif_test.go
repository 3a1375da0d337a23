package report_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/human"
	"github.com/sparkglance/sparkglance/internal/report/reporttest"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// The page's what-if table has one row per predicted executor count, in
// the document's order, marking today's and the ideal count, and the note
// gives the driver's time and the critical path from the document.
func TestReportWhatIfSection(t *testing.T) {
	r, doc := readDoc(t, testkit.Events(t, "application_1628109047826_1317105"))
	w := r.WhatIf
	if w == nil || w.IdealExecutors == w.Executors {
		t.Fatalf("the log's what-if should advise fewer executors: %+v", w)
	}
	page := writePage(t, doc)
	b := reporttest.New(t, 1300, 1000, 60*time.Second)
	b.Open(t, "file://"+page)
	var got struct {
		Rows []string `json:"rows"`
		Note string   `json:"note"`
	}
	b.Eval(t, `(() => { const el = document.getElementById("whatif");
	  return { rows: [...el.querySelectorAll("tbody tr")].map(r => r.cells[0].textContent + "|" + r.cells[2].textContent),
	           note: el.querySelector("p").textContent }; })()`, &got)
	var want []string
	for _, p := range w.Predictions {
		mark := ""
		switch p.Executors {
		case w.Executors:
			mark = " (today)"
		case w.IdealExecutors:
			mark = " (ideal)"
		}
		want = append(want, fmt.Sprintf("%d%s|%s", p.Executors, mark, human.Millis(p.WallMs)))
	}
	if fmt.Sprint(got.Rows) != fmt.Sprint(want) {
		t.Errorf("what-if rows %q, want %q", got.Rows, want)
	}
	for _, s := range []string{"the driver alone " + human.Millis(w.DriverMs), "Critical path " + human.Millis(w.CriticalPath.WallMs), "ideal " + human.Plural(w.IdealExecutors, "executor") + ","} {
		if !strings.Contains(got.Note, s) {
			t.Errorf("note %q lacks %q", got.Note, s)
		}
	}
	if errs := b.Errors(); len(errs) > 0 {
		t.Errorf("page errors: %v", errs)
	}
}

// A running application's what-if says as of when in the run it is (it is
// replayed again as the run goes on); a finished one's needs no date.
func TestReportWhatIfAsOfWhileRunning(t *testing.T) {
	r, doc := readDoc(t, testkit.Events(t, "application_1628109047826_1317105"))
	if r.WhatIf == nil {
		t.Fatal("no what-if")
	}
	r.Live, r.WhatIf.AsOf = true, r.Start+50_000
	live, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	b := reporttest.New(t, 1300, 1000, 60*time.Second)
	for _, c := range []struct {
		doc  []byte
		want string
	}{{doc, ""}, {live, "As of 50s into the run (replayed again as it runs). "}} {
		b.Open(t, "file://"+writePage(t, c.doc))
		var note string
		b.Eval(t, `document.getElementById("whatif").querySelector("p").textContent`, &note)
		if got, _, _ := strings.Cut(note, "Wall time"); got != c.want {
			t.Errorf("what-if note starts %q, want %q", got, c.want)
		}
	}
	if errs := b.Errors(); len(errs) > 0 {
		t.Errorf("page errors: %v", errs)
	}
}
