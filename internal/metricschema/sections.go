package metricschema

import (
	"slices"
	"strings"
	"sync"
)

// Collector names (--collector.<name>), and the pseudo-collector of the
// exporter's own families.
const (
	CollectorEventlog = "eventlog"
	CollectorSpark    = "spark"
	CollectorProcess  = "process"
	CollectorStacks   = "stacks"
	CollectorExporter = "exporter"
)

// The sections of the schema. Each family is listed in its section (or
// sections) by the definition that declares it ([Section.New],
// [Metric.AlsoIn]), so that no second list of families can miss one or
// hold one twice. Within a section families come in declaration order, the
// order Go initialises package variables in (files by name, then top to
// bottom).
var (
	secApps       = &Section{Collector: CollectorEventlog, Title: "Applications (collector `eventlog`)"}
	secStages     = &Section{Collector: CollectorEventlog, Title: "Stages, jobs, energy and cost (collector `eventlog`)"}
	secExecutors  = &Section{Collector: CollectorEventlog, Title: "Executors (collector `eventlog`)"}
	secExecSums   = &Section{Collector: CollectorEventlog, Title: "Executors summarised per application (collector `eventlog`, `--eventlog.executor-metrics=summary`)"}
	secStreaming  = &Section{Collector: CollectorEventlog, Title: "Structured Streaming queries (collector `eventlog`)"}
	secWorkloads  = &Section{Collector: CollectorEventlog, Title: "Recurring workloads (collector `eventlog`)"}
	secReading    = &Section{Collector: CollectorEventlog, Title: "Event-log reading (collector `eventlog`)"}
	secSpark      = &Section{Collector: CollectorSpark, Title: "Spark REST API and metrics system (collector `spark`)"}
	secProcess    = &Section{Collector: CollectorProcess, Title: "Node agent: JVM CPU and energy (collector `process`)"}
	secStacks     = &Section{Collector: CollectorStacks, Title: "Thread dumps (collector `stacks`)"}
	secExporter   = &Section{Collector: CollectorExporter, Title: "Exporter"}
	sectionsInDoc = []*Section{secApps, secStages, secExecutors, secExecSums, secStreaming, secWorkloads, secReading,
		secSpark, secProcess, secStacks, secExporter}
)

// Sections is the whole schema: every family, by the collector that emits
// it, in documentation order. A family two collectors emit appears in both
// collectors' sections (the same *Metric).
func Sections() []Section {
	out := make([]Section, len(sectionsInDoc))
	for i, s := range sectionsInDoc {
		out[i] = Section{Collector: s.Collector, Title: s.Title, Metrics: slices.Clone(s.Metrics)}
	}
	return out
}

// For lists the families a collector emits, in documentation order.
func For(collector string) []*Metric {
	var out []*Metric
	for _, s := range Sections() {
		if s.Collector == collector {
			out = append(out, s.Metrics...)
		}
	}
	return out
}

// All lists every family once, in documentation order.
func All() []*Metric {
	var out []*Metric
	seen := map[string]bool{}
	for _, s := range Sections() {
		for _, m := range s.Metrics {
			if !seen[m.Name] {
				seen[m.Name] = true
				out = append(out, m)
			}
		}
	}
	return out
}

var byName = sync.OnceValue(func() map[string]*Metric {
	out := map[string]*Metric{}
	for _, m := range All() {
		if !m.Pattern {
			out[m.Name] = m
		}
	}
	return out
})

// Lookup finds a family by its exact name (patterns excluded).
func Lookup(name string) (*Metric, bool) {
	m, ok := byName()[name]
	return m, ok
}

// unitSuffixes are the unit suffixes of Prometheus' naming conventions
// and the UCUM units they stand for.
var unitSuffixes = []struct{ suffix, unit string }{
	{"_seconds", "s"}, {"_bytes", "By"}, {"_joules", "J"}, {"_watts", "W"}, {"_ratio", "1"},
}

// UnitOf is the UCUM unit of a family: the schema's for the families it
// defines, else the unit the name's suffix (before _total) stands for, for
// families named at run time (spark_metrics_<source>_<name>, whose units
// the spark collector normalises to seconds and bytes) and client_golang's
// Go runtime and process families. A name with no known suffix has none.
func UnitOf(name string) (string, bool) {
	if m, ok := Lookup(name); ok {
		return m.Unit, true
	}
	base := strings.TrimSuffix(name, "_total")
	for _, s := range unitSuffixes {
		if strings.HasSuffix(base, s.suffix) {
			return s.unit, true
		}
	}
	return "", false
}

// Names lists the exact family names (patterns excluded), sorted.
func Names() []string {
	out := make([]string, 0, len(byName()))
	for n := range byName() {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
