package testkit

import (
	"encoding/json"
	"os"
	"testing"
)

// OTelSparkApp is the application of the otel-contrib captures under
// shared/spark-api: one Spark 3.4.0 driver in local mode.
const OTelSparkApp = "local-1682603253681"

// OTelSparkRoutes serves the otel-contrib captures of that driver by path,
// for ServeJSON. The stages capture lists two COMPLETE stages; so that the
// active stages path has something to show, stage 1 is marked ACTIVE (the
// only edit). metricsJSON replaces /metrics/json when not nil.
func OTelSparkRoutes(t testing.TB, metricsJSON []byte) map[string][]byte {
	t.Helper()
	stages := ReadShared(t, "spark-api", "otel-contrib", "stages_stats_response.json")
	var list []map[string]any
	if err := json.Unmarshal(stages, &list); err != nil {
		t.Fatal(err)
	}
	for _, s := range list {
		if s["stageId"] == 1.0 {
			s["status"] = "ACTIVE"
		}
	}
	active, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	if metricsJSON == nil {
		metricsJSON = ReadShared(t, "spark-api", "otel-contrib", "cluster_stats_response.json")
	}
	return map[string][]byte{
		"/api/v1/applications": ReadShared(t, "spark-api", "otel-contrib", "apps_stats_response.json"),
		"/api/v1/applications/" + OTelSparkApp + "/allexecutors": ReadShared(t, "spark-api", "otel-contrib", "executors_stats_response.json"),
		"/api/v1/applications/" + OTelSparkApp + "/stages":       active,
		"/metrics/json": metricsJSON,
	}
}

// WithCCSparkGauge adds the CCSparkDriverPlugin's driver gauge (wh
// watt-hours) to a real /metrics/json of OTelSparkApp: no recorded
// capture has the plugin loaded.
func WithCCSparkGauge(t testing.TB, metricsJSON []byte, wh float64) []byte {
	t.Helper()
	var doc map[string]json.RawMessage
	var gauges map[string]any
	if err := json.Unmarshal(metricsJSON, &doc); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(doc["gauges"], &gauges); err != nil {
		t.Fatal(err)
	}
	gauges[OTelSparkApp+".driver.plugin.io.github.tvial.ccspark.plugin.CCSparkPlugin.energy.total_Wh"] = map[string]any{"value": wh}
	var err error
	if doc["gauges"], err = json.Marshal(gauges); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// ReadShared returns a file under ../shared.
func ReadShared(t testing.TB, elem ...string) []byte {
	t.Helper()
	data, err := os.ReadFile(Path(t, elem...))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
