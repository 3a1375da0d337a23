package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/trace"
	"strings"
	"sync"

	"github.com/alecthomas/kingpin/v2"

	"github.com/sparkglance/sparkglance/internal/appdoc"
	"github.com/sparkglance/sparkglance/internal/human"
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
	defer c.analyze.release()
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
	// Rendering a long application's page takes seconds: an interruption
	// does not wait for it.
	page, err := untilDone(ctx, func() (*bytes.Buffer, error) {
		var page bytes.Buffer
		return &page, renderPage(&page, &docs[0])
	})
	if ctx.Err() != nil {
		return &statusError{status: exitInterrupted, err: fmt.Errorf("interrupted while rendering the page of %s", docs[0].Log)}
	}
	if err != nil {
		return err
	}
	if out == "-" {
		_, err = c.analyze.out.Write(page.Bytes())
		return cmp.Or(err, status)
	}
	if err := writeFileAtomic(out, page.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(c.analyze.errOut, "sparkglance report: %s written\n", out)
	return status
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
	sink := &appdoc.Sink{
		Prepare: func(doc appdoc.Doc) (any, error) { return pages.write(&doc) },
		Emit: func(v any) error {
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
	// The part after reading, for execution traces of directory runs.
	defer trace.StartRegion(ctx, "report: index and comparisons").End()
	// The index lists the pages earlier runs left in the directory too:
	// replacing it with this run's pages only would hide them.
	earlier, err := earlierPages(dir, rows, c.analyze.errOut)
	if err != nil {
		return err
	}
	var index bytes.Buffer
	if err := report.WriteIndex(&index, report.Index{Title: "Spark applications", Apps: append(earlier, rows...), GroupByWorkload: true}); err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(dir, "index.html"), index.Bytes()); err != nil {
		return err
	}
	compares, err := writeComparePages(dir, rows)
	if err != nil {
		return err
	}
	if len(earlier) > 0 {
		fmt.Fprintf(c.analyze.errOut, "sparkglance report: %s and index.html in %s (the index also lists the %s already there)\n", human.Plural(len(rows), "page"), dir, human.Plural(len(earlier), "page"))
	} else {
		fmt.Fprintf(c.analyze.errOut, "sparkglance report: %s and index.html in %s\n", human.Plural(len(rows), "page"), dir)
	}
	if compares > 0 {
		fmt.Fprintf(c.analyze.errOut, "sparkglance report: %s of a regressed run with its baseline run\n", human.Plural(compares, "comparison"))
	}
	return status
}

// earlierPages returns the index rows of the glance pages in dir that this
// run did not write (rows), by file name. Other HTML files are not
// listed; a page that cannot be read is named on errOut and left out.
func earlierPages(dir string, rows []report.Summary, errOut io.Writer) ([]report.Summary, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("--output: %w", err)
	}
	written := map[string]bool{"index.html": true}
	for _, r := range rows {
		written[r.Href] = true
	}
	var earlier []report.Summary
	for _, e := range entries { // sorted by name
		name := e.Name()
		if written[name] || !e.Type().IsRegular() || filepath.Ext(name) != ".html" || strings.HasPrefix(name, ".") {
			continue
		}
		page, err := os.ReadFile(filepath.Join(dir, name))
		if err == nil {
			var row report.Summary
			if row, err = report.SummarizePage(page); err == nil {
				row.Href = name
				earlier = append(earlier, row)
				continue
			}
		}
		if !errors.Is(err, report.ErrNotPage) {
			fmt.Fprintf(errOut, "sparkglance report: %s: not in the index: %v\n", filepath.Join(dir, name), err)
		}
	}
	return earlier, nil
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

// writeFileAtomic writes b to a temporary file beside path, flushed to
// disk, and renames it to path: a full disk or any failure leaves path as
// it was (absent, or the previous version), never a truncated page.
func writeFileAtomic(path string, b []byte) error {
	dir, base := filepath.Split(path)
	var f *os.File
	var err error
	for i := 0; ; i++ {
		// O_EXCL with 0644 (less the umask), as os.WriteFile would create
		// it; CreateTemp's files are 0600.
		temp := filepath.Join(dir, fmt.Sprintf(".%s.%d-%d.tmp", base, os.Getpid(), i))
		f, err = os.OpenFile(temp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil || !errors.Is(err, fs.ErrExist) || i == 100 {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync() // a delayed allocation can fail only here
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("--output: %s: %w", path, err)
	}
	return nil
}
