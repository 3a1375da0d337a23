package wiring

import (
	"strings"
	"testing"
)

// One catalog holds every collector, and the spark collector is handed the
// event-log collector's claims, the very value the command built.
func TestWiringRegistersEveryCollector(t *testing.T) {
	w := New()
	if got := strings.Join(w.Catalog.Names(), ","); got != "eventlog,process,spark,stacks" {
		t.Errorf("collectors %s, want eventlog,process,spark,stacks", got)
	}
	if w.Claims == nil || w.Discovery == nil || w.EventLog == nil {
		t.Error("a shared service is missing")
	}
}

// serve hands the node agent's energy to the event-log collector.
func TestWiringSharesMeasuredEnergy(t *testing.T) {
	w := New()
	if w.EventLog.Measured == nil {
		t.Error("the event-log collector gets no measured energy from the process collector")
	}
}
