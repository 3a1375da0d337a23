// Package scaletest holds the load test of the event-log exporter at fleet
// scale (build tag scale, `make scale`; too long for `make e2e`): 10,000 finished and 200 live
// applications, four shards and one unsharded process scraped by a real
// Prometheus. The figures it logs are those of docs/scaling.md.
package scaletest
