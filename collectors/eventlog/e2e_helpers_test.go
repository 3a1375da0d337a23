package eventlog

import (
	"testing"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/exporter/exportertest"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// startExporter serves a watcher for cfg through the real exporter on a
// loopback port and returns its base URL and the watcher.
func startExporter(t testing.TB, cfg Config, args ...string) (string, *Watcher) {
	t.Helper()
	w, err := New(cfg, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	cat := exporter.NewCatalog()
	cat.Register(CollectorName, true, exportertest.Fixed(exporter.FromFamilies(w)))
	return exportertest.Start(t, cat, args...).URL, w
}

// httpGet returns the body of a 200 answer.
func httpGet(t testing.TB, u string) string {
	t.Helper()
	return testkit.HTTPGetOK(t, u)
}
