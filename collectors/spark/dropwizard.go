package spark

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strconv"
)

// dropwizardDoc is the body of /metrics/json: Jackson's MetricsModule
// serialisation of the whole registry (fact 19).
type dropwizardDoc struct {
	Version    string                         `json:"version"`
	Gauges     map[string]dropwizardGauge     `json:"gauges"`
	Counters   map[string]dropwizardCount     `json:"counters"`
	Histograms map[string]dropwizardHistogram `json:"histograms"`
	Meters     map[string]dropwizardCount     `json:"meters"`
	Timers     map[string]dropwizardHistogram `json:"timers"`
}

// dropwizardGauge holds any JSON value: gauges may be numbers, strings,
// booleans or null, or carry an "error" instead.
type dropwizardGauge struct {
	Value json.RawMessage `json:"value"`
	Error string          `json:"error"`
}

type dropwizardCount struct {
	Count json.Number `json:"count"`
}

// dropwizardHistogram serves histograms and timers (timers in
// duration_units, milliseconds in Spark's servlet).
type dropwizardHistogram struct {
	Count         json.Number `json:"count"`
	Mean          json.Number `json:"mean"`
	P50           json.Number `json:"p50"`
	P75           json.Number `json:"p75"`
	P95           json.Number `json:"p95"`
	P98           json.Number `json:"p98"`
	P99           json.Number `json:"p99"`
	P999          json.Number `json:"p999"`
	DurationUnits string      `json:"duration_units"`
}

// parseMetricsJSON decodes a /metrics/json body. Entries that cannot be
// used (non-numeric gauges, gauges in error, odd units) are skipped with a
// debug log; only a body that is not Dropwizard JSON is an error.
func parseMetricsJSON(body []byte, logger *slog.Logger) ([]sample, error) {
	var doc dropwizardDoc
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, describeJSONError(body, err)
	}
	if doc.Gauges == nil && doc.Counters == nil && doc.Histograms == nil && doc.Timers == nil && doc.Meters == nil {
		return nil, fmt.Errorf("not a Dropwizard metrics document (no gauges, counters, histograms, meters or timers)")
	}
	var out []sample
	for _, key := range sortedKeys(doc.Gauges) {
		g := doc.Gauges[key]
		v, ok := gaugeNumber(g)
		if !ok {
			logger.Debug("skipping gauge without a numeric value", "key", key, "value", string(g.Value), "error", g.Error)
			continue
		}
		out = append(out, newSample(key, kindGauge, v, nil))
	}
	for _, key := range sortedKeys(doc.Counters) {
		if v, err := doc.Counters[key].Count.Float64(); err == nil {
			out = append(out, newSample(key, kindCounter, v, nil))
		}
	}
	for _, key := range sortedKeys(doc.Meters) {
		if v, err := doc.Meters[key].Count.Float64(); err == nil {
			out = append(out, newSample(key, kindMeter, v, nil))
		}
	}
	for _, key := range sortedKeys(doc.Histograms) {
		if dist, ok := doc.Histograms[key].snapshot(); ok {
			out = append(out, newSample(key, kindHistogram, 0, dist))
		}
	}
	for _, key := range sortedKeys(doc.Timers) {
		t := doc.Timers[key]
		if t.DurationUnits != "" && t.DurationUnits != "milliseconds" {
			logger.Debug("skipping timer with unexpected duration unit", "key", key, "duration_units", t.DurationUnits)
			continue
		}
		if dist, ok := t.snapshot(); ok {
			out = append(out, newSample(key, kindTimer, 0, dist))
		}
	}
	return out, nil
}

func newSample(key string, kind sampleKind, v float64, dist *snapshot) sample {
	ns, inst, rest := splitKey(key)
	return sample{namespace: ns, instance: inst, key: sanitize(rest), raw: rest, kind: kind, value: v, dist: dist}
}

// gaugeNumber accepts numbers and booleans (as 0/1).
func gaugeNumber(g dropwizardGauge) (float64, bool) {
	if g.Error != "" || len(g.Value) == 0 {
		return 0, false
	}
	switch s := string(bytes.TrimSpace(g.Value)); s {
	case "true":
		return 1, true
	case "false":
		return 0, true
	default:
		v, err := strconv.ParseFloat(s, 64)
		return v, err == nil
	}
}

func (h dropwizardHistogram) snapshot() (*snapshot, bool) {
	count, err := strconv.ParseUint(string(h.Count), 10, 64)
	if err != nil {
		return nil, false
	}
	s := &snapshot{count: count}
	s.mean, _ = h.Mean.Float64()
	for i, q := range []json.Number{h.P50, h.P75, h.P95, h.P98, h.P99, h.P999} {
		if s.quantiles[i], err = q.Float64(); err != nil {
			return nil, false
		}
	}
	return s, true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// describeJSONError names the byte offset where decoding failed, and says
// "truncated" when the body simply stopped.
func describeJSONError(body []byte, err error) error {
	var syntax *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return fmt.Errorf("truncated JSON: body ends at byte %d", len(body))
	case errors.As(err, &syntax):
		return fmt.Errorf("invalid JSON at byte %d of %d: %v", syntax.Offset, len(body), err)
	case errors.As(err, &typeErr):
		return fmt.Errorf("unexpected JSON shape at byte %d (field %q): %v", typeErr.Offset, typeErr.Field, err)
	}
	return fmt.Errorf("invalid JSON: %w", err)
}
