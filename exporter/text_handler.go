package exporter

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
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

// acceptedFormats are the formats /metrics negotiates, in the server's
// order of preference: client_golang's set with OpenMetrics enabled
// (OpenMetrics 1.0.0 and 0.0.1, protobuf, the text format 0.0.4), then
// the text format of any other version (textAnyVersion).
var acceptedFormats = append(expfmt.DefaultOpenMetricsAcceptedFormats(), textAnyVersion)

// textAnyVersion matches a text format request of any version, such as
// Prometheus 3's text/plain;version=1.0.0, which expfmt does not know: it
// would otherwise fall to */* and get OpenMetrics. The request is answered
// in the text format 0.0.4 with the escaping it asked for (1.0.0 differs
// only in allowing UTF-8 names, quoted, which 0.0.4 encoders write then).
const textAnyVersion expfmt.Format = "text/plain; charset=utf-8"

// negotiate returns the format of the answer to r.
func negotiate(r *http.Request) expfmt.Format {
	f := expfmt.NegotiateAccept(r.Header, acceptedFormats...)
	if rest, ok := strings.CutPrefix(string(f), string(textAnyVersion)); ok {
		return expfmt.FmtText + expfmt.Format(rest)
	}
	return f
}

// textFormat returns the negotiated format if it is a text one (the text
// format or OpenMetrics), which the ready families are written in from
// their parts' cached text.
func textFormat(r *http.Request) (expfmt.Format, bool) {
	f := negotiate(r)
	t := f.FormatType()
	return f, t == expfmt.TypeTextPlain || t == expfmt.TypeOpenMetrics
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

// writeText writes g's families in name order, those in keep if not nil,
// in the text format or OpenMetrics (then ended by # EOF).
func writeText(w *bufio.Writer, format expfmt.Format, g gathered, keep map[string]bool) error {
	enc := expfmt.NewEncoder(w, format)
	om := format.FormatType() == expfmt.TypeOpenMetrics
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
		if om {
			if err := writeReadyOpenMetrics(w, f); err != nil {
				return err
			}
			continue
		}
		if err := writeReady(w, f); err != nil {
			return err
		}
	}
	if c, ok := enc.(expfmt.Closer); ok {
		return c.Close()
	}
	return nil
}

// writeReadyOpenMetrics is writeReady in OpenMetrics: HELP and TYPE as
// expfmt writes them, then each part's lines (Part.writeOpenMetrics).
func writeReadyOpenMetrics(w *bufio.Writer, f *Family) error {
	for _, p := range f.Parts {
		if err := p.openMetricsErr(); err != nil {
			return err
		}
	}
	help := f.Help
	if _, err := expfmt.MetricFamilyToOpenMetrics(w, &dto.MetricFamily{Name: &f.Name, Help: &help, Type: f.Type.Enum()}); err != nil {
		return err
	}
	for _, p := range f.Parts {
		if err := p.writeOpenMetrics(w); err != nil {
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
