// Package appdoc builds the per-application document: one application
// attempt's analysis together with what reading its event log met. `analyze
// --json`, the `report` command and the exporter's JSON API all write this
// same document, so a consumer can read any of them with one schema.
// ReadAll and ReadLogs are the one reading pipeline of the commands that
// read logs once (analyze, report, compare, backfill).
package appdoc

import (
	"context"
	"fmt"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/sparklog"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// MaxProblems bounds the problems kept per application: a log that is
// garbage from end to end must not make the document as big as itself.
const MaxProblems = 1000

// ctxCheckEvents is how many events are read between two looks at the
// context: often enough to stop within a fraction of a second, rarely
// enough to cost nothing measurable.
const ctxCheckEvents = 256

// Doc is one application attempt: the analysis plus what reading the log
// met. Its JSON form is the per-application document.
type Doc struct {
	analysis.Report
	Log             string             `json:"log"`
	Lines           int64              `json:"lines"`
	Events          map[string]int64   `json:"events"`
	Problems        []sparklog.Problem `json:"problems"`
	ProblemsOmitted int64              `json:"problemsOmitted,omitempty"`
	// User is who ran the application (its ApplicationStart's user), for
	// the series that carry it (backfill's spark_app_info); the document
	// leaves it out.
	User string `json:"-"`
}

// Read reads one application attempt's log to its end through the analysis
// engine. progress, if not nil, gets the reader's progress reports. When ctx
// ends, reading stops and Read returns an error wrapping ctx.Err().
func Read(ctx context.Context, l sparklog.Log, cfg analysis.Config, progress func(sparklog.Progress)) (Doc, error) {
	return read(ctx, l, cfg, progress, 0)
}

// read is Read with decodeWorkers goroutines decoding the log's lines
// (sparklog.Options.DecodeWorkers: 0 lets the reader choose).
func read(ctx context.Context, l sparklog.Log, cfg analysis.Config, progress func(sparklog.Progress), decodeWorkers int) (Doc, error) {
	cfg.NoExecutorTaskSums = true // the document does not carry them
	app := analysis.New(cfg)
	doc := Doc{Log: l.Path, Problems: []sparklog.Problem{}}
	var seen int
	h := sparklog.HandlerFuncs{
		OnEvent: func(pos sparklog.Position, ev sparkevent.Event) error {
			seen++
			if seen%ctxCheckEvents == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if s, ok := ev.(*sparkevent.ApplicationStart); ok {
				doc.User = s.User
			}
			app.AddAt(pos, ev)
			return nil
		},
		OnProblem: doc.Keep,
	}
	if err := ctx.Err(); err != nil {
		return doc, fmt.Errorf("%s: %w", l.Path, err)
	}
	stats, err := sparklog.ReadContext(ctx, l, h, sparklog.Options{OnProgress: progress, SQLUpdatesOnly: true, DecodeWorkers: decodeWorkers})
	if err != nil {
		return doc, fmt.Errorf("%s: %w", l.Path, err)
	}
	if doc.Report, err = app.ReportContext(ctx); err != nil {
		return doc, fmt.Errorf("%s: %w", l.Path, err)
	}
	doc.Lines = stats.Lines
	doc.Events = stats.ByType
	if doc.Events == nil {
		doc.Events = map[string]int64{}
	}
	return doc, nil
}

// Keep adds a reading problem to the document: the first MaxProblems are
// listed, the rest only counted in ProblemsOmitted, so that a log damaged
// from end to end cannot make the document as big as itself.
func (d *Doc) Keep(p sparklog.Problem) {
	if len(d.Problems) < MaxProblems {
		d.Problems = append(d.Problems, p)
	} else {
		d.ProblemsOmitted++
	}
}
