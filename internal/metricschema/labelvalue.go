package metricschema

import (
	"strings"
	"unicode/utf8"
)

// LabelValue makes s a valid label value. Values read from event logs or
// Spark endpoints may hold invalid UTF-8 (lzf and snappy carry no checksum,
// so one flipped byte is enough): client_golang refuses such a series (and
// MustNewConstMetric panics), while written as-is in the text format it
// makes Prometheus reject the whole scrape, and promtool rejects a whole
// backfill file. Every invalid sequence becomes U+FFFD, the same on the
// text fast path, the registry path, OTLP and backfill.
func LabelValue(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
