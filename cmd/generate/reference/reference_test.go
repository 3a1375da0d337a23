package reference

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// docs/metrics.md is what the collectors' tables render to.
func TestMetricsDocUpToDate(t *testing.T) {
	var want bytes.Buffer
	if err := WriteDoc(&want); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "..", "docs", "metrics.md")
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("%s is stale or missing (%v): run make docs", path, err)
	}
}

// Every family two collectors emit is one of metricschema' shared
// definitions (so the spark collector drops it for claimed applications),
// and every shared definition really is emitted by two.
func TestSharedFamiliesAreExactlyTheOverlap(t *testing.T) {
	sections := Sections()
	if err := sm.Check(sections); err != nil {
		t.Fatal(err)
	}
	shared := map[string]bool{}
	for _, m := range sm.Shared() {
		shared[m.Name] = true
	}
	for name, by := range sm.Emitters(sections) {
		distinct := map[string]bool{}
		for _, c := range by {
			distinct[c] = true
		}
		if len(distinct) > 1 != shared[name] {
			t.Errorf("%s is emitted by %v but shared=%v", name, by, shared[name])
		}
	}
}

// Check catches what the registry would reject: the same name with
// different HELP or labels in two collectors.
func TestCheckRejectsConflicts(t *testing.T) {
	a := sm.New("spark_x_total", sm.Counter, "1", []string{"app_id"}, "X.")
	b := sm.New("spark_x_total", sm.Counter, "1", []string{"app_id", "user"}, "X.")
	c := sm.New("spark_x_total", sm.Counter, "1", []string{"app_id"}, "Other X.")
	d := sm.New("spark_y", sm.Counter, "1", nil, "Y.")
	for name, sections := range map[string][]sm.Section{
		"labels": {{Collector: "one", Metrics: []*sm.Metric{a}}, {Collector: "two", Metrics: []*sm.Metric{b}}},
		"help":   {{Collector: "one", Metrics: []*sm.Metric{a}}, {Collector: "two", Metrics: []*sm.Metric{c}}},
		"twice":  {{Collector: "one", Metrics: []*sm.Metric{a, a}}},
		"suffix": {{Collector: "one", Metrics: []*sm.Metric{d}}},
	} {
		if err := sm.Check(sections); err == nil {
			t.Errorf("%s: conflict not reported", name)
		}
	}
	if err := sm.Check([]sm.Section{{Collector: "one", Metrics: []*sm.Metric{a}}, {Collector: "two", Metrics: []*sm.Metric{a}}}); err != nil {
		t.Errorf("one definition in two collectors: %v", err)
	}
}
