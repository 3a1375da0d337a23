package eventlog

import (
	"strings"
	"testing"

	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// Each table entry's descriptor carries its name, help and labels, and the
// families shared with the spark collector are metricschema' definitions
// themselves, not copies.
func TestMetricTableConsistent(t *testing.T) {
	if err := sm.Check([]sm.Section{{Collector: CollectorName, Metrics: Metrics()}}); err != nil {
		t.Error(err)
	}
	for _, m := range metricTable() {
		d := m.Desc().String()
		if !strings.Contains(d, `"`+m.Name+`"`) || !strings.Contains(d, `help: "`+m.Help+`"`) {
			t.Errorf("%s: descriptor %s disagrees with the table", m.Name, d)
		}
		for _, l := range m.Labels {
			if !strings.Contains(d, l) {
				t.Errorf("%s: descriptor %s lacks label %s", m.Name, d, l)
			}
		}
	}
	mine := map[string]*sm.Metric{}
	for _, m := range Metrics() {
		mine[m.Name] = m
	}
	for _, s := range sm.Shared() {
		if mine[s.Name] != s {
			t.Errorf("%s: the event-log collector must emit metricschema' definition", s.Name)
		}
	}
}
