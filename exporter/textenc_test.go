package exporter

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"google.golang.org/protobuf/proto"
)

// expfmtText is the reference: expfmt's encoding of the family.
func expfmtText(t *testing.T, mf *dto.MetricFamily) string {
	t.Helper()
	var buf bytes.Buffer
	if _, err := expfmt.MetricFamilyToText(&buf, mf); err != nil {
		t.Fatalf("expfmt: %v", err)
	}
	return buf.String()
}

// ourText is the exporter's encoding of the same family: header, then the
// sample lines.
func ourText(t *testing.T, mf *dto.MetricFamily) string {
	t.Helper()
	b, err := appendHeader(nil, mf.GetName(), mf.GetHelp(), mf.GetType())
	if err != nil {
		t.Fatalf("header: %v", err)
	}
	b, err = appendSamples(b, mf.GetName(), mf.GetType(), mf.Metric)
	if err != nil {
		t.Fatalf("samples: %v", err)
	}
	return string(b)
}

func pair(name, value string) *dto.LabelPair { return &dto.LabelPair{Name: &name, Value: &value} }

func gauge(v float64, lps ...*dto.LabelPair) *dto.Metric {
	return &dto.Metric{Label: lps, Gauge: &dto.Gauge{Value: &v}}
}

// trickyValues are floats whose text form has a special case or an
// exponent boundary.
var trickyValues = []float64{
	0, math.Copysign(0, -1), 1, -1, 2, 0.1, 1.0 / 3, -2.5e-7, 1e-5, 1e-4, 123456, 999999, 1e6, 1234567,
	1e21, 1e22, 1.7648e9, 1764806400.123, math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64,
	1e-300, math.NaN(), math.Inf(+1), math.Inf(-1), float64(1<<53) + 2, 0.000123456789,
	42, -42, 100000, -999999, -1e6, 999999.5, 12345.000001, 1 << 40,
}

// trickyLabelValues need escaping, are not ASCII, or are empty.
var trickyLabelValues = []string{
	"", "plain", `quote"d`, `back\slash`, "line\nfeed", `all "three" \ ` + "\n", `\"`, `\\n`, "\n\n",
	"ñandú 日本語 🚀", "\uFFFD", "tab\there", `{braces},commas=`, "trailing\\",
}

