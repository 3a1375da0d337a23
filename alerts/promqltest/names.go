package promqltest

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
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

// documentedName matches a metric name written in docs/metrics.md,
// including patterns such as spark_metrics_<source>_<name>.
var (
	documentedName = regexp.MustCompile(`\b(?:spark|sparkglance)_[a-z0-9_<>]+`)
	placeholder    = regexp.MustCompile(`<[a-z_]+>`)
)

// Docs is what docs/metrics.md documents.
type Docs struct {
	Names    map[string]bool
	Patterns []*regexp.Regexp // from names with <placeholders>
}

// Has reports whether name is documented, directly, as a summary's
// _sum/_count series, or through a pattern.
func (d Docs) Has(name string) bool {
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

// ParseDocs reads the metric names of a docs/metrics.md text.
func ParseDocs(text string) Docs {
	d := Docs{Names: map[string]bool{}}
	for _, n := range documentedName.FindAllString(text, -1) {
		if strings.Contains(n, "<") {
			d.Patterns = append(d.Patterns, regexp.MustCompile("^"+placeholder.ReplaceAllString(regexp.QuoteMeta(n), `[a-z0-9_]+`)+"$"))
			continue
		}
		d.Names[n] = true
	}
	return d
}

// Documented parses docs/metrics.md; a missing file documents nothing.
func Documented(moduleRoot string) (Docs, error) {
	b, err := os.ReadFile(filepath.Join(moduleRoot, "docs", "metrics.md"))
	if os.IsNotExist(err) {
		return ParseDocs(""), nil
	}
	if err != nil {
		return Docs{}, err
	}
	return ParseDocs(string(b)), nil
}

// Contract lists, per collector, the metric names its design promises
// (what dashboards and alerts were written against).
// A collector's names are accepted from this list only while
// docs/metrics.md documents none of them (its section is not written yet).
var Contract = map[string][]string{
	// event-log collector and exporter
	"eventlog": {"spark_app_info", "spark_app_start_time_seconds", "spark_app_end_time_seconds",
		"spark_app_cores", "spark_app_core_seconds_total", "spark_app_active_tasks", "spark_app_tasks_total",
		"spark_app_interval_efficiency", "spark_app_interval_time_ratio", "spark_app_interval_start_time_seconds",
		"spark_stage_active", "spark_executor_cores", "spark_executor_active_tasks",
		"spark_executor_task_time_seconds_total", "spark_executor_spill_bytes_total", "spark_executor_interval_spill_bytes",
		"spark_executor_shuffle_read_bytes_total", "spark_executor_shuffle_write_bytes_total",
		"spark_executor_input_bytes_total", "spark_executor_output_bytes_total", "spark_app_finding",
		"sparkglance_build_info", "sparkglance_eventlog_apps", "sparkglance_eventlog_bytes_read_total",
		"sparkglance_eventlog_events_total", "sparkglance_eventlog_errors_total", "sparkglance_eventlog_lag_seconds",
		"sparkglance_scrape_collector_success", "sparkglance_scrape_collector_duration_seconds"},
	// node agent
	"process": {"spark_process_cpu_seconds_total", "spark_process_cpu_load_ratio", "spark_executor_energy_joules_total",
		"spark_node_energy_joules_total", "spark_node_cpu_tdp_watts", "sparkglance_process_discovered"},
	// stack sampling
	"stacks": {"spark_thread_samples_total", "spark_executor_blocked_ratio",
		"sparkglance_stacks_dump_duration_seconds", "sparkglance_stacks_errors_total"},
	// Spark endpoints; spark_metrics_* follow Spark's own key names
	"spark": {"spark_plugin_energy_total_wh", "spark_target_up",
		"spark_metrics_executor_metrics_jvm_heap_memory_bytes", "spark_metrics_executor_metrics_total_gc_time_seconds_total"},
	// SQL operators
	"sql": {"spark_sql_executions_total", "spark_sql_execution_duration_seconds",
		"spark_sql_operator_time_seconds_total", "spark_sql_operator_spill_bytes_total", "spark_sql_operator_peak_memory_bytes"},
}
