package exporter

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"google.golang.org/protobuf/proto"
)

// randomColumns fills a Columns with n random series of width labels drawn
// from a small table (so that label sets repeat and series come out of
// order), some sharing their leading pairs, with tricky values.
func randomColumns(rng *rand.Rand, width, n int) *Columns {
	var c Columns
	names := []string{"app_id", "app_name", "category", "executor_id", "odd.label", "ñ"}
	for i := range 12 {
		c.Pairs = append(c.Pairs, NewPair(names[i%len(names)], trickyLabelValues[rng.IntN(len(trickyLabelValues))]+fmt.Sprint(i%3)))
	}
	lead := []uint32{uint32(rng.IntN(len(c.Pairs))), uint32(rng.IntN(len(c.Pairs)))}
	for range n {
		refs := make([]uint32, width)
		for k := range refs {
			refs[k] = uint32(rng.IntN(len(c.Pairs)))
			if k < len(lead) && rng.IntN(4) > 0 {
				refs[k] = lead[k]
			}
		}
		c.Add(trickyValues[rng.IntN(len(trickyValues))], rng.Int64N(3)*1_700_000_000_123, refs...)
	}
	return &c
}

// A part in columns is written as expfmt writes its dto series (which
// are what the registry path gathers), sorted and without repeated label
// sets as NewPart leaves the same series, for any width, type and name;
// the text a scrape writes without keeping it is the kept text.
func TestColumnsPartMatchesExpfmt(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	types := []dto.MetricType{dto.MetricType_GAUGE, dto.MetricType_COUNTER, dto.MetricType_UNTYPED}
	for n := range 300 {
		typ := types[n%len(types)]
		name := fmt.Sprintf("spark_columns_%d", n)
		if n%5 == 0 {
			name = fmt.Sprintf("spark.columns-%d", n)
		}
		c := randomColumns(rng, n%5, 1+rng.IntN(40))
		part := NewColumnsPart(name, typ, c)

		// The same series as dto metrics, as a collector would build them.
		var ms []*dto.Metric
		for i := range c.Len() {
			m := &dto.Metric{}
			for _, r := range c.refs[i*c.width : (i+1)*c.width] {
				m.Label = append(m.Label, &dto.LabelPair{Name: proto.String(c.Pairs[r].Name()), Value: proto.String(c.Pairs[r].Value())})
			}
			switch typ {
			case dto.MetricType_GAUGE:
				m.Gauge = &dto.Gauge{Value: proto.Float64(c.values[i])}
			case dto.MetricType_COUNTER:
				m.Counter = &dto.Counter{Value: proto.Float64(c.values[i])}
			default:
				m.Untyped = &dto.Untyped{Value: proto.Float64(c.values[i])}
			}
			ms = append(ms, m)
		}
		want := NewPart(name, typ, ms)
		if part.Len() != want.Len() {
			t.Fatalf("%s: %d series, NewPart keeps %d", name, part.Len(), want.Len())
		}

		mf := &dto.MetricFamily{Name: &name, Help: proto.String("h"), Type: typ.Enum(), Metric: part.Metrics()}
		ref := expfmtText(t, mf)
		if w := expfmtText(t, &dto.MetricFamily{Name: &name, Help: proto.String("h"), Type: typ.Enum(), Metric: want.Metrics()}); ref != w {
			t.Fatalf("%s: dto series differ from NewPart's at %s", name, firstLineDiff(ref, w))
		}
		_, ref, _ = strings.Cut(ref, "\n# TYPE ")
		_, ref, _ = strings.Cut(ref, "\n")

		// Written in chunks of a small buffer, some lines longer than it.
		var out bytes.Buffer
		w := bufio.NewWriterSize(&out, 16+rng.IntN(5000))
		if err := part.writeForScrape(w); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if part.Encoded() {
			t.Errorf("%s: the first scrape kept the text", name)
		}
		if out.String() != ref {
			t.Fatalf("%s (%s): scrape text differs from expfmt at %s", name, typ, firstLineDiff(out.String(), ref))
		}
		out.Reset()
		err := part.writeForScrape(w) // a second scrape keeps it
		if err == nil {
			err = w.Flush()
		}
		kept := out.Bytes()
		if err != nil || string(kept) != ref || !part.Encoded() {
			t.Fatalf("%s: second scrape: kept %v, error %v, text equal %v", name, part.Encoded(), err, string(kept) == ref)
		}
		if text, _ := part.Text(); !bytes.Equal(text, kept) {
			t.Fatalf("%s: Text differs from the kept text", name)
		}
	}
}

