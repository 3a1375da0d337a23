package process

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

func TestCollectorMetrics(t *testing.T) {
	f := newFixture(t, "node", "rapl")
	f.setRAPL("intel-rapl-0", 262143328850-20_000_000)
	a := f.agent(Options{})
	c := NewCollector(a)
	if c.Ready() == nil {
		t.Error("ready before the first sample")
	}
	mustDiscover(t, a, t0)
	mustSample(t, a, t0)
	if err := c.Ready(); err != nil {
		t.Errorf("not ready after a sample: %v", err)
	}
	advanceTenSeconds(f)
	f.setRAPL("intel-rapl-0", 30_000_000)
	f.setRAPL("intel-rapl-0-2", 10_500_000)
	mustSample(t, a, t0.Add(10*time.Second))

	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range families {
		for _, m := range mf.Metric {
			if m.TimestampMs != nil {
				t.Errorf("%s carries a timestamp", mf.GetName())
			}
			got[mf.GetName()+labelString(m)] = value(m)
		}
	}
	want := map[string]float64{
		`spark_node_cpu_tdp_watts{cpu_model="Intel Core i7-1165G7",source="table"}`: 28,
		`sparkglance_process_discovered{framework="flink",role="jobmanager"}`:       1,
		`sparkglance_process_discovered{framework="flink",role="taskmanager"}`:      1,
		`sparkglance_process_discovered{framework="spark",role="driver"}`:           1,
		`sparkglance_process_discovered{framework="spark",role="executor"}`:         1,
		`spark_node_energy_joules_total{source="rapl",zone="package-0"}`:            50,
		`spark_node_energy_joules_total{source="rapl",zone="dram-0"}`:               10,
		`spark_node_energy_joules_total{source="rapl",zone="idle"}`:                 36,
		`spark_process_cpu_seconds_total{app_id="spark-a1b2c3d4",container_id="3f4e5d6c7b8a99887766554433221100ffeeddccbbaa00112233445566778899",executor_id="7",framework="spark",pod_uid="0b9a7e3c-4f5d-4a1b-9c2d-8e7f6a5b4c3d",role="executor"}`:                     5,
		`spark_process_cpu_load_ratio{app_id="spark-a1b2c3d4",container_id="3f4e5d6c7b8a99887766554433221100ffeeddccbbaa00112233445566778899",executor_id="7",framework="spark",pod_uid="0b9a7e3c-4f5d-4a1b-9c2d-8e7f6a5b4c3d",role="executor"}`:                        0.25,
		`spark_executor_energy_joules_total{app_id="spark-a1b2c3d4",container_id="3f4e5d6c7b8a99887766554433221100ffeeddccbbaa00112233445566778899",executor_id="7",framework="spark",pod_uid="0b9a7e3c-4f5d-4a1b-9c2d-8e7f6a5b4c3d",role="executor",source="rapl"}`:    15,
		`spark_executor_energy_joules_total{app_id="spark-a1b2c3d4",container_id="aa11bb22cc33dd44ee55ff6600112233445566778899aabbccddeeff00112233",executor_id="driver",framework="spark",pod_uid="1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f",role="driver",source="rapl"}`: 3,
		`spark_process_cpu_seconds_total{app_id="flink-session",container_id="",executor_id="jobmanager",framework="flink",pod_uid="",role="jobmanager"}`:                                                                                                               0,
	}
	for k, v := range want {
		g, ok := got[k]
		if !ok || !near(g, v, 1e-6) {
			t.Errorf("%s = %v (present %v), want %v", k, g, ok, v)
		}
	}
	// 4 series × (cpu, load) + 4 energy + 3 node zones + tdp + 4 discovered.
	if len(got) != 4*2+4+3+1+4 {
		t.Errorf("%d samples, want 20:\n%v", len(got), got)
	}
}

func TestCollectorUpdateStopsWhenContextDone(t *testing.T) {
	f := newFixture(t, "node", "rapl-unreadable")
	a := f.agent(Options{})
	mustDiscover(t, a, t0)
	mustSample(t, a, t0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ch := make(chan prometheus.Metric, 100)
	if err := NewCollector(a).Update(ctx, ch); err == nil {
		t.Fatal("Update ignored a cancelled context")
	}
}

func TestRunSamplesUntilCancelled(t *testing.T) {
	f := newFixture(t, "node", "rapl-unreadable")
	a := f.agent(Options{DiscoveryInterval: 10 * time.Millisecond, TDPWatts: 10})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, 5*time.Millisecond) }()
	deadline := time.After(5 * time.Second)
	for {
		f.addHostCPU(10, 10)
		f.addProcTicks(4242, 10)
		if s, ok := a.Snapshot().Find(executor7); ok && s.CPUSeconds > 0 {
			break
		}
		select {
		case <-deadline:
			t.Fatal("Run did not sample the executor within 5 s")
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
}

func labelString(m *dto.Metric) string {
	var parts []string
	for _, l := range m.Label {
		parts = append(parts, l.GetName()+`="`+l.GetValue()+`"`)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func value(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	}
	return 0
}
