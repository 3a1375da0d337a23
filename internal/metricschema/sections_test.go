package metricschema

import "testing"

// The schema passes its own checks: no family defined twice by one
// collector or differently by two, counters and only counters end in
// _total, every family has a unit unless its name is a pattern.
func TestSchemaConsistent(t *testing.T) {
	if err := Check(Sections()); err != nil {
		t.Error(err)
	}
	for _, m := range All() {
		if m.Unit == "" && !m.Pattern {
			t.Errorf("%s has no unit", m.Name)
		}
		if !m.Pattern && m.Desc() == nil {
			t.Errorf("%s has no descriptor", m.Name)
		}
		if got, ok := Lookup(m.Name); !m.Pattern && (!ok || got != m) {
			t.Errorf("Lookup(%s) = %v, %v", m.Name, got, ok)
		}
	}
	if len(Names()) == 0 || len(For(CollectorExporter)) != 3 {
		t.Errorf("schema has %d names, %d exporter families", len(Names()), len(For(CollectorExporter)))
	}
}
