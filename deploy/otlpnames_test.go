package deploy_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/otlptranslator"

	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// deploy/README.md lists exactly the families that an OTLP receiver's
// default translation (otlptranslator, as Prometheus 3 and the Collector
// use it) renames, each under the name and with the unit it gets.
func TestReadmeListsOTLPTranslatedNames(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\| `([A-Za-z_]+)` \\| `[^`]+` \\|$").FindAllStringSubmatch(string(b), -1) {
		listed[m[1]] = m[2]
	}
	namer := otlptranslator.NewMetricNamer("", otlptranslator.UnderscoreEscapingWithSuffixes)
	types := map[sm.Type]otlptranslator.MetricType{sm.Counter: otlptranslator.MetricTypeMonotonicCounter,
		sm.Gauge: otlptranslator.MetricTypeGauge, sm.Summary: otlptranslator.MetricTypeSummary, sm.Histogram: otlptranslator.MetricTypeHistogram}
	renamed := 0
	for _, m := range sm.All() {
		if strings.Contains(m.Name, "<") { // a pattern (Spark's own metrics passed through)
			continue
		}
		got, err := namer.Build(otlptranslator.Metric{Name: m.Name, Unit: m.Unit, Type: types[m.Type]})
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		if got == m.Name {
			continue
		}
		renamed++
		if listed[m.Name] != got {
			t.Errorf("README.md: %s arrives as %s after OTLP; the table says %q", m.Name, got, listed[m.Name])
		}
	}
	if len(listed) != renamed {
		t.Errorf("README.md lists %d renamed families, the translation renames %d", len(listed), renamed)
	}
}
