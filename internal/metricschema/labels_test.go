package metricschema

import (
	"errors"
	"slices"
	"testing"
)

// Every closed label lists its values sorted: the collectors emit a
// family's series in that order, the order the text format sorts them in.
func TestClosedValuesSorted(t *testing.T) {
	for _, m := range All() {
		for _, l := range m.LabelDefs() {
			if l.Values != nil && !slices.IsSorted(l.Values) {
				t.Errorf("%s: values of %s not sorted: %v", m.Name, l.Name, l.Values)
			}
		}
		if !slices.Equal(m.Labels, names(m.LabelDefs())) {
			t.Errorf("%s: Labels %v disagree with the label definitions", m.Name, m.Labels)
		}
	}
}

// CheckLabels accepts declared names and closed values, and names the
// family, label and value it refuses.
func TestCheckLabels(t *testing.T) {
	ok := map[string]string{"app_id": "a", "app_name": "n", "executor_id": "1", "category": "run"}
	if err := ExecutorTaskTime.CheckLabels(ok); err != nil {
		t.Errorf("declared labels refused: %v", err)
	}
	for _, c := range []struct {
		family *Metric
		labels map[string]string
		want   string
	}{
		{ExecutorTaskTime, map[string]string{"category": "io"},
			`spark_executor_task_time_seconds_total: label category="io" is not one of the declared values ` + "`cpu`, `gc`, `run`, `serde`, `shuffle`"},
		{AppIntervalTimeRatio, map[string]string{"category": "run"},
			`spark_app_interval_time_ratio: label category="run" is not one of the declared values ` + "`cpu`, `gc`, `serde`, `shuffle`"},
		{AppCores, map[string]string{"executor_id": "1"}, `spark_app_cores: label executor_id (value "1") is not declared`},
	} {
		err := c.family.CheckLabels(c.labels)
		var le *LabelError
		if !errors.As(err, &le) || err.Error() != c.want {
			t.Errorf("CheckLabels(%v) = %v, want %s", c.labels, err, c.want)
		}
	}
}

// The sections own their families: each family is listed where its
// definition says, shared families in two collectors' sections.
func TestSectionsListEveryDefinition(t *testing.T) {
	in := map[*Metric][]string{}
	for _, s := range Sections() {
		for _, m := range s.Metrics {
			in[m] = append(in[m], s.Collector)
		}
	}
	if got := in[ExecutorTaskTime]; !slices.Equal(got, []string{CollectorEventlog, CollectorSpark}) {
		t.Errorf("spark_executor_task_time_seconds_total in %v, want eventlog and spark", got)
	}
	if got := in[OTLPExports]; !slices.Equal(got, []string{CollectorExporter}) {
		t.Errorf("sparkglance_otlp_exports_total in %v, want exporter", got)
	}
	if len(Shared()) != 9 {
		t.Errorf("%d shared families, want the 9 both Spark collectors emit", len(Shared()))
	}
}
