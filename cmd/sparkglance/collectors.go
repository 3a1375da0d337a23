package main

import (
	"github.com/sparkglance/sparkglance/collectors/eventlog"
	"github.com/sparkglance/sparkglance/collectors/process"
	"github.com/sparkglance/sparkglance/collectors/spark"
	"github.com/sparkglance/sparkglance/collectors/stacks"
	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/internal/jvm/discovery"
)

// wiring is every collector compiled into the binary, registered in one
// catalog, with the services they share built once here.
type wiring struct {
	catalog *exporter.Catalog
	// eventlog is the event-log collector's flag-filled configuration (the
	// demo adds its directory to it).
	eventlog *eventlog.Config
	// discovery is the node's one JVM discovery: the process collector
	// samples its JVMs and runs its scans, the stack sampler lists its JVMs
	// (and runs the scans itself when the process collector is off).
	discovery *discovery.Service
	// claims are the applications the event-log collector exports; the
	// spark collector leaves out the series both would emit for them.
	claims *eventlog.Claims
}

func newWiring() *wiring {
	w := &wiring{catalog: exporter.NewCatalog(), discovery: discovery.NewService(), claims: eventlog.NewClaims()}
	w.eventlog = eventlog.Register(w.catalog, w.claims) // eventlog: Spark event logs, per-application analysis
	spark.Register(w.catalog, w.claims)                 // spark: /metrics/json and /api/v1
	// The node agent's per-executor energy, divided among stages by the
	// event-log collector when both run in this process.
	measured := process.NewMeasuredEnergy()
	w.eventlog.Measured = measured
	// --energy.tdp-watts, declared by the node agent, is also the Spark
	// nodes' TDP of the event-log energy model.
	process.RegisterSharingEnergy(w.catalog, w.discovery, measured, &w.eventlog.NodePower.TDPWatts) // process: node agent, JVM CPU load and energy
	stacks.Register(w.catalog, w.discovery)                                                         // stacks: JVM thread dumps, blocked ratio, profiles API
	return w
}
