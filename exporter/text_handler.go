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

// gather runs one scrape. With asFamilies, FamilyCollectors' families come
// back ready rather than through the registry.
func (e *Exporter) gather(ctx context.Context, asFamilies bool) (gathered, error) {
	s := &scrape{ctx: ctx, collectors: e.collectors, logger: e.logger, asFamilies: asFamilies}
	reg := prometheus.NewRegistry()
	reg.MustRegister(s)
	mfs, err := prometheus.Gatherers{e.self, reg}.Gather()
	g, errs := separate(mfs, s.ready)
	return g, errors.Join(append([]error{err}, errs...)...)
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
// text format, writing ready families as they are.
func (e *Exporter) serveText(w http.ResponseWriter, r *http.Request, ctx context.Context, format expfmt.Format) {
	g, err := e.gather(ctx, true)
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

var helpEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`)

// writeReady writes HELP and TYPE as expfmt does, then the ready text.
func writeReady(w *bufio.Writer, f *Family) error {
	w.WriteString("# HELP ")
	w.WriteString(f.Name)
	w.WriteByte(' ')
	helpEscaper.WriteString(w, f.Help)
	w.WriteString("\n# TYPE ")
	w.WriteString(f.Name)
	w.WriteByte(' ')
	w.WriteString(textTypeName(f.Type))
	w.WriteByte('\n')
	for _, chunk := range f.Text {
		if _, err := w.Write(chunk); err != nil {
			return err
		}
	}
	return nil
}

func textTypeName(t dto.MetricType) string {
	if t == dto.MetricType_GAUGE_HISTOGRAM {
		return "histogram"
	}
	return strings.ToLower(t.String())
}
