// Package sqlops turns the SQL events of a Spark event log into
// per-operator metrics: every execution's physical plan (the final one
// under AQE, with the accumulators of every earlier version mapped onto
// it), each plan metric's total in base units, each operator's exclusive
// time, and the native-engine details (Apache Gluten, Databricks Photon,
// NVIDIA RAPIDS) behind the findings: join build/probe split, dynamic
// filters, scan I/O tiers, pushdown skipping and spill per operator.
//
// Values come from TaskEnd accumulables (Metadata "sql") and
// SparkListenerDriverAccumUpdates. Memory grows with plans and their
// accumulators, never with tasks.
package sqlops
