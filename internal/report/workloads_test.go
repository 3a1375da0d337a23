package report_test

import (
	"bytes"
	"github.com/sparkglance/sparkglance/internal/workload/workloadtest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/report"
)

// seriesRows are the index rows of the generator's ten runs of one
// nightly job (the eighth regressed), in an order a directory may list
// them, plus a run of another job.
func seriesRows(t *testing.T) []report.Summary {
	t.Helper()
	var rows []report.Summary
	for _, rep := range workloadtest.Reports(t, 10) {
		row := report.Summarize(&rep)
		row.Href = report.FileName(rep.AppID, rep.AttemptID)
		rows = append(rows, row)
	}
	slices.Reverse(rows) // newest first: the grouping orders runs by start, not by input
	return rows
}

// report DIR's index groups the runs by workload: each workload under a
// heading with its runs, status, regressed measures and trend, its runs
// newest first with their status against the runs before them; the
// regressed run is marked and links its page.
func TestIndexGroupsRunsByWorkload(t *testing.T) {
	rows := seriesRows(t)
	var b bytes.Buffer
	if err := report.WriteIndex(&b, report.Index{Title: "Spark applications", Apps: rows, GroupByWorkload: true}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	heads := regexp.MustCompile(`<tr class="ghead" data-workload="([^"]+)">.*?(\d+) runs? · <span class="badge ([a-z_]+)">`).FindAllStringSubmatch(page, -1)
	if len(heads) != 2 || heads[0][1] != "hourly clicks" || heads[0][2] != "1" || heads[0][3] != "no_baseline" ||
		heads[1][1] != "nightly sales rollup &lt;date&gt;" || heads[1][2] != "10" || heads[1][3] != "ok" {
		t.Fatalf("workload headings %q", heads)
	}
	var statuses []string
	for _, m := range regexp.MustCompile(`<td data-status="([a-z_]*)">`).FindAllStringSubmatch(page, -1) {
		statuses = append(statuses, m[1])
	}
	want := []string{"no_baseline", "ok", "explained_by_input", "regressed", "ok", "ok", "ok", "ok", "no_baseline", "no_baseline", "no_baseline"}
	if !slices.Equal(statuses, want) {
		t.Errorf("run statuses %q, want %q", statuses, want)
	}
	regressed := regexp.MustCompile(`(?s)<tr class="regressed">.*?<a href="([^"]+)">`).FindAllStringSubmatch(page, -1)
	if len(regressed) != 1 || regressed[0][1] != "app-20261108020000-0008.html" {
		t.Errorf("regressed rows %q", regressed)
	}
	for _, m := range []string{"wall time", "core hours", "cost"} {
		if !strings.Contains(page, `<span class="badge regressed">`+m+`</span>`) {
			t.Errorf("no %s regression mark", m)
		}
	}
	if n := strings.Count(page, `<svg class="spark"`); n != 2 { // the nightly job's; the other has one run
		t.Errorf("%d sparklines, want 2", n)
	}

	// Without grouping (the live /apps list) the index is the flat table.
	b.Reset()
	if err := report.WriteIndex(&b, report.Index{Title: "Spark applications", Apps: rows}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `class="ghead"`) || strings.Count(b.String(), "open the glance") != len(rows) {
		t.Error("the flat index shows workload groups")
	}
}
