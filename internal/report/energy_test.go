package report_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/report/reporttest"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// The header shows the document's energy and CO2e, and the stage table's
// Energy column each attempt's energy from the document.
func TestReportEnergy(t *testing.T) {
	r, doc := readDoc(t, testkit.Events(t, "application_1628109047826_1317105"))
	e := r.Energy
	if e == nil || !r.CPUTimeAvailable || len(e.Stages) == 0 {
		t.Fatalf("the log should have CPU time and stage energy: %+v", e)
	}
	page := writePage(t, doc)
	b := reporttest.New(t, 1300, 1000, 60*time.Second)
	b.Open(t, "file://"+page)
	var got struct {
		Energy string            `json:"energy"`
		Carbon string            `json:"carbon"`
		Rows   map[string]string `json:"rows"`
	}
	b.Eval(t, `(() => { const rows = {};
	  const t = document.getElementById("stages"), heads = [...t.querySelectorAll("thead th")].map(h => h.textContent.trim());
	  const col = heads.findIndex(h => h.startsWith("Energy"));
	  for (const r of t.querySelectorAll("tbody tr")) rows[r.cells[0].textContent + "." + r.cells[1].textContent] = col < 0 ? "" : r.cells[col].textContent;
	  return { energy: document.querySelector("#kpi-energy b").textContent, carbon: document.querySelector("#kpi-carbon b").textContent, rows }; })()`, &got)
	if want := jsPrecision3(e.WattHours) + " Wh"; got.Energy != want {
		t.Errorf("energy KPI %q, want %q", got.Energy, want)
	}
	if want := jsPrecision3(e.CarbonGrams) + " g"; got.Carbon != want {
		t.Errorf("carbon KPI %q, want %q", got.Carbon, want)
	}
	for _, s := range e.Stages {
		k := fmt.Sprintf("%d.%d", s.StageID, s.AttemptID)
		if want := jsPrecision3(s.Joules/3600) + " Wh"; got.Rows[k] != want {
			t.Errorf("stage %s energy %q, want %q", k, got.Rows[k], want)
		}
	}
	if errs := b.Errors(); len(errs) > 0 {
		t.Errorf("page errors: %v", errs)
	}
}

// jsPrecision3 is JavaScript's x.toPrecision(3) for the small values here.
func jsPrecision3(x float64) string {
	if x == 0 {
		return "0.00"
	}
	s := strconv.FormatFloat(x, 'g', 3, 64)
	if f, err := strconv.ParseFloat(s, 64); err == nil && x >= 1e-6 && x < 1e21 {
		// toPrecision never uses an exponent in this range and keeps trailing zeros.
		digits := 3 - 1 - int(floorLog10(f))
		return strconv.FormatFloat(f, 'f', max(digits, 0), 64)
	}
	return s
}

func floorLog10(x float64) float64 {
	n := 0.0
	for x >= 10 {
		x /= 10
		n++
	}
	for x < 1 {
		x *= 10
		n--
	}
	return n
}
