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
	if len(Names()) == 0 || len(For(CollectorExporter)) != 4 {
		t.Errorf("schema has %d names, %d exporter families", len(Names()), len(For(CollectorExporter)))
	}
}

// UnitOf gives the schema's unit for defined families and the suffix's
// for families named at run time; a name without a unit suffix has none.
func TestUnitOf(t *testing.T) {
	for name, want := range map[string]string{
		"spark_executor_energy_joules_total":                         "J",
		"spark_app_tasks_total":                                      "{task}",
		"spark_plugin_energy_total_wh":                               "W.h",
		"sparkglance_otlp_exports_total":                             "{export}",
		"spark_metrics_executor_metrics_jvm_heap_memory_bytes":       "By",
		"spark_metrics_executor_metrics_total_gc_time_seconds_total": "s",
		"go_gc_duration_seconds":                                     "s",
		"process_cpu_seconds_total":                                  "s",
	} {
		if got, ok := UnitOf(name); !ok || got != want {
			t.Errorf("UnitOf(%s) = %q, %v; want %q", name, got, ok, want)
		}
	}
	if got, ok := UnitOf("spark_metrics_driver_dag_scheduler_job_all_jobs"); ok {
		t.Errorf("UnitOf of a name without a unit suffix = %q, want none", got)
	}
}
