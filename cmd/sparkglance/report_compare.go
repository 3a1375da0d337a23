package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sparkglance/sparkglance/internal/report"
	"github.com/sparkglance/sparkglance/internal/workload"
)

// writeComparePages writes, into a report directory, the comparison page
// of each regressed run with its baseline's run closest to the median (the
// index links them), from the two runs' documents embedded in their pages:
// no log is read again and no analysis is kept while the directory is read.
func writeComparePages(dir string, rows []report.Summary) (int, error) {
	n := 0
	for _, p := range report.RegressedPairs(rows) {
		base, err := embeddedDoc(filepath.Join(dir, p.Base.Href))
		if err != nil {
			return n, err
		}
		nw, err := embeddedDoc(filepath.Join(dir, p.New.Href))
		if err != nil {
			return n, err
		}
		doc, err := json.Marshal(struct {
			Comparison compareDocument `json:"comparison"`
			Base       json.RawMessage `json:"baseDoc"`
			New        json.RawMessage `json:"newDoc"`
		}{compareDocument{Workload: p.Workload, Comparison: workload.Compare(p.Base.Run, p.New.Run)}, base, nw})
		if err != nil {
			return n, err
		}
		var page bytes.Buffer
		if err := report.WriteCompare(&page, report.ComparePage{Doc: doc,
			Title: fmt.Sprintf("%s: %s vs %s", p.Workload, p.Base.Run.ID(), p.New.Run.ID())}); err != nil {
			return n, err
		}
		if err := writeFile(filepath.Join(dir, p.File), page.Bytes()); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// embeddedDoc is the analysis document a glance page embeds.
func embeddedDoc(page string) (json.RawMessage, error) {
	b, err := os.ReadFile(page)
	if err != nil {
		return nil, fmt.Errorf("--output: %w", err)
	}
	const open, end = `<script id="glance-doc" type="application/json">`, `</script>`
	i := bytes.Index(b, []byte(open))
	if i < 0 {
		return nil, fmt.Errorf("%s: no embedded document", page)
	}
	b = b[i+len(open):]
	j := bytes.Index(b, []byte(end))
	if j < 0 || !json.Valid(b[:j]) {
		return nil, fmt.Errorf("%s: the embedded document is not JSON", page)
	}
	return json.RawMessage(b[:j]), nil
}
