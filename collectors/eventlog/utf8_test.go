package eventlog

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sparkglance/sparkglance/internal/simulate"
	"github.com/sparkglance/sparkglance/internal/testkit/promtest"
)

// writeSimulatedFile writes the simulated log of cfg to path.
func writeSimulatedFile(t testing.TB, path string, cfg simulate.Config) {
	t.Helper()
	if err := simulate.WriteFile(path, cfg); err != nil {
		t.Fatal(err)
	}
}

// writeSimulatedLog writes a small finished (or, with live, unfinished)
// simulated log named after its app id into dir and returns its path.
// Every occurrence of each old string in the log is replaced by the new
// one, byte for byte, which is how a test plants damage a JSON encoder
// would never write.
func writeSimulatedLog(t testing.TB, dir, appID string, live bool, replace ...string) string {
	t.Helper()
	cfg := simulate.DefaultConfig()
	cfg.AppID, cfg.Executors, cfg.TasksPerStage, cfg.Live = appID, 2, 8, live
	cfg.AppName = "name of " + appID
	var buf bytes.Buffer
	if _, err := simulate.Write(&buf, cfg); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	for i := 0; i+1 < len(replace); i += 2 {
		if !bytes.Contains(data, []byte(replace[i])) {
			t.Fatalf("simulated log has no %q to replace", replace[i])
		}
		data = bytes.ReplaceAll(data, []byte(replace[i]), []byte(replace[i+1]))
	}
	name := appID
	if live {
		name += ".inprogress"
	}
	// Written beside the directory and renamed in, so a watcher never sees
	// the file half-written (Spark renames a finished log into place too).
	path := filepath.Join(dir, name)
	tmp, err := os.CreateTemp(filepath.Dir(dir), ".log-*")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tmp.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := tmp.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		t.Fatal(err)
	}
	return path
}

// A raw 0xFF byte in an application name (one flipped byte in a codec
// without checksum) is exported as U+FFFD on the registry path and on the
// text fast path, and the other applications are intact.
func TestInvalidUTF8AppNameOnBothPaths(t *testing.T) {
	dir := t.TempDir()
	writeSimulatedLog(t, dir, "app-20261130090000-0001", false)
	writeSimulatedLog(t, dir, "app-20261130090000-0002", false,
		"name of app-20261130090000-0002", "bad\xffname")
	base, w := startExporter(t, testConfig(dir))
	waitReady(t, w)

	mfs := gather(t, w) // a pedantic registry: fails on invalid UTF-8
	if _, ok := series(mfs, "spark_app_info", map[string]string{"app_id": "app-20261130090000-0002", "app_name": "bad\uFFFDname"}); !ok {
		t.Errorf("registry path: no spark_app_info with app_name bad\\uFFFDname")
	}
	if _, ok := series(mfs, "spark_executor_input_bytes_total", map[string]string{"app_id": "app-20261130090000-0002", "app_name": "bad\uFFFDname"}); !ok {
		t.Errorf("registry path: no executor series of the damaged application")
	}
	if _, ok := series(mfs, "spark_app_info", map[string]string{"app_id": "app-20261130090000-0001"}); !ok {
		t.Errorf("registry path: the healthy application is missing")
	}

	body := httpGet(t, base+"/metrics") // the text fast path
	if !utf8.ValidString(body) {
		t.Fatalf("the scrape is not valid UTF-8")
	}
	for _, want := range []string{`app_name="bad` + "\uFFFD" + `name"`, `app_id="app-20261130090000-0001"`} {
		if !strings.Contains(body, want) {
			t.Errorf("text scrape lacks %s", want)
		}
	}
	if !strings.Contains(body, `sparkglance_scrape_collector_success{collector="eventlog"} 1`) {
		t.Errorf("the eventlog collector did not succeed")
	}
}

// A real Prometheus accepts the scrape of an exporter following a log
// whose application name holds a raw 0xFF byte, and sees every application.
func TestPrometheusScrapesInvalidUTF8AppName(t *testing.T) {
	t.Parallel() // waits on Prometheus or the OTLP pushes far more than it computes
	dir := t.TempDir()
	writeSimulatedLog(t, dir, "app-20261130090000-0001", false)
	writeSimulatedLog(t, dir, "app-20261130090000-0002", true, "name of app-20261130090000-0002", "bad\xffname")
	base, w := startExporter(t, testConfig(dir))
	waitReady(t, w)
	prom := promtest.StartScraping(t, strings.TrimPrefix(base, "http://"))
	waitFor(t, 30*time.Second, "Prometheus sees both applications", func() bool {
		s := promQuery(prom, `count(spark_app_info)`)
		return len(s) == 1 && s[0].Value == 2
	})
	if s := promQuery(prom, `up`); len(s) != 1 || s[0].Value != 1 {
		t.Errorf("up = %v, want 1", s)
	}
	s := promQuery(prom, `spark_app_info{app_id="app-20261130090000-0002"}`)
	if len(s) != 1 || s[0].Labels["app_name"] != "bad\uFFFDname" {
		t.Errorf("the damaged name reached Prometheus as %v, want bad\\uFFFDname", s)
	}
}
