package exporter

import (
	"bufio"
	"context"
	"errors"
	"net/http"

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
		if _, ok := nc.collector.(familyCollector); ok {
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

// writeReady writes HELP and TYPE as expfmt does, then each part's text:
// the text a part keeps, or its series encoded now straight into w's
// buffer (Part.writeForScrape). A family with a part that cannot be
// encoded is not written at all.
func writeReady(w *bufio.Writer, f *Family) error {
	for _, p := range f.Parts {
		if err := p.encodingErr(); err != nil {
			return err
		}
	}
	header, err := appendHeader(nil, f.Name, f.Help, f.Type)
	if err != nil {
		return err
	}
	if _, err := w.Write(header); err != nil {
		return err
	}
	for _, p := range f.Parts {
		if err := p.writeForScrape(w); err != nil {
			return err
		}
	}
	return nil
}