// TestTextEncoderMatchesExpfmt: the cached text of a part is byte for byte
// what expfmt writes for the same series: escaping, names that need
// quoting, every float special case, timestamps, counters, gauges,
// untyped, summaries and histograms, and label pairs shared between
// series (which the encoder copies instead of re-encoding).
func TestTextEncoderMatchesExpfmt(t *testing.T) {
	appID, appName := pair("app_id", `app-"1"`), pair("app_name", "näme\\with\nall")
	var gauges []*dto.Metric
	for i, v := range trickyValues {
		// Shared leading pairs, then a value of its own.
		gauges = append(gauges, gauge(v, appID, appName, pair("executor_id", trickyLabelValues[i%len(trickyLabelValues)])))
	}
	for _, lv := range trickyLabelValues {
		gauges = append(gauges, gauge(1.5, pair("a", lv)), gauge(2, pair("a", lv), pair("b", lv)))
	}
	// Fewer pairs than the line before; the same pairs in a later position;
	// only a later pair shared; no labels at all.
	gauges = append(gauges, gauge(3, appID), gauge(4, appName, appID), gauge(5, pair("x", "1"), appName), gauge(6))
	ts := int64(-1234)
	withTS := gauge(7, appID)
	withTS.TimestampMs = &ts
	later := int64(1764806400123)
	withTS2 := gauge(8, appID, appName)
	withTS2.TimestampMs = &later
	gauges = append(gauges, withTS, withTS2)

	count, sum := uint64(42), 12.75
	counters := []*dto.Metric{}
	for _, v := range trickyValues {
		c := v
		counters = append(counters, &dto.Metric{Label: []*dto.LabelPair{appID, appName, pair("category", "cpu")}, Counter: &dto.Counter{Value: &c}})
	}
	untyped := []*dto.Metric{{Label: []*dto.LabelPair{appID}, Untyped: &dto.Untyped{Value: proto.Float64(math.NaN())}}, {Untyped: &dto.Untyped{Value: proto.Float64(-0.5)}}}
	summaries := []*dto.Metric{
		{Label: []*dto.LabelPair{appID, appName}, Summary: &dto.Summary{SampleCount: &count, SampleSum: &sum, Quantile: []*dto.Quantile{
			{Quantile: proto.Float64(0.5), Value: proto.Float64(1.25)},
			{Quantile: proto.Float64(0.99), Value: proto.Float64(math.NaN())},
			{Quantile: proto.Float64(1), Value: proto.Float64(math.Inf(+1))},
		}}},
		{Summary: &dto.Summary{SampleCount: proto.Uint64(0), SampleSum: proto.Float64(0)}},
		{Label: []*dto.LabelPair{appID, appName}, Summary: &dto.Summary{SampleCount: proto.Uint64(1 << 60), SampleSum: proto.Float64(-1)}},
	}
	histograms := []*dto.Metric{
		{Label: []*dto.LabelPair{appID, pair("le_not", `"x"`)}, Histogram: &dto.Histogram{SampleCount: &count, SampleSum: &sum, Bucket: []*dto.Bucket{
			{UpperBound: proto.Float64(0.005), CumulativeCount: proto.Uint64(3)},
			{UpperBound: proto.Float64(1e6), CumulativeCount: proto.Uint64(40)},
		}}},
		{Label: []*dto.LabelPair{appID}, Histogram: &dto.Histogram{SampleCountFloat: proto.Float64(2.5), SampleSum: proto.Float64(math.Inf(-1)), Bucket: []*dto.Bucket{
			{UpperBound: proto.Float64(-1), CumulativeCountFloat: proto.Float64(0.5)},
			{UpperBound: proto.Float64(math.Inf(+1)), CumulativeCountFloat: proto.Float64(2.5)},
		}}},
		{Histogram: &dto.Histogram{}}, // no buckets: +Inf is still written
	}
	labelTS := int64(5)
	histograms[0].TimestampMs = &labelTS

	helps := []string{"", "Plain help.", `Back\slash, "quotes" and` + "\nnewline", "ünï\\cødé"}
	cases := []struct {
		name string
		typ  dto.MetricType
		ms   []*dto.Metric
	}{
		{"spark_test_gauge", dto.MetricType_GAUGE, gauges},
		{"spark_test_seconds_total", dto.MetricType_COUNTER, counters},
		{"name:with:colons", dto.MetricType_UNTYPED, untyped},
		{"spark_test_duration_seconds", dto.MetricType_SUMMARY, summaries},
		{"spark_test_histogram", dto.MetricType_HISTOGRAM, histograms},
		{"spark_test_gauge_histogram", dto.MetricType_GAUGE_HISTOGRAM, histograms},
		// Names outside the legacy character set go quoted inside the
		// braces, label names quoted too.
		{"spark.dotted.name", dto.MetricType_GAUGE, []*dto.Metric{gauge(1), gauge(2, pair("label.dot", `v"`)), gauge(3, pair("ok", "1"), pair("日本", "x"))}},
		{"spark.dotted.summary", dto.MetricType_SUMMARY, summaries},
	}
	for i, c := range cases {
		help := helps[i%len(helps)]
		mf := &dto.MetricFamily{Name: &c.name, Help: &help, Type: c.typ.Enum(), Metric: c.ms}
		want, got := expfmtText(t, mf), ourText(t, mf)
		if got != want {
			t.Errorf("%s: differs from expfmt at %s", c.name, firstLineDiff(got, want))
		}
		if i == 0 { // the reference holds what the cases are for
			for _, s := range []string{`executor_id="all \"three\" \\ \n"`, " NaN\n", " +Inf\n", " -Inf\n", "\nspark_test_gauge 6\n", " 1e+21\n", " 5e-324\n", " 7 -1234\n"} {
				if !strings.Contains(want, s) {
					t.Errorf("reference text lacks %q:\n%s", s, want)
				}
			}
		}
	}
	// The samples' text alone, as a part caches it.
	part := NewPart("spark_test_gauge", dto.MetricType_GAUGE, slices.Clone(gauges)) // sorted as the registry sorts
	want := expfmtText(t, &dto.MetricFamily{Name: proto.String("spark_test_gauge"), Type: dto.MetricType_GAUGE.Enum(), Metric: part.Metrics()})
	_, want, _ = strings.Cut(want, "\n")
	text, err := part.Text()
	if err != nil {
		t.Fatal(err)
	}
	if string(text) != want {
		t.Errorf("part text differs from expfmt at %s", firstLineDiff(string(text), want))
	}
}

