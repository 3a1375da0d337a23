package exporter

import (
	"strings"
	"unicode/utf8"
)

// LabelValue makes s a valid label value. Values read from event logs or
// Spark endpoints may hold invalid UTF-8 (lzf and snappy carry no checksum,
// so one flipped byte is enough): client_golang refuses such a series (and
// MustNewConstMetric panics), while written as-is in the text format it
// makes Prometheus reject the whole scrape. Every invalid sequence becomes
// U+FFFD, the same on the text fast path, the registry path and OTLP.
func LabelValue(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

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