// Counters' created times reach the dto series (the OTLP push's start
// times); gauges carry none.
func TestColumnsPartCreatedTimes(t *testing.T) {
	var c Columns
	c.Pairs = pairTable("executor_id", "1", "2")
	c.Add(5, 1_700_000_000_250, 0)
	c.Add(6, 0, 1)
	ms := NewColumnsPart("spark_test_total", dto.MetricType_COUNTER, &c).Metrics()
	if got := ms[0].GetCounter().GetCreatedTimestamp(); got.GetSeconds() != 1_700_000_000 || got.GetNanos() != 250e6 {
		t.Errorf("created %v, want 1700000000.25 s", got)
	}
	if ms[1].GetCounter().GetCreatedTimestamp() != nil {
		t.Errorf("unknown created time: %v, want none", ms[1].GetCounter().GetCreatedTimestamp())
	}
	if g := NewColumnsPart("spark_test", dto.MetricType_GAUGE, &c).Metrics(); g[0].Counter != nil || g[0].GetGauge().GetValue() != 5 {
		t.Errorf("gauge series %v", g[0])
	}
}

// pairTable is NewPairs as a table of pointers.
func pairTable(name string, values ...string) []*Pair {
	ps := NewPairs(name, values...)
	out := make([]*Pair, len(ps))
	for i := range ps {
		out[i] = &ps[i]
	}
	return out
}

// A series of another width, a pair not in the table or a type columns
// cannot hold is an error naming the family, on the text path, before a
// scrape writes anything of it.
func TestColumnsPartRefusesBadSeries(t *testing.T) {
	pairs := pairTable("a", "x", "y")
	for _, c := range []struct {
		name string
		typ  dto.MetricType
		add  func(*Columns)
		want string
	}{
		{"width", dto.MetricType_GAUGE, func(c *Columns) { c.Add(1, 0, 0); c.Add(2, 0, 0, 1) }, "2 labels among series with 1"},
		{"table", dto.MetricType_GAUGE, func(c *Columns) { c.Add(1, 0, 7) }, "label pair 7 of 2"},
		{"type", dto.MetricType_SUMMARY, func(c *Columns) { c.Add(1, 0, 0) }, "columns of type SUMMARY"},
	} {
		cols := &Columns{Pairs: pairs}
		c.add(cols)
		p := NewColumnsPart("spark_test_"+c.name, c.typ, cols)
		err := p.encodingErr()
		if err == nil || !strings.Contains(err.Error(), "spark_test_"+c.name) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming the family and %q", c.name, err, c.want)
		}
		if _, err := p.Text(); err == nil {
			t.Errorf("%s: Text without error", c.name)
		}
		if c.name != "width" && (p.Len() != 0 || len(p.Metrics()) != 0) {
			t.Errorf("%s: %d series kept, want none", c.name, p.Len())
		}
	}
}

// The text fast path writes a part in columns as expfmt writes the
// registry's gather of the same family, in the text format and in
// OpenMetrics.
func TestColumnsFamilyFastPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var f Family
	f.Name, f.Help, f.Type = "spark_test_columns_total", "Columns.", dto.MetricType_COUNTER
	for _, app := range []string{"app-1", "app-2", "app-3"} { // parts in order, as one per application
		// A family's labels: app_id, category, executor_id, some values
		// needing escapes, in random order and repeated.
		c := &Columns{Pairs: []*Pair{NewPair("app_id", app)}}
		c.Pairs = append(c.Pairs, pairTable("category", "cpu", `gc"`, "run\n")...)
		c.Pairs = append(c.Pairs, pairTable("executor_id", "1", "10", "2", "driver", "line\nfeed")...)
		for range 40 {
			c.Add(trickyValues[rng.IntN(len(trickyValues))], rng.Int64N(2)*1_700_000_000_000, 0, uint32(1+rng.IntN(3)), uint32(4+rng.IntN(5)))
		}
		f.Parts = append(f.Parts, NewColumnsPart(f.Name, f.Type, c))
	}
	mfs, err := GatherFamilies([]Family{f})
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []expfmt.Format{expfmt.NewFormat(expfmt.TypeTextPlain), expfmt.NewFormat(expfmt.TypeOpenMetrics)} {
		var want bytes.Buffer
		enc := expfmt.NewEncoder(&want, format)
		for _, mf := range mfs {
			if err := enc.Encode(mf); err != nil {
				t.Fatal(err)
			}
		}
		if err := enc.(expfmt.Closer).Close(); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		g, err := separate(nil, []Family{f})
		if err != nil || len(g.ready) != 1 {
			t.Fatalf("%d families ready, error %v; want the one, written from its parts", len(g.ready), err)
		}
		bw := bufio.NewWriter(&got)
		if err := writeText(bw, format, g, nil); err != nil {
			t.Fatal(err)
		}
		if err := bw.Flush(); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%s: fast path differs from the registry's at %s", format, firstLineDiff(got.String(), want.String()))
		}
	}
}
