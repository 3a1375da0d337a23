package workloadkey

import "testing"

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"nightly-etl 2026-12-07":                                    "nightly-etl <date>",
		"nightly-etl 2026-12-07T02:00:13Z":                          "nightly-etl <timestamp>",
		"report_2026-12-07 02:00:13.512":                            "report_<timestamp>",
		"load 3f2b8c1e-1a2b-4c3d-8e9f-0a1b2c3d4e5f":                 "load <uuid>",
		"retry of app-20200706201101-0003":                          "retry of <appid>",
		"etl spark-3f2b8c1e1a2b4c3d8e9f0a1b2c3d4e5f":                "etl <appid>",
		"batch 20261207":                                            "batch <n>",
		"batch 12345":                                               "batch 12345",
		"Databricks Shell":                                          "Databricks Shell",
		"ingest application_1700000000000_0042 part 7 run 12345678": "ingest <appid> part 7 run <n>",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOf(t *testing.T) {
	props := map[string]string{"spark.app.name": "etl 2026-01-02", "team.job": "billing"}
	if got := Of(props, "etl 2026-01-03", Options{}); got != "etl <date>" {
		t.Errorf("default: %q", got)
	}
	if got := Of(props, "", Options{}); got != "etl <date>" {
		t.Errorf("from spark.app.name: %q", got)
	}
	if got := Of(props, "etl 2026-01-03", Options{Verbatim: true}); got != "etl 2026-01-03" {
		t.Errorf("verbatim: %q", got)
	}
	if got := Of(props, "etl", Options{Properties: []string{"missing", "team.job"}}); got != "billing" {
		t.Errorf("key property: %q", got)
	}
	props[Property] = "nightly"
	if got := Of(props, "etl", Options{}); got != "nightly" {
		t.Errorf("explicit: %q", got)
	}
	if got := Of(props, "etl", Options{Properties: []string{"team.job"}}); got != "billing" {
		t.Errorf("key property before explicit: %q", got)
	}
}

func TestRedact(t *testing.T) {
	got := Redact(map[string]string{
		"spark.hadoop.fs.s3a.access.key": "AKIA",
		"spark.ssl.keyPassword":          "hunter2",
		"spark.executor.memory":          "4g",
		"spark.some.url":                 "https://x?token=abc",
	})
	want := map[string]string{
		"spark.hadoop.fs.s3a.access.key": Redacted, "spark.ssl.keyPassword": Redacted,
		"spark.executor.memory": "4g", "spark.some.url": Redacted,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	custom := Redact(map[string]string{"spark.redaction.regex": "mykey", "mykey.a": "1", "spark.ssl.keyPassword": "x"})
	if custom["mykey.a"] != Redacted || custom["spark.ssl.keyPassword"] != "x" {
		t.Errorf("custom regex: %v", custom)
	}
}
