// Package spark is the "spark" collector: it reads Spark's own HTTP
// endpoints — the metrics system (/metrics/json, or PrometheusServlet text
// at …/prometheus) and the REST API (/api/v1) — of drivers, History
// Servers, YARN proxies and standalone masters and workers, and exports
// them with stable names and application labels.
//
// # Targets
//
// --spark.url (repeatable) and --spark.targets-file (Prometheus file_sd,
// re-read when it changes). A URL whose path ends in /json or /prometheus
// is a metrics endpoint read alone; any other URL is a Spark UI whose
// /api/v1/applications, the allexecutors and active stages of its running
// applications, and --spark.metrics-path are read. A UI without a metrics
// endpoint (404, e.g. a History Server) is read through REST only.
// Targets are read at scrape time within the scrape deadline or, with
// --spark.background-interval, in the background; then each target's
// last good read is served.
//
// # Series
//
// Metrics system: a registry key <namespace>.<instance>.<source>.<name>
// becomes spark_metrics_<source>_<name> in snake_case with labels app_id,
// app_name (from the REST API) and executor_id ("driver" or the executor
// id; "" for master, worker and shuffle-service keys). (Not a label
// named instance: it would clash with Prometheus' own target label; the
// name is executor_id, as in the REST series.) Counters and meters
// get _total; histograms and timers are summaries (timers in seconds);
// _MB gauges become _bytes, and the task-metric counters, JVM CPU and GC
// times, whose units are documented but not in their names, become
// seconds. Listener classes, listener queues, file-system schemes and
// streaming query names become the labels listener, queue, scheme and
// query. Non-numeric gauges are skipped with a debug log, as are the
// standalone master's application.<name>.<start time>.* keys. The ccspark
// plugin's driver gauge is spark_plugin_energy_total_wh{app_id, app_name}.
//
// REST API: spark_app_info{app_id, app_name, spark_version, user, attempt_id},
// spark_app_running, spark_app_start_time_seconds; for running
// applications' live executors spark_executor_cores,
// spark_executor_active_tasks, spark_executor_max_tasks, task counts,
// spark_executor_task_time_seconds_total{category="run|gc"}, byte and
// memory totals {app_id, app_name, executor_id}; for their
// running stages spark_stage_active and task counts
// {app_id, app_name, stage_id, attempt_id}.
//
// Per target: spark_target_up{target}, spark_target_scrape_duration_seconds
// and spark_target_scrape_errors_total{target, reason}. A fault (timeout,
// refused, redirect, 404, HTML, bad JSON, body over --spark.max-body-bytes…)
// fails that target alone, counts its reason and logs one line.
//
// # Overlap with the event-log collector
//
// When several targets show the same application, the first target in
// sorted order supplies its series. When the event-log collector also
// follows an application, the event log wins: the command hands this
// collector the event-log collector's [AppClaims] (see [Register]), and for
// each claimed application this collector
// omits the [SharedSeries]: every family both collectors emit
// (spark_app_info, spark_app_start_time_seconds, spark_stage_active and the
// executor families cores, active tasks, task time, input and shuffle
// bytes), defined once in package metricschema so that names, types, HELP
// and labels agree. REST totalDuration and totalGCTime are the event log's
// task time categories run and gc; the REST API knows no other category.
package spark
