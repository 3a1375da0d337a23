package process

import (
	"testing"
	"time"
)

// MeasuredEnergy hands out the agent's energy per Spark executor of one
// application, nothing before the agent is attached.
func TestMeasuredEnergyPerExecutor(t *testing.T) {
	m := NewMeasuredEnergy()
	if got := m.ExecutorJoules(executor7.AppID); got != nil {
		t.Errorf("before the agent: %v", got)
	}
	f := newFixture(t, "node", "rapl-unreadable")
	a := f.agent(Options{})
	m.Attach(a)
	mustDiscover(t, a, t0)
	mustSample(t, a, t0)
	advanceTenSeconds(f)
	mustSample(t, a, t0.Add(10*time.Second))
	got := m.ExecutorJoules(executor7.AppID)
	if len(got) != 1 || !near(got[executor7.ExecutorID], 28*10*0.25, 1e-9) {
		t.Errorf("executor energy %v, want executor %s: 70 J (the driver is no executor)", got, executor7.ExecutorID)
	}
	if got := m.ExecutorJoules("no-such-app"); got != nil {
		t.Errorf("another application: %v", got)
	}
}
