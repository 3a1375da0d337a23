// Package profiles is the on-demand profiler API (Flink's FLIP-375 for
// Spark executors): a client asks for a profile of one JVM, the Manager
// samples the JVM's thread dumps every interval for the requested
// duration in the background, and the aggregated stacks download as pprof,
// folded stacks or a self-contained SVG flame graph.
//
// Profiles are wall-clock, like fgprof: every Java thread that has Java
// frames is counted in every dump, whatever its state, so waiting shows up
// as much as computing ("threads": "task" keeps only task threads). The
// thread state is a pprof label, not part of the stack.
//
// Endpoints (mounted behind the exporter's web config):
//
//	POST /api/v1/profiles          {"app_id","executor_id"} or {"pid"}, "duration" s, "interval_ms"  → 202 {"id"}
//	GET  /api/v1/profiles          → {"profiles": [...]}, newest first
//	GET  /api/v1/profiles/<id>     → the profile's status
//	GET  /api/v1/profiles/<id>?format=pprof|folded|svg → the download (409 while running)
//
// 400: bad JSON, out-of-range input, unknown target; 404: unknown id; 409:
// the target already has a running profile; 415: a POST whose Content-Type
// is not application/json (so that no web page can send one cross-site).
package profiles