// TestTextEncoderMatchesExpfmtRandom compares many random families whose
// series share label pairs in random places, as collectors share them.
func TestTextEncoderMatchesExpfmtRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"app_id", "app_name", "category", "executor_id", "le_x", "odd.label", "ñ"}
	var pool []*dto.LabelPair
	for i := range 40 {
		pool = append(pool, pair(names[rng.IntN(len(names))], trickyLabelValues[rng.IntN(len(trickyLabelValues))]+fmt.Sprint(i%3)))
	}
	types := []dto.MetricType{dto.MetricType_GAUGE, dto.MetricType_COUNTER, dto.MetricType_UNTYPED, dto.MetricType_SUMMARY, dto.MetricType_HISTOGRAM}
	value := func() float64 {
		switch rng.IntN(4) {
		case 0:
			return trickyValues[rng.IntN(len(trickyValues))]
		case 1: // integers on both sides of 1e6, where the formatting changes
			return float64(rng.IntN(4e6) - 2e6)
		}
		return math.Float64frombits(rng.Uint64()) // any bit pattern, NaN payloads included
	}
	for n := range 500 {
		typ := types[n%len(types)]
		var ms []*dto.Metric
		for range 1 + rng.IntN(30) {
			m := &dto.Metric{}
			if len(ms) > 0 && rng.IntN(2) == 0 { // leading pairs of the series before
				prev := ms[len(ms)-1].Label
				m.Label = append(m.Label, prev[:rng.IntN(len(prev)+1)]...)
			}
			for range rng.IntN(5 - len(m.Label)) {
				m.Label = append(m.Label, pool[rng.IntN(len(pool))])
			}
			if rng.IntN(10) == 0 {
				m.TimestampMs = proto.Int64(rng.Int64() - math.MaxInt64/2)
			}
			switch typ {
			case dto.MetricType_GAUGE:
				m.Gauge = &dto.Gauge{Value: proto.Float64(value())}
			case dto.MetricType_COUNTER:
				m.Counter = &dto.Counter{Value: proto.Float64(value())}
			case dto.MetricType_UNTYPED:
				m.Untyped = &dto.Untyped{Value: proto.Float64(value())}
			case dto.MetricType_SUMMARY:
				m.Summary = &dto.Summary{SampleCount: proto.Uint64(rng.Uint64()), SampleSum: proto.Float64(value())}
				for range rng.IntN(4) {
					m.Summary.Quantile = append(m.Summary.Quantile, &dto.Quantile{Quantile: proto.Float64(value()), Value: proto.Float64(value())})
				}
			case dto.MetricType_HISTOGRAM:
				m.Histogram = &dto.Histogram{SampleCount: proto.Uint64(rng.Uint64N(1000)), SampleSum: proto.Float64(value())}
				for range rng.IntN(4) {
					m.Histogram.Bucket = append(m.Histogram.Bucket, &dto.Bucket{UpperBound: proto.Float64(value()), CumulativeCount: proto.Uint64(rng.Uint64N(1000))})
				}
			}
			ms = append(ms, m)
		}
		name := fmt.Sprintf("spark_random_%d", n)
		if n%7 == 0 {
			name = fmt.Sprintf("spark.random-%d", n)
		}
		help := trickyLabelValues[n%len(trickyLabelValues)]
		mf := &dto.MetricFamily{Name: &name, Help: &help, Type: typ.Enum(), Metric: ms}
		if want, got := expfmtText(t, mf), ourText(t, mf); got != want {
			t.Fatalf("%s (%s): differs from expfmt at %s", name, typ, firstLineDiff(got, want))
		}
	}
}

// A series without the value its family's type needs, or a type the text
// format does not know, is an error naming the family, as with expfmt.
func TestTextEncoderRefusesMismatchedSeries(t *testing.T) {
	text, err := NewPart("spark_test_counter_total", dto.MetricType_COUNTER, []*dto.Metric{gauge(1, pair("a", "b"))}).Text()
	if err == nil || !strings.Contains(err.Error(), "spark_test_counter_total") || !strings.Contains(err.Error(), "expected counter") {
		t.Errorf("counter family with a gauge series: text %q, error %v; want an error naming the family", text, err)
	}
	if _, err := appendHeader(nil, "spark_test_odd", "", dto.MetricType(42)); err == nil || !strings.Contains(err.Error(), "spark_test_odd") {
		t.Errorf("unknown type: error %v, want one naming the family", err)
	}
}

// firstLineDiff shows the first line where got and want differ.
func firstLineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n got  %q\n want %q", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("length: got %d lines, want %d", len(g), len(w))
}
