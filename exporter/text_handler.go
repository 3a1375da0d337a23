package exporter

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// gather runs one scrape for the text path: FamilyCollectors' families
// come back as they are, to be written from their parts' cached text.
func (e *Exporter) gather(ctx context.Context) (gathered, error) {
	s := &scrape{ctx: ctx, collectors: e.collectors, logger: e.logger}
	reg := prometheus.NewRegistry()
	reg.MustRegister(s)
	mfs, err := prometheus.Gatherers{e.self, reg}.Gather()
	g, mergeErr := separate(mfs, s.collected())
	return g, errors.Join(err, mergeErr)
}

// hasFamilyCollector reports whether the text fast path has anything to do.
func (e *Exporter) hasFamilyCollector() bool {
	for _, nc := range e.collectors {
		if _, ok := nc.collector.(FamilyCollector); ok {
			return true
		}
	}
	return false
}

// textFormat returns the negotiated format if it is the text format, the
// only one the ready families are encoded in.
func textFormat(r *http.Request) (expfmt.Format, bool) {
	f := expfmt.NegotiateAccept(r.Header, expfmt.DefaultAcceptedFormats()...)
	return f, f.FormatType() == expfmt.TypeTextPlain
}

// serveText is promhttp's handler (ContinueOnError, name[] filter) for the
// text format, writing FamilyCollectors' families from their cached text.
func (e *Exporter) serveText(w http.ResponseWriter, r *http.Request, ctx context.Context, format expfmt.Format) {
	g, err := e.gather(ctx)
	if err != nil {
		e.logger.Error("error gathering metrics", "err", err)
		e.handlerErrors.WithLabelValues("gathering").Inc()
	}
	w.Header().Add("Vary", "Accept")
	w.Header().Set("Content-Type", string(format))
	var keep map[string]bool
	if names := r.URL.Query()["name[]"]; len(names) > 0 {
		keep = make(map[string]bool, len(names))
		for _, n := range names {
			keep[n] = true
		}
	}
	encodeParts(ctx, g.ready)
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := writeText(bw, format, g, keep); err != nil {
		e.logger.Error("error encoding and sending metric family", "err", err)
		e.handlerErrors.WithLabelValues("encoding").Inc()
		return
	}
	if err := bw.Flush(); err != nil {
		e.logger.Debug("client went away", "err", err)
	}
}

// writeText writes g's families in name order, those in keep if not nil.
func writeText(w *bufio.Writer, format expfmt.Format, g gathered, keep map[string]bool) error {
	enc := expfmt.NewEncoder(w, format)
	i, j := 0, 0
	for i < len(g.regular) || j < len(g.ready) {
		if j == len(g.ready) || (i < len(g.regular) && g.regular[i].GetName() < g.ready[j].Name) {
			mf := g.regular[i]
			i++
			if keep != nil && !keep[mf.GetName()] {
				continue
			}
			if err := enc.Encode(mf); err != nil {
				return err
			}
			continue
		}
		f := &g.ready[j]
		j++
		if keep != nil && !keep[f.Name] {
			continue
		}
		if err := writeReady(w, f); err != nil {
			return err
		}
	}
	return nil
}

// encodeParts encodes the parts not encoded yet on all cores: after a quiet
// spell every live application of the event-log collector has a new
// snapshot, and encoding them one by one would double a big scrape's time.
func encodeParts(ctx context.Context, fs []Family) {
	var parts []*Part
	for i := range fs {
		parts = append(parts, fs[i].Parts...)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(parts)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(parts) && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				_, _ = parts[i].Text() // an error is met again when writing
			}
		})
	}
	wg.Wait()
}

// writeReady writes HELP and TYPE as expfmt does, then each part's text.
func writeReady(w *bufio.Writer, f *Family) error {
	texts := make([][]byte, len(f.Parts))
	for i, p := range f.Parts {
		text, err := p.Text()
		if err != nil {
			return err
		}
		texts[i] = text
	}
	header, err := appendHeader(nil, f.Name, f.Help, f.Type)
	if err != nil {
		return err
	}
	if _, err := w.Write(header); err != nil {
		return err
	}
	for _, text := range texts {
		if _, err := w.Write(text); err != nil {
			return err
		}
	}
	return nil
}
