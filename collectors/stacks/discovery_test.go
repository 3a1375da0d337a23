package stacks

import (
	"bytes"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/collectors/process"
	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/exporter/exportertest"
	"github.com/sparkglance/sparkglance/internal/jvm/discovery"
)

// fixtureDiscovery is a discovery of the process collector's fixture node.
func fixtureDiscovery() *discovery.Service {
	d := discovery.NewService()
	d.Options.ProcfsPath = filepath.Join(fixtureDir, "node", "proc")
	d.Options.Interval, d.Options.ExitCheckInterval = time.Hour, time.Hour
	return d
}

// fixtureDir holds the process collector's fixture node and RAPL zones.
var fixtureDir = filepath.Join("..", "process", "testdata")

// listedScanner is the scanner whose JVMs the collector samples.
func listedScanner(t *testing.T, c *Collector) *discovery.Scanner {
	t.Helper()
	for _, l := range c.resolveListers(t.Context()) {
		if pl, ok := l.(processLister); ok {
			return pl.scanner
		}
	}
	t.Fatal("no process lister")
	return nil
}

// With the process collector off, the stack sampler uses the one shared
// discovery (the command's), runs it itself and says so.
func TestDiscoveryWithoutProcessCollector(t *testing.T) {
	d := fixtureDiscovery()
	cat := exporter.NewCatalog()
	process.Register(cat, d)
	Register(cat, d)
	cfg := exportertest.ParseConfig(t, cat, "--collector.stacks", "--path.procfs="+d.Options.ProcfsPath)
	if _, err := exporter.New(*cfg, cat, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	if d.Sampled() {
		t.Fatal("process collector off, yet the discovery is sampled by it")
	}
	var logs bytes.Buffer
	c, err := NewCollector(Options{Discovery: d}, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { c.endLife(); c.wg.Wait() }()
	shared, err := d.Scanner(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := listedScanner(t, c); got != shared {
		t.Error("the stack sampler lists another scanner than the shared discovery's")
	}
	if !strings.Contains(logs.String(), "process collector off: the stack sampler runs the node's one JVM discovery itself") {
		t.Errorf("log does not say who runs the discovery:\n%s", logs.String())
	}
}

// With the process collector on, both collectors share its discovery and the
// stack sampler does not run a second loop.
func TestDiscoverySharedWithProcessCollector(t *testing.T) {
	d := fixtureDiscovery()
	cat := exporter.NewCatalog()
	process.Register(cat, d)
	Register(cat, d)
	cfg := exportertest.ParseConfig(t, cat, "--collector.stacks", "--collector.process",
		"--path.procfs="+d.Options.ProcfsPath, "--path.sysfs="+filepath.Join(fixtureDir, "rapl", "sys"))
	if _, err := exporter.New(*cfg, cat, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	if !d.Sampled() {
		t.Fatal("process collector on, yet the discovery is not sampled by it")
	}
	sampledScanner, err := d.Scanner(nil)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	c, err := NewCollector(Options{Discovery: d}, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { c.endLife(); c.wg.Wait() }()
	if got := listedScanner(t, c); got != sampledScanner {
		t.Error("the stack sampler lists another scanner than the process collector's")
	}
	if !strings.Contains(logs.String(), "stack sampler shares the process collector's JVM discovery") {
		t.Errorf("log does not say the discovery is shared:\n%s", logs.String())
	}
}

// --profiling.enabled without --collector.stacks is a start-up error, not
// an API that silently answers 404.
func TestProfilingNeedsStacksCollector(t *testing.T) {
	for _, c := range []struct {
		args    []string
		wantErr bool
	}{
		{[]string{"--profiling.enabled"}, true},
		{[]string{"--profiling.enabled", "--collector.stacks", "--web.listen-address=127.0.0.1:18090"}, false},
		{[]string{"--collector.stacks"}, false},
	} {
		cat := exporter.NewCatalog()
		d := fixtureDiscovery()
		Register(cat, d)
		cfg := exportertest.ParseConfig(t, cat, c.args...)
		_, err := exporter.New(*cfg, cat, slog.New(slog.DiscardHandler))
		if (err != nil) != c.wantErr {
			t.Errorf("%v: New error %v, want error: %v", c.args, err, c.wantErr)
		}
		if err != nil && !strings.Contains(err.Error(), "--profiling.enabled needs --collector.stacks") {
			t.Errorf("%v: error %q does not name the flags", c.args, err)
		}
	}
}
