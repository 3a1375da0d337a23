package glanceweb_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sparkglance/sparkglance/internal/glanceweb"
	"github.com/sparkglance/sparkglance/internal/report"
	"github.com/sparkglance/sparkglance/internal/report/reporttest"
	"github.com/sparkglance/sparkglance/internal/simulate"
	"github.com/sparkglance/sparkglance/internal/workload"
	"github.com/sparkglance/sparkglance/internal/workload/workloadtest"
)

const seriesKey = workloadtest.SeriesKey

// seriesHistory is a history holding the generator's workload series of
// ten runs (the eighth regressed), and a second steady workload.
func seriesHistory(t testing.TB) *workload.History {
	t.Helper()
	h := workload.NewHistory(workload.HistoryOptions{})
	for _, rep := range workloadtest.Reports(t, 10) {
		h.Add(workload.Summarize(&rep))
	}
	return h
}

func serveWorkloads(t testing.TB, h *workload.History) string {
	mux := http.NewServeMux()
	for _, r := range glanceweb.WorkloadRoutes(h, nil) {
		mux.Handle(r.Pattern, r.Handler)
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

func getJSON(t testing.TB, u string, want int, out any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("GET %s: %d %s, want %d", u, resp.StatusCode, b, want)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("GET %s: %v", u, err)
		}
	}
}

// The JSON API lists the workloads with their latest run and trend, gives
// each workload's runs judged one by one, and each run's comparison with
// its baseline run.
func TestWorkloadsAPI(t *testing.T) {
	base := serveWorkloads(t, seriesHistory(t))
	type entry struct {
		Workload  string
		Status    string
		Runs      int
		Regressed []string
		Latest    struct{ AppID string }
		Trend     struct{ WallTime, Efficiency []float64 }
		Page, Doc string
	}
	var list []entry
	getJSON(t, base+"/api/v1/workloads", 200, &list)
	if len(list) != 2 || list[1].Workload != seriesKey || list[1].Runs != 10 || list[1].Status != "ok" || len(list[1].Regressed) != 0 ||
		len(list[1].Trend.WallTime) != 10 || list[1].Latest.AppID != "app-20261110020000-0010" {
		t.Fatalf("list: %+v", list)
	}
	if list[0].Workload != "hourly clicks" || list[0].Status != "no_baseline" {
		t.Errorf("the other workload: %+v", list[0])
	}
	var wl report.Workload
	getJSON(t, base+list[1].Doc, 200, &wl)
	var statuses []string
	for _, r := range wl.Runs {
		statuses = append(statuses, r.Status)
	}
	want := []string{"no_baseline", "no_baseline", "no_baseline", "ok", "ok", "ok", "ok", "regressed", "explained_by_input", "ok"}
	if !slices.Equal(statuses, want) {
		t.Errorf("statuses %q, want %q", statuses, want)
	}
	slow := wl.Runs[7]
	if !slices.Equal(slow.Regressed, []string{"wall_time", "core_hours", "cost"}) || slow.Compare == "" || slow.Page != "/apps/"+slow.AppID {
		t.Fatalf("regressed run: %+v", slow)
	}
	var cmp workload.Comparison
	getJSON(t, base+slow.Compare, 200, &cmp)
	if cmp.New.AppID != slow.AppID || cmp.Base.ID() != slow.BaselineRun || len(cmp.Stages) == 0 || cmp.Stages[0].Key != simulate.WorkloadSlowStage {
		t.Errorf("comparison of %s: base %s, first stage %+v", slow.AppID, cmp.Base.ID(), cmp.Stages)
	}
	getJSON(t, base+"/api/v1/workloads/"+url.PathEscape("no such job"), 404, nil)
	getJSON(t, base+"/api/v1/workloads/"+url.PathEscape(seriesKey)+"/compare/"+wl.Runs[0].AppID, 404, nil) // no baseline yet
}

