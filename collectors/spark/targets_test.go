package spark

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The targets file is re-read when it changes; a broken version keeps the
// previous targets and says so.
func TestTargetsFileReload(t *testing.T) {
	a := fakeSpark(t, otelRoutes(t, nil))
	b := fakeSpark(t, map[string][]byte{
		"/api/v1/applications": readShared(t, "oracle", "application_list_json_expectation.json"),
	})
	file := filepath.Join(t.TempDir(), "spark.json")
	stamp := time.Now().Add(-time.Hour)
	write := func(content string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		stamp = stamp.Add(time.Second) // a new mtime even on coarse clocks
		if err := os.Chtimes(file, stamp, stamp); err != nil {
			t.Fatal(err)
		}
	}
	hostOf := func(u string) string { return strings.TrimPrefix(u, "http://") }
	write(`[{"targets": ["` + hostOf(a.URL) + `"], "labels": {"env": "test"}}]`)
	c, _ := newTestCollector(t, Options{TargetsFile: file})

	text := scrape(t, c, 2*time.Second)
	if !hasLine(text, `spark_target_up{target="`+a.URL+`"} 1`) || len(seriesLines(text, "spark_target_up")) != 1 {
		t.Fatalf("first load: %q", seriesLines(text, "spark_target_up"))
	}

	write("- targets: ['" + hostOf(b.URL) + "']\n") // YAML this time
	text = scrape(t, c, 2*time.Second)
	if !hasLine(text, `spark_target_up{target="`+b.URL+`"} 1`) || len(seriesLines(text, "spark_target_up")) != 1 {
		t.Fatalf("after rewrite: %q", seriesLines(text, "spark_target_up"))
	}
	if n := len(seriesLines(text, "spark_app_info{")); n != 16 {
		t.Errorf("%d applications from the History Server answer, want 16", n)
	}
	if !hasLine(text, "spark_targets_file_load_success 1") {
		t.Error("load success should be 1")
	}

	write(`[{"targets": [`) // truncated
	text = scrape(t, c, 2*time.Second)
	if !hasLine(text, `spark_target_up{target="`+b.URL+`"} 1`) || !hasLine(text, "spark_targets_file_load_success 0") {
		t.Fatalf("broken file should keep the previous targets: %q", seriesLines(text, "spark_target"))
	}
}

func TestParseTarget(t *testing.T) {
	cases := []struct {
		raw, scheme, path, name string
		metricsOnly             bool
	}{
		{"http://driver:4040", "", "", "http://driver:4040", false},
		{"http://u:secret@master:8080/metrics/master/json?x=1", "", "", "http://master:8080/metrics/master/json", true},
		{"rm:8088", "https", "/proxy/application_1_2/", "https://rm:8088/proxy/application_1_2/", false},
	}
	for _, c := range cases {
		tg, err := parseTarget(c.raw, c.scheme, c.path)
		if err != nil || tg.name() != c.name || tg.metricsOnly != c.metricsOnly {
			t.Errorf("parseTarget(%q) = %q metricsOnly=%v err=%v; want %q %v", c.raw, tg.name(), tg.metricsOnly, err, c.name, c.metricsOnly)
		}
	}
	if _, err := parseTarget("ftp://x", "http", ""); err == nil {
		t.Error("ftp scheme accepted")
	}
}
