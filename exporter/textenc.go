package exporter

import (
	"fmt"
	"math"
	"strconv"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/model"
)

// This file writes the text format exactly as expfmt.MetricFamilyToText
// does (names, escaping, float formatting, timestamps, summary and
// histogram lines), appending to one byte slice instead of going through
// an io.Writer per token: a scrape of 100 applications × 100 executors
// encodes 220,000 series whenever every application changed, and expfmt's
// per-token writes, replacers and buffer growth were most of its cost.
// TestTextEncoderMatchesExpfmt holds the two together.

// appendHeader appends the HELP and TYPE lines of a family.
func appendHeader(b []byte, name, help string, t dto.MetricType) ([]byte, error) {
	typ, ok := textTypeNames[t]
	if !ok {
		return b, fmt.Errorf("%s: unknown metric type %s", name, t)
	}
	b = append(b, "# HELP "...)
	b = appendName(b, name)
	b = append(b, ' ')
	b = appendEscaped(b, help, false)
	b = append(b, "\n# TYPE "...)
	b = appendName(b, name)
	b = append(b, typ...)
	return b, nil
}

var textTypeNames = map[dto.MetricType]string{
	dto.MetricType_COUNTER:         " counter\n",
	dto.MetricType_GAUGE:           " gauge\n",
	dto.MetricType_SUMMARY:         " summary\n",
	dto.MetricType_UNTYPED:         " untyped\n",
	dto.MetricType_HISTOGRAM:       " histogram\n",
	dto.MetricType_GAUGE_HISTOGRAM: " histogram\n", // the text format has no gauge histogram
}

// sampleEncoder appends the sample lines of one family's series. Series
// built from shared label pairs (the event-log collector's app_id and
// app_name, say) repeat the text of the previous line's leading pairs: the
// encoder copies those bytes instead of checking and escaping them again.
type sampleEncoder struct {
	b    []byte
	name string

	prev       []*dto.LabelPair // the previous line's label pairs
	prevStart  int              // where its first label pair's text starts in b
	prevEnds   []int            // where each of its pairs' text ends in b
	nameInside bool             // the name is not a legacy name: quoted inside the braces

	// legacyNames are label names already found to need no quoting: a
	// family has a handful, each repeated on every line.
	legacyNames []string
}

// appendSamples appends the sample lines of ms, series of the family name
// of type t, as expfmt.MetricFamilyToText writes them after the TYPE line.
func appendSamples(b []byte, name string, t dto.MetricType, ms []*dto.Metric) ([]byte, error) {
	e := sampleEncoder{b: b, name: name, nameInside: !model.LegacyValidation.IsValidMetricName(name)}
	for _, m := range ms {
		if err := e.metric(t, m); err != nil {
			return e.b, err
		}
	}
	return e.b, nil
}

func (e *sampleEncoder) metric(t dto.MetricType, m *dto.Metric) error {
	switch t {
	case dto.MetricType_COUNTER:
		if m.Counter == nil {
			return fmt.Errorf("expected counter in metric %s %s", e.name, m)
		}
		e.sample("", m, "", 0, m.Counter.GetValue())
	case dto.MetricType_GAUGE:
		if m.Gauge == nil {
			return fmt.Errorf("expected gauge in metric %s %s", e.name, m)
		}
		e.sample("", m, "", 0, m.Gauge.GetValue())
	case dto.MetricType_UNTYPED:
		if m.Untyped == nil {
			return fmt.Errorf("expected untyped in metric %s %s", e.name, m)
		}
		e.sample("", m, "", 0, m.Untyped.GetValue())
	case dto.MetricType_SUMMARY:
		if m.Summary == nil {
			return fmt.Errorf("expected summary in metric %s %s", e.name, m)
		}
		for _, q := range m.Summary.Quantile {
			e.sample("", m, model.QuantileLabel, q.GetQuantile(), q.GetValue())
		}
		e.sample("_sum", m, "", 0, m.Summary.GetSampleSum())
		e.sample("_count", m, "", 0, float64(m.Summary.GetSampleCount()))
	case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
		h := m.Histogram
		if h == nil {
			return fmt.Errorf("expected histogram in metric %s %s", e.name, m)
		}
		infSeen := false
		for _, bk := range h.Bucket {
			v := bk.GetCumulativeCountFloat()
			if v == 0 {
				v = float64(bk.GetCumulativeCount())
			}
			e.sample("_bucket", m, model.BucketLabel, bk.GetUpperBound(), v)
			infSeen = infSeen || math.IsInf(bk.GetUpperBound(), +1)
		}
		count := h.GetSampleCountFloat()
		if count == 0 {
			count = float64(h.GetSampleCount())
		}
		if !infSeen {
			e.sample("_bucket", m, model.BucketLabel, math.Inf(+1), count)
		}
		e.sample("_sum", m, "", 0, h.GetSampleSum())
		e.sample("_count", m, "", 0, count)
	default:
		return fmt.Errorf("unexpected type in metric %s %s", e.name, m)
	}
	return nil
}

