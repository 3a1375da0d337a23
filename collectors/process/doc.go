// Package process is the node agent's model of Spark and Flink JVMs: it
// samples the CPU time of the JVMs that package discovery
// (internal/jvm/discovery) finds in /proc against the host's, and turns
// that into energy: RAPL powercap counters when readable, else TDP ×
// period × load with the TDP from a flag, the embedded CodeCarbon table or
// 85 W per package.
//
// [Agent] is the model (Discover, Sample, Snapshot, Run); [Collector] is
// the Prometheus view, building const metrics from the latest snapshot.
// Counters are kept per (framework, role, app_id, executor_id), never per
// pid: a process that exits keeps its totals until Options.Retention has
// passed, and a reused pid (same number, other start time) is always a new
// process.
package process
