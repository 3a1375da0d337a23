package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/sparkglance/sparkglance/internal/inorder"
	"github.com/sparkglance/sparkglance/internal/report"
	"github.com/sparkglance/sparkglance/internal/workload"
)

// writeComparePages writes, into a report directory, the comparison page
// of each regressed run with its baseline's run closest to the median (the
// index links them), from the two runs' documents embedded in their pages:
// no log is read again and no analysis is kept while the directory is read.
// The pages are written on every core (each pair's two documents read
// back, validated and encoded again: 7% of the CPU of a report of 200 real
// logs); the first error in their order stops it (a page after it may
// be written already).
func writeComparePages(dir string, rows []report.Summary) (int, error) {
	pairs := report.RegressedPairs(rows)
	workers := runtime.GOMAXPROCS(0)
	n := 0
	var failed error
	inorder.Each(len(pairs), workers, workers, func(i int) error {
		return writeComparePage(dir, &pairs[i])
	}, func(_ int, err error) bool {
		if failed = err; err == nil {
			n++
		}
		return err == nil
	})
	return n, failed
}

// writeComparePage writes the comparison page of one regressed run.
func writeComparePage(dir string, p *report.RegressedPair) error {
	base, err := embeddedDoc(filepath.Join(dir, p.Base.Href))
	if err != nil {
		return err
	}
	nw, err := embeddedDoc(filepath.Join(dir, p.New.Href))
	if err != nil {
		return err
	}
	doc, err := json.Marshal(struct {
		Comparison compareDocument `json:"comparison"`
		Base       json.RawMessage `json:"baseDoc"`
		New        json.RawMessage `json:"newDoc"`
	}{compareDocument{Workload: p.Workload, Comparison: workload.Compare(p.Base.Run, p.New.Run)}, base, nw})
	if err != nil {
		return err
	}
	var page bytes.Buffer
	if err := report.WriteCompare(&page, report.ComparePage{Doc: doc,
		Title: fmt.Sprintf("%s: %s vs %s", p.Workload, p.Base.Run.ID(), p.New.Run.ID())}); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, p.File), page.Bytes())
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
