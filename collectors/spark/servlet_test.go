package spark

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"
)

// servletText renders a real /metrics/json body the way Spark's
// PrometheusServlet renders the same registry (fact 20): no real capture
// of that format exists. Timer snapshots are printed in nanoseconds.
func servletText(t *testing.T, metricsJSON []byte) string {
	t.Helper()
	var doc struct {
		Gauges     map[string]map[string]any     `json:"gauges"`
		Counters   map[string]map[string]float64 `json:"counters"`
		Histograms map[string]map[string]any     `json:"histograms"`
		Timers     map[string]map[string]any     `json:"timers"`
	}
	if err := json.Unmarshal(metricsJSON, &doc); err != nil {
		t.Fatal(err)
	}
	var lines []string
	add := func(key, suffix, typ string, v any) {
		lines = append(lines, fmt.Sprintf("metrics_%s_%s{type=%q} %v", sanitize(key), suffix, typ, v))
	}
	suffixes := [][2]string{{"Count", "count"}, {"Max", "max"}, {"Mean", "mean"}, {"Min", "min"},
		{"50thPercentile", "p50"}, {"75thPercentile", "p75"}, {"95thPercentile", "p95"}, {"98thPercentile", "p98"},
		{"99thPercentile", "p99"}, {"999thPercentile", "p999"}, {"StdDev", "stddev"}}
	for k, g := range doc.Gauges {
		add(k, "Number", "gauges", g["value"])
		add(k, "Value", "gauges", g["value"])
	}
	for k, c := range doc.Counters {
		add(k, "Count", "counters", c["count"])
	}
	for k, h := range doc.Histograms {
		for _, s := range suffixes {
			add(k, s[0], "histograms", h[s[1]])
		}
	}
	for k, h := range doc.Timers {
		for _, s := range suffixes {
			v := h[s[1]].(float64)
			if s[0] != "Count" {
				v *= 1e6 // ms in JSON, ns in the servlet
			}
			add(k, s[0], "timers", v)
		}
		add(k, "MeanRate", "timers", h["mean_rate"])
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n"
}

// The PrometheusServlet text of a registry gives the same series as its
// JSON, apart from label values that the servlet's sanitizing flattens.
func TestServletTextMatchesJSON(t *testing.T) {
	realJSON := readShared(t, "spark-api", "otel-contrib", "cluster_stats_response.json")
	routes := otelRoutes(t, nil)
	routes["/metrics/prometheus"] = []byte(servletText(t, realJSON))
	srv := fakeSpark(t, routes)

	fromJSON, _ := newTestCollector(t, Options{URLs: []string{srv.URL}})
	fromServlet, _ := newTestCollector(t, Options{URLs: []string{srv.URL}, MetricsPath: "metrics/prometheus"})
	a := comparable(scrape(t, fromJSON, 5*time.Second))
	b := comparable(scrape(t, fromServlet, 5*time.Second))
	if len(a) < 150 {
		t.Fatalf("only %d metrics-system lines from JSON", len(a))
	}
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("first difference at line %d:\njson:    %s\nservlet: %s", i, a[i], b[i])
			}
		}
		t.Fatalf("json gives %d lines, servlet %d", len(a), len(b))
	}
}

// comparable keeps spark_metrics_* samples without listener or query
// labels, with values rounded to 9 significant digits (ns↔ms round trips).
func comparable(text string) []string {
	var out []string
	for _, line := range seriesLines(text, "spark_metrics_") {
		if strings.Contains(line, "listener=") || strings.Contains(line, "query=") {
			continue
		}
		cut := strings.LastIndexByte(line, ' ')
		var v float64
		fmt.Sscan(line[cut+1:], &v)
		out = append(out, fmt.Sprintf("%s %.9g", line[:cut], v))
	}
	return out
}

func TestSplitSanitizedKey(t *testing.T) {
	cases := []struct {
		key, ns, inst, rest string
	}{
		{"local_1593797764926_driver_BlockManager_memory_maxMem_MB", "local-1593797764926", "driver", "BlockManager_memory_maxMem_MB"},
		{"app_20221118102536_0010_7_executor_cpuTime", "app-20221118102536-0010", "7", "executor_cpuTime"},
		{"myns_driver_JVMCPU_jvmCpuTime", "myns", "driver", "JVMCPU_jvmCpuTime"},
		{"master_workers", "", "", "master_workers"},
	}
	ids := []string{"local-1593797764926", "app-20221118102536-0010"}
	for _, c := range cases {
		ns, inst, rest := splitSanitizedKey(c.key, ids)
		if ns != c.ns || inst != c.inst || rest != c.rest {
			t.Errorf("splitSanitizedKey(%q) = %q, %q, %q; want %q, %q, %q", c.key, ns, inst, rest, c.ns, c.inst, c.rest)
		}
	}
}
