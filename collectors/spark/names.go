package spark

import (
	"strings"
	"unicode"
)

// sanitize does what Spark's PrometheusServlet does to a registry key:
// every character outside [a-zA-Z0-9] becomes '_'. Keys from /metrics/json
// go through it too, so that both formats meet in one spelling and share
// the naming rules below.
func sanitize(key string) string {
	var b strings.Builder
	b.Grow(len(key))
	for _, r := range key {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// snakeCase turns a sanitized key into lower snake_case, splitting
// camelCase words and acronym runs: "DAGScheduler_messageProcessingTime"
// becomes "dag_scheduler_message_processing_time".
func snakeCase(s string) string {
	var words []string
	for _, part := range strings.Split(s, "_") {
		words = append(words, splitCamel(part)...)
	}
	return strings.ToLower(strings.Join(words, "_"))
}

// splitCamel splits "JVMHeapMemory" into JVM, Heap, Memory and
// "maxOnHeapMem" into max, On, Heap, Mem; digits stay with their word.
func splitCamel(s string) []string {
	var words []string
	runes := []rune(s)
	start := 0
	for i := 1; i < len(runes); i++ {
		prev, cur := runes[i-1], runes[i]
		lowerToUpper := (unicode.IsLower(prev) || unicode.IsDigit(prev)) && unicode.IsUpper(cur)
		acronymEnd := unicode.IsUpper(prev) && unicode.IsUpper(cur) &&
			i+1 < len(runes) && unicode.IsLower(runes[i+1])
		if lowerToUpper || acronymEnd {
			words = append(words, string(runes[start:i]))
			start = i
		}
	}
	if start < len(runes) {
		words = append(words, string(runes[start:]))
	}
	return words
}

// reservedSuffixes are endings that Prometheus reserves for counters,
// histograms and summaries; a gauge must not carry them.
var reservedSuffixes = []string{"_total", "_count", "_sum", "_bucket"}

// gaugeSafe rewrites a gauge name that ends in a reserved suffix:
// "_total" is dropped (Spark's "inputRate-total" is a rate, not a counter),
// the others get "_value" appended.
func gaugeSafe(name string) string {
	if strings.HasSuffix(name, "_total") {
		return strings.TrimSuffix(name, "_total")
	}
	for _, s := range reservedSuffixes {
		if strings.HasSuffix(name, s) {
			return name + "_value"
		}
	}
	return name
}
