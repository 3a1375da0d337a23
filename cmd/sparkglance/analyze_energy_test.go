package main

import (
	"math"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// The --energy.* flags reach analyze's JSON and text: doubling the watts
// per core doubles every stage's energy; a bad value is a usage error.
func TestAnalyzeEnergyFlags(t *testing.T) {
	path := testkit.Events(t, "app-20161116163331-0000")
	type energy struct {
		Energy struct {
			CPUSeconds, Joules, IdleJoules, CarbonGrams float64
			Stages                                      []struct{ CPUSeconds, Joules float64 }
		} `json:"energy"`
	}
	read := func(args ...string) energy {
		out, err := runAnalyze(t, append(append([]string{"--json"}, args...), path)...)
		if err != nil {
			t.Fatal(err)
		}
		var e energy
		oneApp(t, out, &e)
		return e
	}
	e := read("--energy.core-watts=8", "--energy.idle-ratio=0", "--energy.carbon-intensity=1000")
	if len(e.Energy.Stages) != 1 || e.Energy.Stages[0].Joules != e.Energy.Stages[0].CPUSeconds*8 || e.Energy.Stages[0].CPUSeconds != 0.063551 {
		t.Errorf("stages %+v, want 0.063551 CPU s × 8 W", e.Energy.Stages)
	}
	if e.Energy.IdleJoules != 0 || math.Abs(e.Energy.CarbonGrams-e.Energy.Joules/3.6e3) > 1e-12 {
		t.Errorf("idle %v J, carbon %v g for %v J at 1000 g/kWh", e.Energy.IdleJoules, e.Energy.CarbonGrams, e.Energy.Joules)
	}
	out, err := runAnalyze(t, path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "(model: 4 W per busy core, idle cores 10% of it)") || !strings.Contains(out, "CO2e at 480 g/kWh") {
		t.Errorf("text lacks the default model:\n%s", out)
	}
	if _, err := runAnalyze(t, "--energy.idle-ratio=2", path); exitStatus(err) != 2 || !strings.Contains(err.Error(), "--energy.idle-ratio") {
		t.Errorf("--energy.idle-ratio=2: %v (status %d), want a usage error naming the flag", err, exitStatus(err))
	}
}
