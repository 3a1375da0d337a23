package promqltest

import (
	"slices"
	"testing"

	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

func TestMetricNames(t *testing.T) {
	for _, c := range []struct {
		expr string
		want []string
	}{
		{`spark_app_cores{app_id="a"}`, []string{"spark_app_cores"}},
		{`sum by (app_id, app_name) (rate(spark_executor_spill_bytes_total{medium="memory"}[5m])) > 1e6`,
			[]string{"spark_executor_spill_bytes_total"}},
		{`a:b:c / on (app_id) group_left (app_name) max by (app_id, app_name) (spark_app_info) and x unless y`,
			[]string{"a:b:c", "spark_app_info", "x", "y"}},
		{`quantile by (app_id) (0.5, m > 0) >= 2.5e3`, []string{"m"}},
		{`label_replace(up, "dst", "$1", "src", "(.*)")`, []string{"up"}},
	} {
		if got := MetricNames(c.expr); !slices.Equal(got, c.want) {
			t.Errorf("MetricNames(%q) = %v, want %v", c.expr, got, c.want)
		}
	}
}

func TestSubstitute(t *testing.T) {
	got := Substitute(`rate(x{app_id="$app_id"}[$__rate_interval])`)
	if want := `rate(x{app_id="app-dummy"}[1m])`; got != want {
		t.Errorf("Substitute = %q, want %q", got, want)
	}
	got = Substitute(`x{cluster=~"$cluster", job=~"${job}", instance=~"$instance"}[$__interval]`)
	if want := `x{cluster=~".*", job=~".*", instance=~".*"}[1m]`; got != want {
		t.Errorf("Substitute = %q, want %q", got, want)
	}
}

func TestSchemaHas(t *testing.T) {
	d := NewSchema([]*sm.Metric{
		sm.New("spark_app_cores", sm.Gauge, "{core}", nil, "Cores."),
		sm.NewPattern("spark_metrics_<source>_<name>", "gauge", "", nil, "Any."),
		sm.New("spark_x_seconds", sm.Summary, "s", nil, "X."),
	})
	for name, want := range map[string]bool{
		"spark_app_cores": true, "spark_metrics_jvm_heap_used": true, "spark_x_seconds_count": true,
		"spark_app_core": false, "spark_metrics_": false, "sparkglance_other": false,
	} {
		if got := d.Has(name); got != want {
			t.Errorf("Has(%q) = %v, want %v", name, got, want)
		}
	}
}

// Every exact name of the schema is known, and the pattern covers Spark's
// metrics-system families.
func TestDefinedCoversSchema(t *testing.T) {
	d := Defined()
	for _, n := range sm.Names() {
		if !d.Has(n) {
			t.Errorf("%s is in the schema but not known", n)
		}
	}
	if !d.Has("spark_metrics_executor_metrics_jvm_heap_memory_bytes") {
		t.Error("spark_metrics_* families are not known")
	}
}
