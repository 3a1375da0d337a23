package spark

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// servletQuantiles maps PrometheusServlet's percentile suffixes to the
// index in snapshot.quantiles.
var servletQuantiles = map[string]int{
	"50thPercentile": 0, "75thPercentile": 1, "95thPercentile": 2,
	"98thPercentile": 3, "99thPercentile": 4, "999thPercentile": 5,
}

// servletEntry gathers the lines of one registry key.
type servletEntry struct {
	typ    string // the type label: gauges, counters, histograms, timers
	values map[string]float64
}

// parseServletText reads Spark's PrometheusServlet output (fact 20):
// metrics_<key with [^a-zA-Z0-9] → _>_<Suffix>{type="…"} value, no HELP
// or TYPE. appIDs are the applications the target's REST API listed; they
// let the namespace be cut off the sanitized key.
func parseServletText(body []byte, appIDs []string) ([]sample, error) {
	// The text parser refuses a whole body for one invalid UTF-8 byte in a
	// label value (an application name written in another charset, a
	// flipped bit): the target's other series would all be lost.
	body = bytes.ToValidUTF8(body, []byte("\uFFFD"))
	parser := expfmt.NewTextParser(model.LegacyValidation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("invalid Prometheus text: %w", err)
	}
	entries := map[string]*servletEntry{}
	var order []string
	for name, mf := range families {
		rest, ok := strings.CutPrefix(name, "metrics_")
		cut := strings.LastIndexByte(rest, '_')
		if !ok || cut <= 0 {
			continue // not a PrometheusServlet line (spark_info and the like)
		}
		base, suffix := rest[:cut], rest[cut+1:]
		for _, m := range mf.GetMetric() {
			typ := labelValue(m, "type")
			id := typ + "\x00" + base
			e := entries[id]
			if e == nil {
				e = &servletEntry{typ: typ, values: map[string]float64{}}
				entries[id] = e
				order = append(order, id)
			}
			e.values[suffix] = metricValue(m)
		}
	}
	var out []sample
	sort.Strings(order)
	for _, id := range order {
		e := entries[id]
		base := id[strings.IndexByte(id, 0)+1:]
		ns, inst, key := splitSanitizedKey(base, appIDs)
		s := sample{namespace: ns, instance: inst, key: key}
		switch e.typ {
		case "gauges":
			v, ok := e.values["Value"]
			if !ok {
				continue
			}
			s.kind, s.value = kindGauge, v
		case "counters":
			s.kind, s.value = kindCounter, e.values["Count"]
			if _, meter := e.values["MeanRate"]; meter {
				s.kind = kindMeter
			}
		case "histograms":
			s.kind, s.dist = kindHistogram, servletSnapshot(e.values, 1)
		case "timers":
			// Timer snapshots are printed unscaled: nanoseconds.
			s.kind, s.dist = kindTimer, servletSnapshot(e.values, 1e-6)
		default:
			continue
		}
		out = append(out, s)
	}
	return out, nil
}

func servletSnapshot(values map[string]float64, toMillis float64) *snapshot {
	s := &snapshot{count: uint64(values["Count"]), mean: values["Mean"] * toMillis}
	for suffix, i := range servletQuantiles {
		s.quantiles[i] = values[suffix] * toMillis
	}
	return s
}

// splitSanitizedKey finds namespace and instance in a key whose dots are
// already underscores: a known application id, else the first "_driver_".
func splitSanitizedKey(key string, appIDs []string) (namespace, instance, rest string) {
	for _, id := range appIDs {
		after, ok := strings.CutPrefix(key, sanitize(id)+"_")
		if !ok {
			continue
		}
		if inst, r, ok := strings.Cut(after, "_"); ok && isInstance(inst) {
			return id, inst, r
		}
	}
	if ns, r, ok := strings.Cut(key, "_driver_"); ok && ns != "" {
		return ns, "driver", r
	}
	return "", "", key
}

func labelValue(m *dto.Metric, name string) string {
	for _, lp := range m.GetLabel() {
		if lp.GetName() == name {
			return lp.GetValue()
		}
	}
	return ""
}

func metricValue(m *dto.Metric) float64 {
	switch {
	case m.Untyped != nil:
		return m.GetUntyped().GetValue()
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	}
	return 0
}
