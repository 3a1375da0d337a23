package analysis

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// Exact quantiles use Spark's index rule min(floor(q·n), n−1): the median
// of 1..4 is 3, as the History Server shows it.
func TestQuantilesExactSparkRule(t *testing.T) {
	q := durationQuantiles{limit: 10}
	for _, v := range []int64{4, 1, 3, 2} {
		q.add(v)
	}
	s, ok := q.summary()
	if !ok || s.Min != 1 || s.P25 != 2 || s.Median != 3 || s.P75 != 4 || s.Max != 4 || !s.Exact || s.Count != 4 {
		t.Errorf("%+v", s)
	}
}

// Past the exact limit the sketch stays within 1% and keeps min/max exact.
func TestQuantilesSketch(t *testing.T) {
	q := durationQuantiles{limit: 100}
	for v := int64(1000); v >= 1; v-- {
		q.add(v)
	}
	q.add(0)
	s, _ := q.summary()
	if s.Exact || s.Count != 1001 || s.Min != 0 || s.Max != 1000 {
		t.Fatalf("%+v", s)
	}
	// Sorted values are 0..1000; index floor(q·1001) holds the value itself.
	for _, c := range []struct{ got, want float64 }{{s.P25, 250}, {s.Median, 500}, {s.P75, 750}} {
		if math.Abs(c.got-c.want)/c.want > 0.01 {
			t.Errorf("sketch %.1f, exact %.0f", c.got, c.want)
		}
	}
	if len(q.exact) != 0 || len(q.sk.counts) > 400 {
		t.Errorf("memory: %d exact, %d buckets", len(q.exact), len(q.sk.counts))
	}
}

// The JSON has the shape `analyze --json` prints (analysis.Report), with
// arrays (never null) for stages and spill.
func TestReportJSONShape(t *testing.T) {
	r := analyzePath(t, testkit.Events(t, "local-1642039451826"), DefaultConfig())
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"appId", "attemptId", "appName", "sparkVersion", "start", "end", "intervalMs", "intervals", "stages", "executors", "findings"} {
		if _, ok := m[k]; !ok {
			t.Errorf("key %q missing", k)
		}
	}
	if m["appId"] != "local-1642039451826" || m["sparkVersion"] != "3.3.0-SNAPSHOT" || m["intervalMs"] != float64(10000) {
		t.Errorf("appId %v sparkVersion %v intervalMs %v", m["appId"], m["sparkVersion"], m["intervalMs"])
	}
	ivs := m["intervals"].([]any)
	if len(ivs) == 0 {
		t.Fatal("no intervals")
	}
	for _, k := range []string{"start", "end", "availableCoreSeconds", "cpuSeconds", "serdeSeconds", "shuffleSeconds", "gcSeconds", "efficiency", "stages", "spill"} {
		v, ok := ivs[0].(map[string]any)[k]
		if !ok || v == nil {
			t.Errorf("interval key %q missing or null", k)
		}
	}
	// Spark 3.3 local mode announces the driver with 8 cores: no estimate.
	if r.LocalCores != 0 || r.CoresEstimated || r.Executors[0].TotalCores != 8 {
		t.Errorf("local cores %d estimated %v driver cores %d", r.LocalCores, r.CoresEstimated, r.Executors[0].TotalCores)
	}
}
