package promqltest

import (
	"regexp"
	"sort"
	"strings"

	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// Substitute replaces Grafana's template variables by dummies Prometheus
// accepts, so dashboard expressions can be parsed.
func Substitute(expr string) string {
	r := strings.NewReplacer(
		"$__rate_interval", "1m", "${__rate_interval}", "1m",
		"$__interval", "1m", "${__interval}", "1m",
		"$__range", "1h", "${__range}", "1h",
		"${app_id}", "app-dummy", "$app_id", "app-dummy",
		"${app_name}", "dummy", "$app_name", "dummy",
		// The filters' "All" value (a regular expression), as Grafana
		// expands it when nothing narrower is picked.
		"${cluster}", ".*", "$cluster", ".*",
		"${job}", ".*", "$job", ".*",
		"${instance}", ".*", "$instance", ".*",
	)
	return r.Replace(expr)
}

var (
	stringLit  = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|` + "`[^`]*`")
	braces     = regexp.MustCompile(`\{[^{}]*\}`)
	brackets   = regexp.MustCompile(`\[[^\[\]]*\]`)
	labelLists = regexp.MustCompile(`\b(by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)`)
	identifier = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*(\s*\()?`)
	keywords   = map[string]bool{"and": true, "or": true, "unless": true, "bool": true, "offset": true,
		"inf": true, "nan": true, "by": true, "without": true, "on": true, "ignoring": true,
		"group_left": true, "group_right": true, "atan2": true, "e": true}
)

// MetricNames lists the metric names an expression reads (identifiers that
// are neither functions, aggregations, keywords nor label names).
func MetricNames(expr string) []string {
	s := stringLit.ReplaceAllString(expr, `""`)
	s = braces.ReplaceAllString(s, " ")
	s = brackets.ReplaceAllString(s, " ")
	s = labelLists.ReplaceAllString(s, " ")
	seen := map[string]bool{}
	for _, m := range identifier.FindAllStringSubmatchIndex(s, -1) {
		if m[2] >= 0 { // followed by "(": a function or aggregation
			continue
		}
		if m[0] > 0 && (isDigit(s[m[0]-1]) || s[m[0]-1] == '.') { // 1e6, 0.5e3
			continue
		}
		name := s[m[0]:m[1]]
		if keywords[strings.ToLower(name)] {
			continue
		}
		seen[name] = true
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// Schema is what the metric schema (internal/metricschema) defines.
type Schema struct {
	Names    map[string]bool
	Patterns []*regexp.Regexp // from names with <placeholders>
}

var placeholder = regexp.MustCompile(`<[a-z_]+>`)

// Has reports whether name is defined, directly, as a summary's or
// histogram's _sum/_count/_bucket series, or through a pattern.
func (d Schema) Has(name string) bool {
	if d.Names[name] {
		return true
	}
	for _, suffix := range []string{"_sum", "_count", "_bucket"} {
		if base, ok := strings.CutSuffix(name, suffix); ok && d.Names[base] {
			return true
		}
	}
	for _, p := range d.Patterns {
		if p.MatchString(name) {
			return true
		}
	}
	return false
}

// NewSchema indexes metric definitions by name; a pattern such as
// spark_metrics_<source>_<name> matches any name with its placeholders
// filled.
func NewSchema(metrics []*sm.Metric) Schema {
	d := Schema{Names: map[string]bool{}}
	for _, m := range metrics {
		if m.Pattern {
			d.Patterns = append(d.Patterns, regexp.MustCompile("^"+placeholder.ReplaceAllString(regexp.QuoteMeta(m.Name), `[a-z0-9_]+`)+"$"))
			continue
		}
		d.Names[m.Name] = true
	}
	return d
}

// Defined is every family of the metric schema.
func Defined() Schema { return NewSchema(sm.All()) }