// sample appends one line: name and suffix, m's labels plus an optional
// extra one (quantile, le) whose value is a float, the value and m's
// timestamp if any.
func (e *sampleEncoder) sample(suffix string, m *dto.Metric, extraName string, extraValue, value float64) {
	b := e.b
	open := false
	if e.nameInside {
		b = append(b, '{')
		b = appendName(b, e.name+suffix)
		open = true
	} else {
		b = append(b, e.name...)
		b = append(b, suffix...)
	}
	if len(m.Label) > 0 || extraName != "" {
		if open {
			b = append(b, ',')
		} else {
			b = append(b, '{')
		}
		open = true
		b = e.labels(b, m.Label)
		if extraName != "" {
			if len(m.Label) > 0 {
				b = append(b, ',')
			}
			b = append(b, extraName...)
			b = append(b, `="`...)
			b = appendFloat(b, extraValue)
			b = append(b, '"')
		}
	}
	if open {
		b = append(b, '}')
	}
	b = append(b, ' ')
	b = appendFloat(b, value)
	if m.TimestampMs != nil {
		b = append(b, ' ')
		b = strconv.AppendInt(b, *m.TimestampMs, 10)
	}
	e.b = append(b, '\n')
}

// labels appends lps' name="value" pairs, comma-separated, copying the
// text of the leading pairs this line shares with the previous one.
func (e *sampleEncoder) labels(b []byte, lps []*dto.LabelPair) []byte {
	same := 0
	for same < len(lps) && same < len(e.prev) && lps[same] == e.prev[same] {
		same++
	}
	start := len(b)
	ends := e.prevEnds[:same]
	if same > 0 {
		b = append(b, b[e.prevStart:e.prevEnds[same-1]]...)
		// The copied text ends at the same distance from this line's start.
		shift := start - e.prevStart
		for i := range ends {
			ends[i] += shift
		}
	}
	for i := same; i < len(lps); i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = e.appendLabelName(b, lps[i].GetName())
		b = append(b, `="`...)
		b = appendEscaped(b, lps[i].GetValue(), true)
		b = append(b, '"')
		ends = append(ends, len(b))
	}
	e.prev, e.prevStart, e.prevEnds = lps, start, ends
	return b
}

// appendLabelName is appendName remembering the legacy names it met.
func (e *sampleEncoder) appendLabelName(b []byte, name string) []byte {
	for _, n := range e.legacyNames {
		if n == name {
			return append(b, name...)
		}
	}
	if !model.LegacyValidation.IsValidMetricName(name) {
		return appendName(b, name)
	}
	if len(e.legacyNames) < 8 {
		e.legacyNames = append(e.legacyNames, name)
	}
	return append(b, name...)
}

// appendName writes a legacy name as it is and any other name quoted.
func appendName(b []byte, name string) []byte {
	if model.LegacyValidation.IsValidMetricName(name) {
		return append(b, name...)
	}
	b = append(b, '"')
	b = appendEscaped(b, name, true)
	return append(b, '"')
}

// appendEscaped escapes backslash and line feed, and the double quote too
// where quoted (label values), as the text format requires.
func appendEscaped(b []byte, s string, quoted bool) []byte {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '\\' || c == '\n' || (quoted && c == '"') {
			plain = false
			break
		}
	}
	if plain {
		return append(b, s...)
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b = append(b, `\\`...)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '"' && quoted:
			b = append(b, `\"`...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// appendFloat formats a value as expfmt does: the shortest representation
// that reads back the same, NaN, +Inf and -Inf, and -0 written as 0.
func appendFloat(b []byte, f float64) []byte {
	switch {
	case f == 0:
		return append(b, '0')
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, +1):
		return append(b, "+Inf"...)
	case math.IsInf(f, -1):
		return append(b, "-Inf"...)
	case f > -1e6 && f < 1e6 && f == math.Trunc(f):
		// Counts, cores, bytes: below 1e6 the shortest 'g' form of an
		// integer is its digits, which AppendInt writes faster.
		return strconv.AppendInt(b, int64(f), 10)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}
