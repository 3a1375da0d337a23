// Package eventlog is the event-log collector ("eventlog"): it watches
// --eventlog.dir directories (fsnotify, with polling as the fallback),
// follows every Spark application attempt found there with one
// sparklog.Follower and one analysis.App, and exports the three charts'
// numbers and Spark's own aggregates as Prometheus metrics. An
// object-store location (s3://, gs://, abfss://…) sends no notifications:
// it is listed once per --eventlog.scan-interval within a request budget,
// and its live logs are looked at as often (watcher_objects.go,
// docs/object-stores.md).
//
// Model and view: each followed log has its own goroutine that reads new
// events under one of a few worker tokens (a log holding a token longer
// than Config.SliceTime hands it on, so one huge log cannot starve the
// others) and publishes an immutable view, the first only once the log
// was read to its end (a view of part of a log read before would show its
// counters going back after a restart); a scrape (Families) only hands
// over the latest views' families, each view's series built once. A log gets its analysis when it first holds a
// token, and a finished one drops it before handing the token on, so that
// catching up on thousands of finished logs holds about one analysis per
// token; readiness waits until every log found at start was so read.
//
// Lifetime: live logs are followed as they grow; a finished application
// is kept for --eventlog.retention after its log was last written, then
// dropped, so its series disappear. Finished logs older than that are not
// read at all. --eventlog.max-apps drops the oldest finished first.
//
// Counters never go backwards while the exporter runs: per-executor totals
// are summed here from task ends (across executor re-registrations), and
// values taken from the analysis are held at their maximum.
//
// Every metric is defined once, in the metric schema (package
// metricschema); docs/metrics.md is rendered from it (make docs).
package eventlog
