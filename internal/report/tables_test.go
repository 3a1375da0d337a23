package report_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/report/reporttest"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// The SQL operator table shows each operator's id, which findings cite
// ("query 26 operators 22, 24"), so that operators of the same name and
// figures are told apart; at 1,400 px the executor table fits and the
// stage table either fits or scrolls with its first column kept in view.
func TestReportTablesAt1400px(t *testing.T) {
	r, doc := readDoc(t, testkit.Events(t, "extra", "spark-rapids-tools", "spark-events-qualification", "nds_q88_photon_db_13_3.zstd"))
	ids := map[string]bool{}
	for _, ex := range r.SQL {
		for _, op := range ex.Operators {
			ids[fmt.Sprintf("%d/%d", ex.ExecutionID, op.ID)] = true
		}
	}
	page := writePage(t, doc)
	b := reporttest.New(t, 1400, 1000, 60*time.Second)
	b.Open(t, "file://"+page)
	var got struct {
		Head   []string   `json:"head"`
		Rows   [][]string `json:"rows"`
		Tables []struct {
			ID                        string
			ScrollWidth, ClientWidth  int
			OverflowX, FirstColumnPos string
		} `json:"tables"`
	}
	b.Eval(t, `(() => {
	  const sql = document.querySelector("#sql table");
	  return { head: [...sql.tHead.rows[0].cells].map(c => c.textContent),
	    rows: [...sql.tBodies[0].rows].map(r => [...r.cells].map(c => c.textContent)),
	    tables: ["stages", "executors"].map(id => { const w = document.querySelector("#" + id + " .tablewrap");
	      return { id, scrollWidth: w.scrollWidth, clientWidth: w.clientWidth, overflowX: getComputedStyle(w).overflowX,
	        firstColumnPos: getComputedStyle(w.querySelector("tbody td")).position }; }) }; })()`, &got)
	col := -1
	for i, h := range got.Head {
		if h == "Operator id" {
			col = i
		}
	}
	if col < 0 || len(got.Rows) == 0 {
		t.Fatalf("the SQL table has no operator id column: %q, %d rows", got.Head, len(got.Rows))
	}
	seen := map[string]bool{}
	for _, row := range got.Rows {
		key := row[0] + "/" + row[col]
		if !ids[key] || seen[key] {
			t.Errorf("SQL row %q: query/operator %s is not one of the document's, or shown twice", row, key)
		}
		seen[key] = true
	}
	for _, tb := range got.Tables {
		fits := tb.ScrollWidth <= tb.ClientWidth+1
		switch {
		case tb.ID == "executors" && !fits:
			t.Errorf("the executor table is %d px wide in %d px", tb.ScrollWidth, tb.ClientWidth)
		case !fits && (tb.OverflowX != "auto" || tb.FirstColumnPos != "sticky"):
			t.Errorf("the %s table is %d px wide in %d px and does not scroll with its first column in view (overflow %s, first column %s)",
				tb.ID, tb.ScrollWidth, tb.ClientWidth, tb.OverflowX, tb.FirstColumnPos)
		}
	}
	if errs := b.Errors(); len(errs) > 0 {
		t.Errorf("page errors: %v", errs)
	}
}
