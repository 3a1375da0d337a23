package workload

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/sparkglance/sparkglance/internal/human"
)

// Delta is one measure of two runs.
type Delta struct {
	Measure Measure `json:"-"`
	Name    string  `json:"measure"`
	Base    float64 `json:"base"`
	New     float64 `json:"new"`
	Delta   float64 `json:"delta"`
	// Ratio is New / Base; 0 when Base is 0.
	Ratio float64 `json:"ratio"`
}

// StageDelta is one stage matched between two runs.
type StageDelta struct {
	Key  string        `json:"key"`
	Base *StageSummary `json:"base,omitempty"`
	New  *StageSummary `json:"new,omitempty"`
	// DeltaMs is the new run's stage wall time less the base run's.
	DeltaMs int64 `json:"deltaMs"`
	// Share is DeltaMs over the runs' wall-time difference (0 when the
	// runs took equally long).
	Share float64 `json:"share"`
}

// PropertyChange is one Spark property that differs between two runs:
// added (Base empty, Added), removed or changed. Values are redacted.
type PropertyChange struct {
	Name    string `json:"name"`
	Base    string `json:"base,omitempty"`
	New     string `json:"new,omitempty"`
	Added   bool   `json:"added,omitempty"`
	Removed bool   `json:"removed,omitempty"`
}

// String reads "name: base → new", "+name=new" or "-name (was base)".
func (p PropertyChange) String() string {
	switch {
	case p.Added:
		return fmt.Sprintf("+%s=%s", p.Name, p.New)
	case p.Removed:
		return fmt.Sprintf("-%s (was %s)", p.Name, p.Base)
	}
	return fmt.Sprintf("%s: %s → %s", p.Name, p.Base, p.New)
}

// Comparison puts two runs side by side.
type Comparison struct {
	Base     *Summary `json:"base"`
	New      *Summary `json:"new"`
	Measures []Delta  `json:"measures"`
	// Stages are the matched stages, the biggest contributors to the
	// wall-time difference first (largest DeltaMs, then key).
	Stages []StageDelta `json:"stages"`
	// OnlyBase and OnlyNew are the stages of one run only, by key.
	OnlyBase   []StageSummary   `json:"onlyBase"`
	OnlyNew    []StageSummary   `json:"onlyNew"`
	Properties []PropertyChange `json:"properties"`
	// SparkVersion is "base → new" when it changed.
	SparkVersion string `json:"sparkVersionChange,omitempty"`
	// ExecutorChanges are sentences of what differs in the executor set.
	ExecutorChanges []string `json:"executorChanges"`
}

// Compare compares the new run against the base run.
func Compare(base, nw *Summary) Comparison {
	c := Comparison{Base: base, New: nw, Measures: []Delta{}, Stages: []StageDelta{}, OnlyBase: []StageSummary{}, OnlyNew: []StageSummary{},
		Properties: PropertyDiff(base.Properties, nw.Properties), ExecutorChanges: ExecutorDiff(base.Executors, nw.Executors)}
	for _, m := range Measures() {
		b, okB := base.Values.Get(m)
		n, okN := nw.Values.Get(m)
		if !okB || !okN {
			continue
		}
		d := Delta{Measure: m, Name: m.String(), Base: b, New: n, Delta: n - b}
		if b != 0 {
			d.Ratio = n / b
		}
		c.Measures = append(c.Measures, d)
	}
	if base.SparkVersion != nw.SparkVersion {
		c.SparkVersion = base.SparkVersion + " → " + nw.SparkVersion
	}
	wallDelta := float64(nw.End-nw.Start) - float64(base.End-base.Start)
	baseStages := map[string]*StageSummary{}
	for i := range base.Stages {
		baseStages[base.Stages[i].Key] = &base.Stages[i]
	}
	matched := map[string]bool{}
	for i := range nw.Stages {
		n := &nw.Stages[i]
		b, ok := baseStages[n.Key]
		if !ok {
			c.OnlyNew = append(c.OnlyNew, *n)
			continue
		}
		matched[n.Key] = true
		d := StageDelta{Key: n.Key, Base: b, New: n, DeltaMs: n.WallMs - b.WallMs}
		if wallDelta != 0 {
			d.Share = float64(d.DeltaMs) / wallDelta
		}
		c.Stages = append(c.Stages, d)
	}
	for i := range base.Stages {
		if !matched[base.Stages[i].Key] {
			c.OnlyBase = append(c.OnlyBase, base.Stages[i])
		}
	}
	slices.SortStableFunc(c.Stages, func(x, y StageDelta) int {
		return cmp.Or(cmp.Compare(y.DeltaMs, x.DeltaMs), cmp.Compare(x.Key, y.Key))
	})
	return c
}

