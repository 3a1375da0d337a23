package analysis

import (
	"strings"
	"testing"
)

// The energy log's allocation: executor 1 (2 cores) and 2 (1 core), both
// 0–40 s, of 4g plus the default overhead (10 %, above the 384 MiB floor).
func TestCostPricesTheAllocation(t *testing.T) {
	b := energyLog()
	b.lines[1] = `{"Event":"SparkListenerEnvironmentUpdate","Spark Properties":{"spark.master":"yarn","spark.executor.memory":"4g","spark.ssl.keyPassword":"hunter2"}}`
	cfg := DefaultConfig()
	cfg.Cost = CostModel{CoreHour: 0.5, MemoryGiBHour: 0.1, Currency: "EUR"}
	r := analyzeLines(t, b.lines, cfg)
	c := r.Cost
	if c == nil {
		t.Fatal("no cost")
	}
	// 3 cores × 40 s; 2 executors × (4 GiB + 0.4 GiB) × 40 s.
	approx(t, "core-hours", c.CoreHours, 3*40.0/3600)
	approx(t, "memory GiB-hours", c.MemoryGiBHours, 2*4.4*40/3600)
	approx(t, "total", c.Total, 3*40.0/3600*0.5+2*4.4*40/3600*0.1)
	// Task CPU 25 s of 120 available core seconds.
	approx(t, "wasted core-hours", c.WastedCoreHours, 95.0/3600)
	approx(t, "wasted", c.Wasted, c.Total*95/120)
	// Stages by their share of task run time: 30 s and 10 s.
	if len(c.Stages) != 2 {
		t.Fatalf("stages %+v", c.Stages)
	}
	approx(t, "stage 0", c.Stages[0].Cost, c.Total*0.75)
	approx(t, "stage 1", c.Stages[1].Cost, c.Total*0.25)
	if r.Properties["spark.ssl.keyPassword"] != "*********(redacted)" || r.Properties["spark.executor.memory"] != "4g" {
		t.Errorf("properties %v", r.Properties)
	}
	var text strings.Builder
	if err := WriteText(&text, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "cost 0.0264 EUR (0.0333 core-hours × 0.5 + 0.0978 memory GiB-hours × 0.1 per hour), wasted 0.0209 EUR (0.0264 idle core-hours)\n  most cost: stage 0.0 0.0198 EUR (75%), stage 1.0 0.00661 EUR (25%)\n") {
		t.Errorf("text:\n%s", text.String())
	}

	cfg.Cost.CoreHour = 0 // off
	if r := analyzeLines(t, b.lines, cfg); r.Cost != nil {
		t.Errorf("cost with --cost.core-hour=0: %+v", r.Cost)
	}
}

func TestExecutorMemoryBytes(t *testing.T) {
	for _, c := range []struct {
		props map[string]string
		want  float64
	}{
		{nil, 1<<30 + 384<<20},
		{map[string]string{"spark.executor.memory": "8g"}, 8<<30 + 0.1*(8<<30)},
		{map[string]string{"spark.executor.memory": "8g", "spark.executor.memoryOverhead": "1g"}, 9 << 30},
		{map[string]string{"spark.executor.memory": "10g", "spark.executor.memoryOverheadFactor": "0.4"}, 14 << 30},
	} {
		if got := ExecutorMemoryBytes(c.props); got != c.want {
			t.Errorf("%v: %v, want %v", c.props, got, c.want)
		}
	}
}
