package exporter_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/exporter/exportertest"
)

var discard = slog.New(slog.NewTextHandler(io.Discard, nil))

// enabledAfter parses args and returns which collectors a gather runs.
func enabledAfter(t *testing.T, cat *exporter.Catalog, args ...string) []string {
	t.Helper()
	cfg := exportertest.ParseConfig(t, cat, args...)
	e, err := exporter.New(*cfg, cat, discard)
	if err != nil {
		t.Fatal(err)
	}
	families, err := e.Gatherer(context.Background()).Gather()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, mf := range families {
		if mf.GetName() != "sparkglance_scrape_collector_success" {
			continue
		}
		for _, m := range mf.GetMetric() {
			names = append(names, m.GetLabel()[0].GetValue())
		}
	}
	slices.Sort(names)
	return names
}

func TestCollectorFlags(t *testing.T) {
	newCat := func() *exporter.Catalog {
		cat := exporter.NewCatalog()
		cat.Register("alpha", true, exportertest.Fixed(exporter.FromUpdater(sourceCollector("alpha"))))
		cat.Register("beta", false, exportertest.Fixed(exporter.FromUpdater(sourceCollector("beta"))), exporter.WithHelp("Beta, off by default."))
		cat.Register("gamma", true, exportertest.Fixed(exporter.FromUpdater(sourceCollector("gamma"))))
		return cat
	}
	cases := []struct {
		args []string
		want []string
	}{
		{nil, []string{"alpha", "gamma"}},
		{[]string{"--collector.beta"}, []string{"alpha", "beta", "gamma"}},
		{[]string{"--no-collector.alpha"}, []string{"gamma"}},
		{[]string{"--collector.disable-defaults", "--collector.beta"}, []string{"beta"}},
		{[]string{"--collector.disable-defaults", "--collector.gamma"}, []string{"gamma"}},
		{[]string{"--collector.disable-defaults"}, nil},
	}
	for _, c := range cases {
		got := enabledAfter(t, newCat(), c.args...)
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: enabled %v, want %v", c.args, got, c.want)
		}
	}
}

// A collector's own flags are declared with its --collector flag and reach
// its factory.
func TestCollectorOwnFlags(t *testing.T) {
	cat := exporter.NewCatalog()
	var dirs []string
	var gotDirs []string
	cat.Register("logs", true, func(*slog.Logger) (exporter.Collector, error) {
		gotDirs = slices.Clone(dirs)
		return exporter.FromUpdater(answerCollector{}), nil
	}, exporter.WithFlags(func(g exporter.FlagGroup) {
		g.Flag("logs.dir", "Directory to read (repeatable).").StringsVar(&dirs)
	}))
	enabledAfter(t, cat, "--logs.dir=/a", "--logs.dir=/b")
	if !slices.Equal(gotDirs, []string{"/a", "/b"}) {
		t.Errorf("factory saw dirs %v, want [/a /b]", gotDirs)
	}
}

// A collector's start-up check runs whether or not it is enabled, and its
// error stops start-up before any collector is built.
func TestStartupCheckStopsNew(t *testing.T) {
	for _, c := range []struct {
		args    []string
		wantErr bool
	}{
		{nil, false},
		{[]string{"--collector.needy"}, false},
		{[]string{"--needy.extra"}, true},
		{[]string{"--needy.extra", "--collector.needy"}, false},
	} {
		cat := exporter.NewCatalog()
		var extra bool
		built := false
		cat.Register("needy", false, func(*slog.Logger) (exporter.Collector, error) {
			built = true
			return exporter.FromUpdater(answerCollector{}), nil
		},
			exporter.WithFlags(func(g exporter.FlagGroup) { g.Flag("needy.extra", "").BoolVar(&extra) }),
			exporter.WithCheck(func(enabled bool) error {
				if extra && !enabled {
					return errors.New("--needy.extra needs --collector.needy")
				}
				return nil
			}))
		cfg := exportertest.ParseConfig(t, cat, c.args...)
		_, err := exporter.New(*cfg, cat, discard)
		if (err != nil) != c.wantErr || (err != nil && !strings.Contains(err.Error(), "--needy.extra needs --collector.needy")) {
			t.Errorf("%v: New error = %v, want error %v", c.args, err, c.wantErr)
		}
		if err != nil && built {
			t.Errorf("%v: collector built although start-up failed", c.args)
		}
	}
}

// A factory that fails stops start-up with the collector's name.
func TestFactoryErrorStopsNew(t *testing.T) {
	cat := exporter.NewCatalog()
	cat.Register("broken", true, func(*slog.Logger) (exporter.Collector, error) {
		return nil, errors.New("no such directory /nowhere")
	})
	cfg := exportertest.ParseConfig(t, cat)
	_, err := exporter.New(*cfg, cat, discard)
	if err == nil || !strings.Contains(err.Error(), "collector broken: no such directory /nowhere") {
		t.Errorf("New error = %v, want it to name the collector and the cause", err)
	}
}

func TestRegisterRejectsProgrammingErrors(t *testing.T) {
	mustPanic := func(what string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", what)
			}
		}()
		f()
	}
	cat := exporter.NewCatalog()
	cat.Register("ok", true, exportertest.Fixed(exporter.FromUpdater(answerCollector{})))
	mustPanic("duplicate", func() { cat.Register("ok", true, exportertest.Fixed(exporter.FromUpdater(answerCollector{}))) })
	mustPanic("bad name", func() { cat.Register("Event-Log", true, exportertest.Fixed(exporter.FromUpdater(answerCollector{}))) })
	mustPanic("nil factory", func() { cat.Register("nil", true, nil) })
	exportertest.ParseConfig(t, cat)
	mustPanic("after flags", func() { cat.Register("late", true, exportertest.Fixed(exporter.FromUpdater(answerCollector{}))) })
}

// Gatherer runs collectors under the given context: an already expired one
// fails a collector that waits.
func TestGathererHonoursContext(t *testing.T) {
	cat := exporter.NewCatalog()
	cat.Register("slow", true, exportertest.Fixed(exporter.FromUpdater(slowCollector{})))
	cfg := exportertest.ParseConfig(t, cat)
	e, err := exporter.New(*cfg, cat, discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	families, err := e.Gatherer(ctx).Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range families {
		if mf.GetName() == "sparkglance_scrape_collector_success" {
			if v := mf.GetMetric()[0].GetGauge().GetValue(); v != 0 {
				t.Errorf("success = %v under a cancelled context, want 0", v)
			}
			return
		}
	}
	t.Error("no sparkglance_scrape_collector_success")
}
