package exporter_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/exporter/exportertest"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

func gaugeSeries(v float64, source string) *dto.Metric {
	name := "source"
	return &dto.Metric{Label: []*dto.LabelPair{{Name: &name, Value: &source}}, Gauge: &dto.Gauge{Value: &v}}
}

// partsCollector hands over sparkglance_test_answer in two parts whose
// series are out of order across parts (b, then a), one repeated, so the
// text path must merge them the registry's way; answerCollector (an
// Updater) emits the same family too.
type partsCollector struct{}

func (partsCollector) Families(context.Context) ([]exporter.Family, error) {
	t := dto.MetricType_GAUGE
	return []exporter.Family{
		{Name: "sparkglance_test_answer", Help: "Test collector: a constant.", Type: t, Parts: []*exporter.Part{
			exporter.NewPart("sparkglance_test_answer", t, []*dto.Metric{gaugeSeries(2, "b")}),
			exporter.NewPart("sparkglance_test_answer", t, []*dto.Metric{gaugeSeries(1, "a"), gaugeSeries(9, "a")}),
		}},
		{Name: "sparkglance_test_parts", Help: "Test: parts in order.", Type: t, Parts: []*exporter.Part{
			exporter.NewPart("sparkglance_test_parts", t, []*dto.Metric{gaugeSeries(3, "y"), gaugeSeries(4, "x")}),
			exporter.NewPart("sparkglance_test_parts", t, []*dto.Metric{gaugeSeries(5, "z")}),
		}},
	}, nil
}

// The text path and the registry path serve the same series of a
// FamilyCollector's families, merged with an Updater's series of the same
// family, each sorted the registry's way.
func TestFamiliesSameOnBothPaths(t *testing.T) {
	cat := exporter.NewCatalog()
	cat.Register("parts", true, exportertest.Fixed(exporter.FromFamilies(partsCollector{})))
	cat.Register("answer", true, exportertest.Fixed(exporter.FromUpdater(answerCollector{})))
	srv := exportertest.Start(t, cat)
	status, text := testkit.HTTPGet(t, nil, srv.URL+"/metrics?name[]=sparkglance_test_answer&name[]=sparkglance_test_parts", nil)
	if status != http.StatusOK {
		t.Fatalf("/metrics: %d", status)
	}
	mfs, err := srv.Gather()
	if err != nil && !strings.Contains(err.Error(), "collected before with the same name and label values") {
		t.Fatal(err)
	}
	var registry bytes.Buffer
	for _, mf := range mfs {
		if n := mf.GetName(); n == "sparkglance_test_answer" || n == "sparkglance_test_parts" {
			if _, err := expfmt.MetricFamilyToText(&registry, mf); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := `# HELP sparkglance_test_answer Test collector: a constant.
# TYPE sparkglance_test_answer gauge
sparkglance_test_answer{source="a"} 1
sparkglance_test_answer{source="b"} 2
sparkglance_test_answer{source="test"} 42
# HELP sparkglance_test_parts Test: parts in order.
# TYPE sparkglance_test_parts gauge
sparkglance_test_parts{source="x"} 4
sparkglance_test_parts{source="y"} 3
sparkglance_test_parts{source="z"} 5
`
	if text != want {
		t.Errorf("text path:\n%s\nwant:\n%s", text, want)
	}
	if registry.String() != want {
		t.Errorf("registry path:\n%s\nwant:\n%s", registry.String(), want)
	}
}

// embeddingCollector satisfies exporter.Collector by embedding one, without
// being made by FromUpdater or FromFamilies.
type embeddingCollector struct{ exporter.Collector }

// A collector is an Updater or a FamilyCollector by its type (exporter.Collector
// is sealed); what the compiler cannot see, a factory handing out nothing or a
// type that only embeds a Collector, New refuses with the collector's name.
func TestNewRefusesMissingCollector(t *testing.T) {
	for name, c := range map[string]exporter.Collector{
		"none":         nil,
		"nil_updater":  exporter.FromUpdater(nil),
		"nil_families": exporter.FromFamilies(nil),
		"embedding":    embeddingCollector{exporter.FromUpdater(answerCollector{})},
	} {
		cat := exporter.NewCatalog()
		cat.Register(name, true, exportertest.Fixed(c))
		_, err := exporter.New(*exportertest.ParseConfig(t, cat), cat, slog.New(slog.DiscardHandler))
		if err == nil || !strings.Contains(err.Error(), "collector "+name) {
			t.Errorf("New error = %v, want it to refuse collector %s", err, name)
		}
	}
}

// Encoded says whether the text is made: false until the first Text, true
// after, with the same text given again.
func TestPartEncoded(t *testing.T) {
	p := exporter.NewPart("sparkglance_test_answer", dto.MetricType_GAUGE, []*dto.Metric{gaugeSeries(1, "a")})
	if p.Encoded() {
		t.Fatal("a new part says it is encoded")
	}
	first, err := p.Text()
	if err != nil || len(first) == 0 {
		t.Fatalf("Text: %q, %v", first, err)
	}
	if !p.Encoded() {
		t.Fatal("an encoded part says it is not")
	}
	if again, _ := p.Text(); &again[0] != &first[0] {
		t.Error("the text was made again")
	}
}
