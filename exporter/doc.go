// Package exporter is sparkglance's serving framework: a node_exporter-style
// registry of collectors, the Prometheus /metrics endpoint served through
// the exporter-toolkit (TLS, basic auth, landing page), health and readiness
// endpoints, optional self-profiling, and an OTLP push of the very same
// metrics.
//
// # Collectors
//
// A data source is an [Updater] (it sends const metrics per scrape) or a
// [FamilyCollector] (it hands over whole families built from an immutable
// snapshot), made a [Collector] by [FromUpdater] or [FromFamilies]: the
// compiler checks that a factory hands out one of the two. The command builds one [Catalog] and registers each
// collector's factory in it explicitly, handing over the services
// collectors share; every registered collector gets a
// --collector.<name> / --no-collector.<name> flag, and its start-up check
// ([WithCheck]) rejects flags that mean nothing without it. On each scrape the
// enabled collectors run concurrently, each bounded by the scrape deadline
// (X-Prometheus-Scrape-Timeout-Seconds minus --web.timeout-offset), and the
// scrape always carries, per collector,
//
//	sparkglance_scrape_collector_success{collector}           1 or 0
//	sparkglance_scrape_collector_duration_seconds{collector}
//
// A collector that fails, panics or overruns the deadline reports success 0;
// the others are not affected. Metrics of a collector that overran are
// dropped rather than sent half-finished.
//
// # Stateful collectors: model and view
//
// Collectors that need state between scrapes (tailing event logs, sampling
// /proc deltas or JVM stacks) follow kepler's model/view split. The model
// works in the background: the collector also implements [Runner], and its
// Run method, started once by the exporter and stopped with the exporter's
// context, reads sources on its own schedule and publishes immutable
// snapshots (swap a pointer under a mutex, or an atomic.Pointer). Update (or
// Families) is the view: it takes the latest snapshot and turns it into
// metrics,
// doing no I/O and no computation that depends on how often Prometheus
// scrapes, so overlapping scrapes and the OTLP push see consistent numbers.
// Until its first snapshot exists such a collector implements [Readier] and
// reports not ready, which keeps /-/ready at 503. HELP strings of values
// computed in the background should say so.
//
// # One exposition path
//
// A FamilyCollector's families are one value for every output: the
// registry path (protobuf, OTLP) gathers their series with client_golang's
// [prometheus.Gatherers], merged with the other collectors' and the
// exporter's own; the text path writes, for each [Part], the text encoded
// from those same series, byte for byte as expfmt writes it (textenc.go),
// kept once a second scrape needs it or the collector asks (a big scrape
// of unchanged parts then mostly copies kept text). OpenMetrics, which
// Prometheus asks for first, goes the text path too, from the same kept
// text (Part.writeOpenMetrics). A part
// of many series can hold them in columns ([Columns]: label pairs as
// indices into a table of pairs whose text is made once): its text is
// written from the columns and its dto series, for the registry path,
// built from the same columns when first gathered (columns.go). Families
// another collector also emits are merged the registry's way on both paths.
// A gzip'd response is compressed in blocks on all cores (gzip.go).
//
// # Default port
//
// The default listen address is [DefaultListenAddress] (:18090). Prometheus'
// default-port-allocation list has no free port left in 9100-9999; 18090 is
// neither in that list's "outside the standard ranges" table nor used by
// Spark (its history server is 18080, HTTPS 18480; Thrift server 10000).
package exporter