// The pages open with no console error and no request beyond the server;
// /workloads shows each workload's status, runs and regressed measures as
// the JSON says, and /workloads/{key} draws four charts of every run and a
// table whose values are the JSON's.
func TestWorkloadPagesInBrowser(t *testing.T) {
	base := serveWorkloads(t, seriesHistory(t))
	b := reporttest.New(t, 1300, 1000, 90*time.Second)
	open(t, b, base+"/workloads", `document.querySelectorAll("#workloads tbody tr").length > 0`)
	var rows []struct {
		Workload, Status, Regressed string
		Runs                        string
	}
	b.Eval(t, `[...document.querySelectorAll("#workloads tbody tr")].map(tr => ({workload: tr.dataset.workload,
	  status: tr.cells[2].dataset.status, runs: tr.cells[3].dataset.value, regressed: tr.cells[8].dataset.regressed}))`, &rows)
	if len(rows) != 2 || rows[1].Workload != seriesKey || rows[1].Status != "ok" || rows[1].Runs != "10" || rows[1].Regressed != "" {
		t.Errorf("rows %+v", rows)
	}
	shot(t, b, "workloads.png")
	var wl report.Workload
	getJSON(t, base+"/api/v1/workloads/"+url.PathEscape(seriesKey), 200, &wl)

	open(t, b, base+"/workloads/"+url.PathEscape(seriesKey), `document.querySelectorAll(".chart .uplot").length === 4 && document.querySelectorAll("#runs tbody tr").length > 0`)
	shot(t, b, "workload.png")
	var charts []int
	b.Eval(t, `[...document.querySelectorAll(".chart .uplot")].map(u => u.querySelectorAll(".u-over").length)`, &charts)
	if len(charts) != 4 {
		t.Fatalf("%d charts, want 4", len(charts))
	}
	var table []struct {
		Run, Status string
		Values      []string
	}
	b.Eval(t, `[...document.querySelectorAll("#runs tbody tr")].map(tr => ({run: tr.dataset.run, status: tr.cells[2].dataset.value,
	  values: [3, 4, 5, 6, 7].map(i => tr.cells[i].dataset.value)}))`, &table)
	if len(table) != len(wl.Runs) {
		t.Fatalf("%d rows, want %d", len(table), len(wl.Runs))
	}
	for i, row := range table {
		r := wl.Runs[len(wl.Runs)-1-i] // newest first
		if row.Run != r.AppID || row.Status != r.Status {
			t.Errorf("row %d: %s %s, want %s %s", i, row.Run, row.Status, r.AppID, r.Status)
		}
		for j, m := range []string{"wall_time", "efficiency", "core_hours", "cost"} {
			if got, want := row.Values[j], jsNumber(r.Value(m)); got != want {
				t.Errorf("row %d %s: %s, want %s", i, m, got, want)
			}
		}
		if want := jsNumber(r.Ratios["wall_time"]); r.Ratios != nil && row.Values[4] != want {
			t.Errorf("row %d wall-time ratio %s, want %s", i, row.Values[4], want)
		}
	}
	if errs := b.Errors(); len(errs) > 0 {
		t.Errorf("page errors: %v", errs)
	}
	for _, u := range b.Requests() {
		if !strings.HasPrefix(u, base+"/") {
			t.Errorf("the page requested %s", u)
		}
	}
}

// shot writes the page's screenshot to $SPARKGLANCE_SCREENSHOTS/name
// (make screenshots), if set.
func shot(t testing.TB, b *reporttest.Browser, name string) {
	t.Helper()
	if dir := os.Getenv("SPARKGLANCE_SCREENSHOTS"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, name), b.Screenshot(t), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// open navigates to u and waits until ready is true.
func open(t testing.TB, b *reporttest.Browser, u, ready string) {
	t.Helper()
	if err := chromedp.Run(b.Ctx, chromedp.Navigate(u), chromedp.Poll(ready, nil, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("opening %s: %v (page errors: %v)", u, err, b.Errors())
	}
}

// jsNumber is how JavaScript prints a float64 (shortest round-trip form).
func jsNumber(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}