// Measure returns the delta of m, if both runs know it.
func (c *Comparison) Measure(m Measure) (Delta, bool) {
	for _, d := range c.Measures {
		if d.Measure == m {
			return d, true
		}
	}
	return Delta{}, false
}

// PropertyDiff lists the properties added, removed or changed from base to
// nw, by name. Properties that differ in every run (the application id,
// name and start time, the driver's host and port, UI addresses) are left
// out: they are no change of the job.
func PropertyDiff(base, nw map[string]string) []PropertyChange {
	out := []PropertyChange{}
	for _, k := range slices.Sorted(maps.Keys(base)) {
		if perRun[k] {
			continue
		}
		v, ok := nw[k]
		switch {
		case !ok:
			out = append(out, PropertyChange{Name: k, Base: base[k], Removed: true})
		case v != base[k]:
			out = append(out, PropertyChange{Name: k, Base: base[k], New: v})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(nw)) {
		if _, ok := base[k]; !ok && !perRun[k] {
			out = append(out, PropertyChange{Name: k, New: nw[k], Added: true})
		}
	}
	slices.SortStableFunc(out, func(x, y PropertyChange) int { return cmp.Compare(x.Name, y.Name) })
	return out
}

// perRun are the properties Spark sets anew for every run.
var perRun = map[string]bool{
	"spark.app.id": true, "spark.app.name": true, "spark.app.startTime": true, "spark.app.submitTime": true,
	"spark.driver.host": true, "spark.driver.port": true, "spark.ui.proxyBase": true, "spark.driver.appUIAddress": true,
	"spark.org.apache.hadoop.yarn.server.webproxy.amfilter.AmIpFilter.param.PROXY_URI_BASES": true,
	"spark.org.apache.hadoop.yarn.server.webproxy.amfilter.AmIpFilter.param.PROXY_HOSTS":     true,
	"spark.sql.warehouse.dir": true, "spark.repl.class.uri": true, "spark.repl.class.outputDir": true,
	"spark.kubernetes.driver.pod.name": true, "spark.kubernetes.executor.podNamePrefix": true,
	"spark.databricks.clusterUsageTags.clusterName": true,
}

// ExecutorDiff describes what differs between two executor sets.
func ExecutorDiff(base, nw Executors) []string {
	out := []string{}
	if base.Count != nw.Count {
		out = append(out, fmt.Sprintf("executors %d → %d", base.Count, nw.Count))
	}
	if base.Peak != nw.Peak {
		out = append(out, fmt.Sprintf("at most %d → %d at once", base.Peak, nw.Peak))
	}
	if base.Cores != nw.Cores {
		out = append(out, fmt.Sprintf("cores per executor %d → %d", base.Cores, nw.Cores))
	}
	if base.MemoryBytes != nw.MemoryBytes {
		out = append(out, fmt.Sprintf("memory per executor %s → %s", formatBytes(base.MemoryBytes), formatBytes(nw.MemoryBytes)))
	}
	if base.Hosts != nw.Hosts {
		out = append(out, fmt.Sprintf("hosts %d → %d", base.Hosts, nw.Hosts))
	}
	return out
}

// formatBytes renders bytes in binary units: 4.4 GiB, 512 MiB.
func formatBytes(b float64) string { return human.Bytes(b) }
