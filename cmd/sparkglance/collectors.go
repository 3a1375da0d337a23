package main

// Collectors compiled into the binary: each registers itself with the
// exporter from its init function (and declares its own flags there).
import (
	_ "github.com/sparkglance/sparkglance/collectors/process" // process: node agent, JVM CPU load and energy
	_ "github.com/sparkglance/sparkglance/collectors/spark"   // spark: /metrics/json and /api/v1
	_ "github.com/sparkglance/sparkglance/collectors/stacks"  // stacks: JVM thread dumps, blocked ratio, profiles API
)
