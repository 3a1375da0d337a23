// Package wiring builds every collector compiled into sparkglance into one
// catalog, with the services collectors share built once and handed over:
// what `sparkglance serve` runs, and what the all-collectors tests
// (cmd/generate/reference) check, so both are one wiring. It lives under
// cmd/ because only commands may import every collector (see
// internal/layers_test.go).
package wiring

import (
	"github.com/sparkglance/sparkglance/collectors/eventlog"
	"github.com/sparkglance/sparkglance/collectors/process"
	"github.com/sparkglance/sparkglance/collectors/spark"
	"github.com/sparkglance/sparkglance/collectors/stacks"
	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/internal/jvm/discovery"
)

// Wiring is every collector, registered in one catalog.
type Wiring struct {
	Catalog *exporter.Catalog
	// EventLog is the event-log collector's flag-filled configuration (the
	// demo adds its directory to it).
	EventLog *eventlog.Config
	// Discovery is the node's one JVM discovery: the process collector
	// samples its JVMs and runs its scans, the stack sampler lists its JVMs
	// (and runs the scans itself when the process collector is off).
	Discovery *discovery.Service
	// Claims are the applications the event-log collector exports; the
	// spark collector leaves out the series both would emit for them.
	Claims *eventlog.Claims
}

// New registers every collector in a new catalog; their flags are
// declared when the catalog's flags are (exporter.AddFlags).
func New() *Wiring {
	w := &Wiring{Catalog: exporter.NewCatalog(), Discovery: discovery.NewService(), Claims: eventlog.NewClaims()}
	w.EventLog = eventlog.Register(w.Catalog, w.Claims) // eventlog: Spark event logs, per-application analysis
	spark.Register(w.Catalog, w.Claims)                 // spark: /metrics/json and /api/v1
	// The node agent's per-executor energy, divided among stages by the
	// event-log collector when both run in this process.
	measured := process.NewMeasuredEnergy()
	w.EventLog.Measured = measured
	// --energy.tdp-watts, declared by the node agent, is also the Spark
	// nodes' TDP of the event-log energy model.
	process.RegisterSharingEnergy(w.Catalog, w.Discovery, measured, &w.EventLog.NodePower.TDPWatts) // process: node agent, JVM CPU load and energy
	stacks.Register(w.Catalog, w.Discovery)                                                         // stacks: JVM thread dumps, blocked ratio, profiles API
	return w
}
