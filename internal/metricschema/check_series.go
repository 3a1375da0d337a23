package metricschema

import (
	"errors"

	dto "github.com/prometheus/client_model/go"
)

// CheckSeries finds the series of gathered families that carry a label
// their family does not declare, or a value outside a closed label's (each
// problem once). Families outside the schema (client_golang's, those the
// spark collector names at run time) are left alone.
func CheckSeries(families []*dto.MetricFamily) error {
	var errs []error
	seen := map[string]bool{}
	for _, f := range families {
		m, ok := Lookup(f.GetName())
		if !ok {
			continue
		}
		for _, s := range f.GetMetric() {
			labels := make(map[string]string, len(s.GetLabel()))
			for _, l := range s.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if err := m.CheckLabels(labels); err != nil && !seen[err.Error()] {
				seen[err.Error()] = true
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}
