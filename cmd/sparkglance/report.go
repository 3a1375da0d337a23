package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/alecthomas/kingpin/v2"

	"github.com/sparkglance/sparkglance/internal/appdoc"
	"github.com/sparkglance/sparkglance/internal/inorder"
	"github.com/sparkglance/sparkglance/internal/report"
)

// reportCommand writes the glance: one self-contained HTML page per
// application attempt, plus an index when there are several.
type reportCommand struct {
	analyze *analyzeCommand // the inputs and analysis flags, exactly as analyze's
	out     *string
}

func newReportCommand(cmd *kingpin.CmdClause) *reportCommand {
	c := &reportCommand{analyze: newAnalyzeCommand(cmd)}
	// The page always carries the JSON document; --json means nothing here.
	if f := cmd.GetFlag("json"); f != nil {
		f.Hidden()
	}
	c.out = cmd.Flag("output", `Where to write: a directory (pages and index.html), an .html file when there is one application, or "-" for stdout.`).
		Short('o').Default("sparkglance-report").String()
	return c
}

func (c *reportCommand) run(ctx context.Context) error {
	docs, status, err := c.analyze.readAll(ctx, "report", nil)
	if err != nil {
		return err
	}
	if len(docs) > 0 {
		if err := c.write(docs); err != nil {
			return err
		}
	}
	return status
}

// write puts one page per document where --output says.
func (c *reportCommand) write(docs []appdoc.Doc) error {
	out := *c.out
	if out == "" {
		// kingpin's lexer turns a lone "-" argument into an empty value, so
		// "-o -" arrives here as "".
		out = "-"
	}
	single := filepath.Ext(out) == ".html" || out == "-"
	if single && len(docs) != 1 {
		return fmt.Errorf("--output=%s names one page but the inputs hold %d application attempts: give a directory", out, len(docs))
	}
	if single {
		page, err := renderPage(&docs[0])
		if err != nil {
			return err
		}
		if out == "-" {
			_, err = c.analyze.out.Write(page)
			return err
		}
		return writeFile(out, page)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	names := make([]string, len(docs))
	seen := map[string]int{}
	for i := range docs {
		d := &docs[i]
		name := report.FileName(d.AppID, d.AttemptID)
		if n := seen[name]; n > 0 { // two logs of the same attempt: keep both pages
			name = fmt.Sprintf("%s-%d.html", name[:len(name)-len(".html")], n+1)
		}
		seen[report.FileName(d.AppID, d.AttemptID)]++
		names[i] = name
	}
	// Pages are rendered and written on the same pool as the reading (each
	// to its own file: writing is copying into the page cache, CPU work
	// like the rendering); the index lists them in the order of the
	// inputs, and the first failure in that order is the one reported.
	workers, err := c.analyze.workers()
	if err != nil {
		return err
	}
	type written struct {
		row report.Summary
		err error
	}
	render := func(i int) written {
		d := &docs[i]
		page, err := renderPage(d)
		if err == nil {
			err = writeFile(filepath.Join(out, names[i]), page)
		}
		if err != nil {
			return written{err: err}
		}
		row := report.Summarize(&d.Report)
		row.Href = names[i]
		return written{row: row}
	}
	rows := make([]report.Summary, 0, len(docs))
	var failed error
	inorder.Each(len(docs), workers, 0, render, func(i int, r written) bool {
		if r.err != nil {
			failed = r.err
			return false
		}
		rows = append(rows, r.row)
		return true
	})
	if failed != nil {
		return failed
	}
	var index bytes.Buffer
	if err := report.WriteIndex(&index, report.Index{Title: "Spark applications", Apps: rows}); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(out, "index.html"), index.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(c.analyze.errOut, "sparkglance report: %d page(s) and index.html in %s\n", len(docs), out)
	return nil
}

// renderPage embeds the document analyze --json would print.
func renderPage(d *appdoc.Doc) ([]byte, error) {
	doc, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := report.WritePage(&buf, report.Page{Doc: doc}); err != nil {
		return nil, fmt.Errorf("%s: %w", d.Log, err)
	}
	return buf.Bytes(), nil
}

func writeFile(path string, b []byte) error {
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	return nil
}
