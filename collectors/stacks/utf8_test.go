package stacks

import (
	"testing"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"

	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// A target's application and executor ids come from a JVM's command line
// or a Spark UI's answer: an invalid UTF-8 byte in them must not panic the
// scrape (MustNewConstMetric) but be exported as U+FFFD.
func TestInvalidUTF8TargetIDs(t *testing.T) {
	c := &Collector{}
	var durations histogram
	durations.observe(0.01)
	c.snap.Store(&Snapshot{Time: time.Unix(0, 0), Targets: []TargetSnapshot{{
		Target:    Target{Framework: "spark", AppID: "app-\xff1", ExecutorID: "3\xff", PID: 42},
		Totals:    Counts{1},
		Errors:    map[string]uint64{"time\xffout": 1},
		Durations: durations,
	}}})
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	families, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	names := map[string]bool{}
	for _, mf := range families {
		for _, m := range mf.Metric {
			for _, lp := range m.GetLabel() {
				if !utf8.ValidString(lp.GetValue()) {
					t.Errorf("%s: label %s=%q is not valid UTF-8", mf.GetName(), lp.GetName(), lp.GetValue())
				}
			}
			values := map[string]string{}
			for _, lp := range m.GetLabel() {
				values[lp.GetName()] = lp.GetValue()
			}
			if values["app_id"] == "app-\uFFFD1" && values["executor_id"] == "3\uFFFD" {
				names[mf.GetName()] = true
			}
		}
	}
	for _, m := range Metrics() {
		if m == sm.ExecutorBlockedRatio {
			continue // needs a window of samples
		}
		if !names[m.Name] {
			t.Errorf("no %s series for app-\\uFFFD1 executor 3\\uFFFD (have %v)", m.Name, names)
		}
	}
}
