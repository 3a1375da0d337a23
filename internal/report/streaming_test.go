package report_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/report/reporttest"
	"github.com/sparkglance/sparkglance/internal/simulate"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// streamingDoc analyses a small simulated application with the streaming
// mode on: one query falling behind, one healthy.
func streamingDoc(t *testing.T) (analysis.Report, []byte) {
	t.Helper()
	cfg := simulate.DefaultConfig()
	cfg.Executors, cfg.CoresPerExecutor, cfg.TasksPerStage, cfg.StreamingBatches = 2, 2, 8, 10
	var log bytes.Buffer
	if _, err := simulate.Write(&log, cfg); err != nil {
		t.Fatal(err)
	}
	app := analysis.New(analysis.DefaultConfig())
	for i, line := range bytes.Split(bytes.TrimSpace(log.Bytes()), []byte("\n")) {
		ev, err := sparkevent.DecodeLine(line)
		if err != nil {
			t.Fatalf("simulated line %d: %v", i+1, err)
		}
		app.Add(ev)
	}
	r := app.Report()
	doc, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return r, doc
}

// The streaming section lists every query with its latest batch and draws
// one chart per query whose series are the batches' durations, trigger
// interval and rates; the finding names its query.
func TestStreamingSection(t *testing.T) {
	r, doc := streamingDoc(t)
	page := writePage(t, doc)
	b := reporttest.New(t, 1300, 1000, 90*time.Second)
	b.Open(t, "file://"+page)
	var got struct {
		Rows     []string      `json:"rows"`
		Charts   int           `json:"charts"`
		Series   [][][]float64 `json:"series"`
		Findings string        `json:"findings"`
	}
	b.Eval(t, `(() => { const el = document.getElementById("streaming");
	  return { rows: [...el.querySelectorAll("tbody tr")].map(tr => tr.cells[0].textContent + "|" + tr.cells[2].textContent + "|" + tr.cells[8].textContent),
	    charts: el.querySelectorAll(".streaming-chart .uplot").length,
	    series: (el._charts || []).map(c => c.data.slice(1).map(s => s.map(v => v == null ? -1 : v))),
	    findings: document.getElementById("findings").textContent }; })()`, &got)
	if len(got.Rows) != 2 || got.Rows[0] != simulate.StreamingSlowQuery+"|10|7 in a row" || got.Rows[1] != simulate.StreamingHealthyQuery+"|10|0 of 10" {
		t.Errorf("table rows %q", got.Rows)
	}
	if got.Charts != 2 || len(got.Series) != 2 {
		t.Fatalf("%d charts, %d with data; want 2", got.Charts, len(got.Series))
	}
	for i, q := range r.Streaming {
		s := got.Series[i]
		for j, bt := range q.Recent {
			want := []float64{bt.DurationSeconds, q.TriggerIntervalSeconds, -1, *bt.ProcessedRowsPerSecond}
			if bt.InputRowsPerSecond != nil {
				want[2] = *bt.InputRowsPerSecond
			}
			for k, w := range want {
				if s[k][j] != w {
					t.Errorf("query %s batch %d series %d: %v, want %v", q.Name, bt.BatchID, k, s[k][j], w)
				}
			}
		}
	}
	if !bytes.Contains([]byte(got.Findings), []byte("streaming query "+simulate.StreamingSlowQuery)) {
		t.Errorf("findings do not name the query: %q", got.Findings)
	}
	if errs := b.Errors(); len(errs) > 0 {
		t.Errorf("page errors: %v", errs)
	}
}
