package analysis

import "testing"

// MaxCores is a maximum, not an interval's average: a two-second
// one-core application has 1 core at most (its 10 s interval averages
// 0.2); executors alive together add up, one replacing another does not.
func TestMaxCoresIsAMaximum(t *testing.T) {
	t0 := int64(1_700_000_000_000)
	for _, c := range []struct {
		name string
		log  *logb
		want int
	}{
		{"one core for two seconds", (&logb{}).appStart(t0, "yarn").execAdded(t0, "1", 1).appEnd(t0 + 2000), 1},
		{"two executors together", (&logb{}).appStart(t0, "yarn").execAdded(t0, "1", 4).execAdded(t0+500, "2", 4).
			execRemoved(t0+1500, "2", "idle").appEnd(t0 + 60_000), 8},
		{"one replacing another", (&logb{}).appStart(t0, "yarn").execAdded(t0, "1", 4).execRemoved(t0+5000, "1", "lost").
			execAdded(t0+5000, "2", 4).appEnd(t0 + 60_000), 4},
		{"local mode, the driver's cores", (&logb{}).appStart(t0, "local[3]").appEnd(t0 + 1000), 3},
	} {
		r := analyzeLines(t, c.log.lines, DefaultConfig())
		cfg := DefaultConfig()
		cfg.CPUs = 5
		if fixed := analyzeLines(t, c.log.lines, cfg); fixed.MaxCores != 5 {
			t.Errorf("%s with --cpus 5: MaxCores %d", c.name, fixed.MaxCores)
		}
		if r.MaxCores != c.want {
			t.Errorf("%s: MaxCores %d, want %d", c.name, r.MaxCores, c.want)
		}
		for _, iv := range r.Intervals {
			if w := float64(iv.End-iv.Start) / 1e3; w > 0 && iv.AvailableCoreSeconds/w > float64(r.MaxCores)+1e-9 {
				t.Errorf("%s: interval at %d averages %.2f cores, above the maximum %d", c.name, iv.Start, iv.AvailableCoreSeconds/w, r.MaxCores)
			}
		}
	}
}
