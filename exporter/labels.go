package exporter

import (
	"unicode/utf8"

	"github.com/sparkglance/sparkglance/internal/metricschema"
)

// LabelValue makes s a valid label value: every invalid UTF-8 sequence
// becomes U+FFFD (metricschema.LabelValue says why), the same on every output.
func LabelValue(s string) string { return metricschema.LabelValue(s) }

// LabelValues applies LabelValue to every value, copying the slice only
// when one needs it.
func LabelValues(values []string) []string {
	for i, v := range values {
		if utf8.ValidString(v) {
			continue
		}
		out := append([]string(nil), values...)
		for j := i; j < len(out); j++ {
			out[j] = LabelValue(out[j])
		}
		return out
	}
	return values
}
