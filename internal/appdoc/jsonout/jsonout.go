// Package jsonout writes the JSON output of `analyze --json`: one array of
// application documents (internal/appdoc), each encoded by the worker that
// read it, byte for byte what encoding/json's indented encoder writes for
// the whole array. One log's document is written as soon as it is read (a
// big one as it is encoded, never held). With several logs the documents
// wait in a temporary file (spool.go) for each run's workload comparison,
// which needs the runs of its workload that started before it, whichever
// input holds them.
package jsonout

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"runtime/trace"

	"github.com/sparkglance/sparkglance/internal/appdoc"
	"github.com/sparkglance/sparkglance/internal/jsonindent"
	"github.com/sparkglance/sparkglance/internal/workload"
)

// Writer writes the array of documents given to its Sink.
type Writer struct {
	out   jsonArrayWriter
	o     workload.Options
	spool *workloadSpool // nil while one log is read: nothing to compare it with
}

// New returns a Writer to w judging workload runs by o.
func New(w io.Writer, o workload.Options) *Writer {
	return &Writer{out: jsonArrayWriter{w: bufio.NewWriterSize(w, 1<<16)}, o: o}
}

// Sink is what appdoc.ReadAll gives the documents to; ctx interrupts the
// encoding.
func (w *Writer) Sink(ctx context.Context) *appdoc.Sink {
	return &appdoc.Sink{
		Start: func(logs int) (err error) {
			if logs > 1 {
				w.spool, err = newWorkloadSpool()
			}
			return err
		},
		Prepare: func(doc appdoc.Doc) (any, error) {
			switch {
			case w.spool != nil:
				return spoolDoc(ctx, doc)
			case bigDoc(&doc):
				return doc, nil // written as it is encoded, when its turn comes
			}
			return encodeElement(ctx, doc)
		},
		Emit: func(elem any) error {
			switch elem := elem.(type) {
			case spooledDoc:
				return w.spool.add(elem)
			case appdoc.Doc:
				return w.out.stream(ctx, &elem)
			}
			return w.out.add(elem.([]byte))
		},
	}
}

// Close writes the documents the spool holds, with their workload
// comparisons, and ends the array.
func (w *Writer) Close() error {
	// The part after reading, for execution traces of directory runs.
	defer trace.StartRegion(context.Background(), "jsonout: judge and write").End()
	if w.spool != nil {
		if err := w.spool.writeTo(&w.out, w.o); err != nil {
			return err
		}
	}
	return w.out.close()
}

// Abort removes the spool after reading failed; nothing more is written.
func (w *Writer) Abort() {
	if w.spool != nil {
		w.spool.close()
	}
}

// The JSON output is one array of every application's document. Encoding
// it is a large part of the work for many small logs, so each document is
// encoded by the worker that read it (encodeElement, indented as an element
// of the array). With one log it is written as soon as it is read; with
// more, it is held, encoded, in a temporary file until every input is read
// (a run's workload comparison needs the runs of its workload that started
// before it, spool.go). The bytes are those of encoding the
// whole array with an indent of two spaces. A big document (a million
// executors make 1.5 GB of JSON) of a single log is not held encoded: it
// is written as it is encoded.
func encodeElement(ctx context.Context, doc appdoc.Doc) ([]byte, error) {
	var b bytes.Buffer
	if err := jsonindent.Write(ctx, &b, doc, elemPrefix, elemIndent); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// The indentation of an element of the output array.
const elemPrefix, elemIndent = "  ", "  "

// bigDocRows is how many rows (intervals, executors, executors of each
// stage) make a document big enough to write as it is encoded.
const bigDocRows = 100_000

func bigDoc(doc *appdoc.Doc) bool {
	rows := len(doc.Intervals) + len(doc.Executors)
	for i := range doc.Stages {
		rows += len(doc.Stages[i].ExecutorSummary)
	}
	return rows >= bigDocRows
}

// jsonArrayWriter writes the elements encodeElement made as one array.
type jsonArrayWriter struct {
	w *bufio.Writer
	n int
}

func (a *jsonArrayWriter) add(elem []byte) error {
	sep := ",\n  "
	if a.n == 0 {
		sep = "[\n  "
	}
	a.n++
	a.w.WriteString(sep)
	_, err := a.w.Write(elem)
	return err
}

// stream writes doc as the next element, encoding it as it goes.
func (a *jsonArrayWriter) stream(ctx context.Context, doc *appdoc.Doc) error {
	if err := a.add(nil); err != nil {
		return err
	}
	return jsonindent.Write(ctx, a.w, doc, elemPrefix, elemIndent)
}

func (a *jsonArrayWriter) close() error {
	if a.n == 0 {
		a.w.WriteString("[]\n")
	} else {
		a.w.WriteString("\n]\n")
	}
	return a.w.Flush()
}
