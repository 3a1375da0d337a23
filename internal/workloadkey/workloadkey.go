// Package workloadkey names the recurring job an application attempt
// belongs to, and redacts Spark properties the way Spark does. It is a leaf
// package so that the analysis can put the key into every report; the
// workload package builds baselines on it.
package workloadkey

import (
	"regexp"
	"strings"
)

// Property is the Spark property that names a workload explicitly.
const Property = "spark.sparkglance.workload"

// Options change how the key is derived. The zero value is the default:
// spark.sparkglance.workload, else the normalised spark.app.name.
type Options struct {
	// Properties are looked up before spark.sparkglance.workload, in order;
	// the first one set (non-empty) is the key, taken as it is.
	Properties []string
	// Verbatim keeps spark.app.name as it is (--workload.normalize=false).
	Verbatim bool
}

// Of returns the workload key of an application with Spark properties
// props and name appName (ApplicationStart's App Name, which wins over
// spark.app.name when both are known).
func Of(props map[string]string, appName string, o Options) string {
	for _, p := range o.Properties {
		if v := strings.TrimSpace(props[p]); v != "" {
			return v
		}
	}
	if v := strings.TrimSpace(props[Property]); v != "" {
		return v
	}
	name := appName
	if name == "" {
		name = props["spark.app.name"]
	}
	if o.Verbatim {
		return name
	}
	return Normalize(name)
}

// The run-specific parts of an application name, replaced in this order
// (a timestamp before its date, an application id before its digit runs).
var placeholders = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`), "<uuid>"},
	{regexp.MustCompile(`\b(?:app|application|local|spark-application)[-_]\d{6,}(?:[-_]\d+)*\b`), "<appid>"},
	{regexp.MustCompile(`\bspark-[0-9a-f]{32}\b`), "<appid>"}, // Kubernetes: spark- and a UUID's 32 hex digits
	{regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T _]\d{2}[:.-]?\d{2}(?:[:.-]?\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?`), "<timestamp>"},
	{regexp.MustCompile(`\d{4}-\d{2}-\d{2}`), "<date>"},
	{regexp.MustCompile(`\d{6,}`), "<n>"},
}

// Normalize replaces the run-specific parts of an application name — ISO
// dates and timestamps, UUIDs, application ids and runs of six or more
// digits — by placeholders, so that "nightly 2026-12-06" and "nightly
// 2026-12-07" are one workload.
func Normalize(name string) string {
	for _, p := range placeholders {
		name = p.re.ReplaceAllString(name, p.with)
	}
	return strings.TrimSpace(name)
}

// DefaultRedactionRegex is Spark's default spark.redaction.regex.
const DefaultRedactionRegex = `(?i)secret|password|token|access[.]key`

// Redacted is what Spark writes in place of a redacted value.
const Redacted = "*********(redacted)"

var defaultRedaction = regexp.MustCompile(DefaultRedactionRegex)

// Redact returns a copy of props with the values Spark would redact
// replaced: those whose key or value matches spark.redaction.regex (taken
// from props when Go can compile it, else Spark's default). Spark already
// redacts the event log's environment; this also covers logs written with
// redaction turned off or rewritten by other tools.
func Redact(props map[string]string) map[string]string {
	re := defaultRedaction
	if custom, ok := props["spark.redaction.regex"]; ok && custom != "" {
		if c, err := regexp.Compile(custom); err == nil {
			re = c
		}
	}
	out := make(map[string]string, len(props))
	for k, v := range props {
		if re.MatchString(k) || re.MatchString(v) {
			v = Redacted
		}
		out[k] = v
	}
	return out
}
