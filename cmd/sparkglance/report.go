package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/alecthomas/kingpin/v2"

	"github.com/sparkglance/sparkglance/internal/appdoc"
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
	out := *c.out
	if out == "" {
		// kingpin's lexer turns a lone "-" argument into an empty value, so
		// "-o -" arrives here as "".
		out = "-"
	}
	if filepath.Ext(out) == ".html" || out == "-" {
		return c.writeOne(ctx, out)
	}
	return c.writeDir(ctx, out)
}

// writeOne writes the page of the only application attempt to a file or
// stdout.
func (c *reportCommand) writeOne(ctx context.Context, out string) error {
	docs, status, err := c.analyze.readAll(ctx, "report", nil)
	if err != nil || len(docs) == 0 {
		return cmp.Or(err, status)
	}
	if len(docs) != 1 {
		return fmt.Errorf("--output=%s names one page but the inputs hold %d application attempts: give a directory", out, len(docs))
	}
	var page bytes.Buffer
	if err := renderPage(&page, &docs[0]); err != nil {
		return err
	}
	if out == "-" {
		_, err = c.analyze.out.Write(page.Bytes())
	} else {
		err = writeFile(out, page.Bytes())
	}
	return cmp.Or(err, status)
}

// writeDir writes one page per application attempt into dir, and an index
// listing them in the order of the inputs. Each page is rendered and
// written by the worker that read its log, as soon as it is read, so no
// document waits for the others (the index needs only a summary row):
// written under a temporary name, it is renamed in the order of the inputs,
// which decides the names of two pages of the same attempt exactly as
// reading the logs one after the other does.
func (c *reportCommand) writeDir(ctx context.Context, dir string) error {
	pages := pageFiles{dir: dir, temps: map[string]bool{}}
	defer pages.removeTemps()
	var rows []report.Summary
	sink := &docSink{
		prepare: func(doc appdoc.Doc) (any, error) { return pages.write(&doc) },
		emit: func(v any) error {
			p := v.(writtenPage)
			row, err := pages.keep(p)
			rows = append(rows, row)
			return err
		},
	}
	_, status, err := c.analyze.readAll(ctx, "report", sink)
	if err != nil || len(rows) == 0 {
		return cmp.Or(err, status)
	}
	var index bytes.Buffer
	if err := report.WriteIndex(&index, report.Index{Title: "Spark applications", Apps: rows, GroupByWorkload: true}); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "index.html"), index.Bytes()); err != nil {
		return err
	}
	compares, err := writeComparePages(dir, rows)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.analyze.errOut, "sparkglance report: %d page(s) and index.html in %s\n", len(rows), dir)
	if compares > 0 {
		fmt.Fprintf(c.analyze.errOut, "sparkglance report: %d comparison(s) of a regressed run with its baseline run\n", compares)
	}
	return status
}

// pageFiles writes the pages of a report directory.
type pageFiles struct {
	dir      string
	mkdir    sync.Once
	mkdirErr error
	mu       sync.Mutex
	temps    map[string]bool // written, not renamed yet
	seq      int
	seen     map[string]int // final names given, in the order of the inputs
}

// writtenPage is a page written under a temporary name.
type writtenPage struct {
	temp, name string // name: the page's name before any suffix for a repeat
	row        report.Summary
}

// write renders doc's page and writes it under a temporary name.
func (f *pageFiles) write(doc *appdoc.Doc) (writtenPage, error) {
	f.mkdir.Do(func() {
		if err := os.MkdirAll(f.dir, 0o755); err != nil {
			f.mkdirErr = fmt.Errorf("--output: %w", err)
		}
	})
	if f.mkdirErr != nil {
		return writtenPage{}, f.mkdirErr
	}
	page := pageBuffers.Get().(*bytes.Buffer)
	defer pageBuffers.Put(page)
	page.Reset()
	if err := renderPage(page, doc); err != nil {
		return writtenPage{}, err
	}
	f.mu.Lock()
	f.seq++
	temp := filepath.Join(f.dir, fmt.Sprintf(".sparkglance-page-%d.tmp", f.seq))
	f.temps[temp] = true
	f.mu.Unlock()
	if err := writeFile(temp, page.Bytes()); err != nil {
		return writtenPage{}, err
	}
	return writtenPage{temp: temp, name: report.FileName(doc.AppID, doc.AttemptID), row: report.Summarize(&doc.Report)}, nil
}

// keep gives a written page its final name, in the order of the inputs: a
// second page of the same attempt (two logs of it) is kept as name-2.html.
func (f *pageFiles) keep(p writtenPage) (report.Summary, error) {
	if f.seen == nil {
		f.seen = map[string]int{}
	}
	name := p.name
	if n := f.seen[p.name]; n > 0 {
		name = fmt.Sprintf("%s-%d.html", strings.TrimSuffix(name, ".html"), n+1)
	}
	f.seen[p.name]++
	if err := os.Rename(p.temp, filepath.Join(f.dir, name)); err != nil {
		return report.Summary{}, fmt.Errorf("--output: %w", err)
	}
	f.mu.Lock()
	delete(f.temps, p.temp)
	f.mu.Unlock()
	p.row.Href = name
	return p.row, nil
}

// removeTemps removes the pages written but never kept (the command
// stopped early: interrupted, or a write failed).
func (f *pageFiles) removeTemps() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for temp := range f.temps {
		os.Remove(temp)
	}
}

// renderPage writes to page the page embedding the document analyze
// --json would print.
func renderPage(page *bytes.Buffer, d *appdoc.Doc) error {
	doc := pageBuffers.Get().(*bytes.Buffer)
	defer pageBuffers.Put(doc)
	doc.Reset()
	if err := json.NewEncoder(doc).Encode(d); err != nil {
		return err
	}
	if err := report.WritePage(page, report.Page{Doc: doc.Bytes()}); err != nil {
		return fmt.Errorf("%s: %w", d.Log, err)
	}
	return nil
}

// pageBuffers keep the buffers pages and their documents are rendered in
// (a few hundred kB each) from one page to the next: writing a directory
// of small applications' pages otherwise makes most of the garbage.
var pageBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func writeFile(path string, b []byte) error {
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	return nil
}
