package spark

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// One raw 0xFF byte in a label value of PrometheusServlet text (an
// application name in another charset, a flipped bit) loses none of the
// target's series: the text parser alone refuses the whole body.
func TestInvalidUTF8InServletText(t *testing.T) {
	realJSON := readShared(t, "spark-api", "otel-contrib", "cluster_stats_response.json")
	text := servletText(t, realJSON) +
		"metrics_executor_cpu_seconds_total{application_name=\"bad\xffname\",type=\"counters\"} 1\n"
	srv := fakeSpark(t, map[string][]byte{"/metrics/prometheus": []byte(text)})
	c, logs := newTestCollector(t, Options{URLs: []string{srv.URL + "/metrics/prometheus"}})
	out := scrape(t, c, 10*time.Second)
	if !utf8.ValidString(out) {
		t.Fatal("the scrape is not valid UTF-8")
	}
	if up := seriesLines(out, "spark_target_up{"); len(up) != 1 || !strings.HasSuffix(up[0], " 1") {
		t.Fatalf("target not up: %v; logs: %v", up, logs.Lines("level=WARN"))
	}
	if n := len(seriesLines(out, "spark_metrics_")); n < 150 {
		t.Errorf("only %d metrics-system series from the servlet text", n)
	}
}

// Metric keys of /metrics/json carry the application id (the metrics
// namespace) and names such as a listener queue's into label values.
// encoding/json already turns invalid UTF-8 into U+FFFD, so the scrape
// must keep those series with U+FFFD in place of the bad byte.
func TestInvalidUTF8InDropwizardKeys(t *testing.T) {
	body := []byte(`{"gauges":{` +
		`"bad` + "\xff" + `app.driver.BlockManager.memory.memUsed_MB":{"value":1},` +
		`"app-1.driver.LiveListenerBus.queue.ex` + "\xff" + `ecutorManagement.size":{"value":3}}}`)
	srv := fakeSpark(t, map[string][]byte{"/metrics/json": body})
	c, _ := newTestCollector(t, Options{URLs: []string{srv.URL + "/metrics/json"}})
	out := scrape(t, c, 10*time.Second)
	if !utf8.ValidString(out) {
		t.Fatal("the scrape is not valid UTF-8")
	}
	want := `spark_metrics_block_manager_memory_mem_used_bytes{app_id="bad` + "\uFFFD" + `app",app_name="",executor_id="driver"} 1.048576e+06`
	if !hasLine(out, want) {
		t.Errorf("no line %s in:\n%s", want, out)
	}
	if len(seriesLines(out, "spark_metrics_live_listener_bus_")) != 1 {
		t.Errorf("the listener queue gauge with a bad byte in its name is missing:\n%s", out)
	}
}

// The emitter makes every label value valid UTF-8 whatever the parser in
// front of it let through: prometheus.MustNewConstMetric panics on invalid
// UTF-8, which would end the whole scrape.
func TestEmitterSanitisesLabelValues(t *testing.T) {
	logger, _ := newTestLogger(t)
	ch := make(chan prometheus.Metric, 10)
	e := newEmitter(ch, noClaims{}, logger)
	desc := prometheus.NewDesc("test_metric", "help", []string{"app_id", "app_name"}, nil)
	e.send(desc, prometheus.GaugeValue, 1, "app\xff1", "name")
	e.send(desc, prometheus.GaugeValue, 2, "app\uFFFD1", "name") // the same series once sanitised
	close(ch)
	var got []prometheus.Metric
	for m := range ch {
		got = append(got, m)
	}
	if len(got) != 1 {
		t.Fatalf("%d series sent, want 1 (the second is the same once sanitised)", len(got))
	}
	var m dto.Metric
	if err := got[0].Write(&m); err != nil {
		t.Fatal(err)
	}
	if v := m.GetLabel()[0].GetValue(); v != "app\uFFFD1" {
		t.Errorf("app_id = %q, want app\uFFFD1", v)
	}
}
