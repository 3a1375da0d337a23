package stacks

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// A target's counters began when its sampling did: they carry that time as
// their created timestamp, which the OTLP push sends as the start time, so
// a JVM found long after the exporter started gets a true first delta.
func TestCountersCarryWhenSamplingBegan(t *testing.T) {
	began := time.UnixMilli(1_700_000_123_456)
	c := &Collector{}
	c.snap.Store(&Snapshot{Time: began.Add(time.Minute), Targets: []TargetSnapshot{{
		Target:    Target{Framework: "spark", AppID: "app-1", ExecutorID: "3", PID: 42},
		Totals:    Counts{5},
		Errors:    map[string]uint64{"timeout": 1},
		FirstSeen: began,
	}}})
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	counters := 0
	for _, mf := range families {
		for _, m := range mf.Metric {
			if m.Counter == nil {
				continue
			}
			counters++
			if got := m.Counter.GetCreatedTimestamp().AsTime(); !got.Equal(began) {
				t.Errorf("%s: created %v, want %v", mf.GetName(), got, began)
			}
		}
	}
	if counters == 0 {
		t.Fatal("no counter gathered")
	}
}
