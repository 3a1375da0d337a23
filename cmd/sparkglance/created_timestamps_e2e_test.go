//go:build e2e

package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sm "github.com/sparkglance/sparkglance/internal/metricschema"
	"github.com/sparkglance/sparkglance/internal/simulate"
	"github.com/sparkglance/sparkglance/internal/testkit"
	"github.com/sparkglance/sparkglance/internal/testkit/promtest"
)

// settledFamilies are the counters whose created timestamps are checked:
// the settled ones (the applications' task and core seconds, their
// executors' spill), and the workloads' runs, counted again from the same
// logs after a restart.
var settledFamilies = []string{sm.AppSettledTaskSeconds.Name, sm.AppSettledCoreSeconds.Name, sm.ExecutorSettledSpillBytes.Name, sm.WorkloadRuns.Name}

// startTimestampModes are the two ways Prometheus 3 uses a counter's
// created (start) timestamp: a 0 sample injected at it, and the timestamp
// stored with each sample and read by increase() and resets().
var startTimestampModes = []struct{ name, features string }{
	{"zero-ingestion", "created-timestamp-zero-ingestion"},
	{"st-storage", "st-storage,use-start-timestamps,promql-experimental-functions"},
}

// ctJobs scrape the same serve: protobuf forced, and the default protocols,
// which either feature turns to protobuf first. (The text formats carry no
// created timestamps: see metricsHandler.)
var ctJobs = []struct{ name, protocols string }{{"proto", "[PrometheusProto]"}, {"default", ""}}

// ctProm is one Prometheus 3 and one of its jobs.
type ctProm struct {
	mode, job string
	prom      *promtest.Server
}

func (p ctProm) String() string { return p.mode + "/" + p.job }

// sel is the selector sel (`{…}` or name{…}) restricted to p's job.
func (p ctProm) sel(selector string, more ...string) string {
	name, labels, _ := strings.Cut(selector, "{")
	labels = strings.TrimSuffix(labels, "}")
	all := append([]string{fmt.Sprintf("job=%q", p.job)}, more...)
	if labels != "" {
		all = append(all, labels)
	}
	return name + "{" + strings.Join(all, ",") + "}"
}

// Prometheus 3, under created-timestamp-zero-ingestion and under st-storage
// with use-start-timestamps, scrapes serve over the real logs, with
// protobuf forced and by default. The settled counters carry their
// application's start as created timestamp (executors: their addition),
// the workloads' runs counters their earliest run's start, the same in
// every run of serve:
//   - a log that arrives after the first scrape, of an application that
//     ran minutes ago, gets a 0 at its start (or its start stored), so
//     increase() over its arrival is its whole value, not 0;
//   - serve stopped (Prometheus sees the target down) and started again on
//     the same port reads the same logs: every such series has the value
//     it had, resets() over the whole run is 0 and increase() across the
//     restart is 0. A created timestamp taken from serve's own start would
//     put a 0 (or a start) after the last sample before the restart: a false
//     reset, and increase() counting every application (run) again.
func TestPrometheus3CreatedTimestampsSurviveRestart(t *testing.T) {
	p3 := testkit.Prometheus3(t)
	dir := linkRealLogs(t)
	args := []string{"--eventlog.dir=" + dir, "--eventlog.follow-external-links", "--eventlog.retention=876000h",
		"--log.level=warn", "--no-collector.spark"}
	addr := testkit.FreeLoopbackAddr(t)
	stop := runServeAt(t, addr, args...)
	defer func() {
		if stop != nil {
			stop()
		}
	}()
	url := "http://" + addr + "/metrics"
	promtest.WaitReady(t, "http://"+addr+"/-/ready", time.Minute, os.DevNull)
	want := settledMetrics(t, url)

	config := "global:\n  scrape_interval: 3s\n  scrape_timeout: 3s\nscrape_configs:\n"
	for _, job := range ctJobs {
		config += fmt.Sprintf("  - job_name: %q\n    static_configs: [{targets: [%q]}]\n", job.name, addr)
		if job.protocols != "" {
			config += "    scrape_protocols: " + job.protocols + "\n"
		}
	}
	var proms []ctProm
	for _, mode := range startTimestampModes {
		prom := promtest.StartRelease(t, p3, config, nil, "--enable-feature="+mode.features)
		for _, job := range ctJobs {
			proms = append(proms, ctProm{mode.name, job.name, prom})
		}
	}
	for _, p := range proms {
		waitScraped(t, p, time.Time{}, settledOf(want, ""))
	}

	// An application that ran minutes ago, its log arriving now.
	cfg := simulate.DefaultConfig()
	cfg.AppID, cfg.AppName = "app-20261207120000-0099", "arrives after the first scrape"
	cfg.Executors, cfg.TasksPerStage = 2, 8
	cfg.Start = time.Now().Add(-5 * time.Minute).Truncate(time.Millisecond)
	arrived := time.Now()
	writeSimulatedLog(t, filepath.Join(dir, cfg.AppID), cfg)
	want = settledMetrics(t, url)
	newApp := fmt.Sprintf("app_id=%q", cfg.AppID)
	newSettled := settledOf(want, cfg.AppID)
	if len(newSettled) == 0 || !hasPositive(newSettled) {
		t.Fatalf("/metrics has no settled series above 0 of %s: %v", cfg.AppID, newSettled)
	}
	for _, p := range proms {
		at := waitScraped(t, p, time.Time{}, newSettled, newApp)
		increase := settledAt(t, p, "increase(%s[1h])", at, newApp)
		for _, s := range newSettled {
			if increase[s.key] != s.value {
				t.Errorf("%s: %s arrived after the first scrape: increase() over its arrival %v, want its value %v",
					p, s.key, increase[s.key], s.value)
			}
		}
		switch p.mode {
		case "zero-ingestion":
			// The 0 injected at the created timestamp is what increase() counts from.
			for k, v := range settledAt(t, p, "min_over_time(%s[1h])", at, newApp) {
				if v != 0 {
					t.Errorf("%s: %s: lowest value %v, want the 0 injected at its created timestamp", p, k, v)
				}
			}
		case "st-storage":
			// The application's series start with it, its executors' when
			// each was added (the log says when, minutes before it arrived).
			start := float64(cfg.Start.UnixMilli())
			for k, v := range settledAt(t, p, "start_timestamp(%s)", at, newApp) {
				ms := math.Round(v * 1e3)
				if strings.HasPrefix(k, "spark_app_") && ms != start || ms < start || ms >= float64(arrived.UnixMilli()) {
					t.Errorf("%s: %s: start timestamp %v, want the application's start %v (an executor's: before the log arrived at %v)",
						p, k, v, start/1e3, float64(arrived.UnixMilli())/1e3)
				}
			}
		}
	}

	// serve stops, Prometheus sees the target down, serve starts again on
	// the same port over the same logs.
	all := settledOf(want, "")
	before := map[ctProm]time.Time{}
	for _, p := range proms {
		before[p] = waitScraped(t, p, time.Time{}, all)
	}
	stop()
	stop = nil
	stopped := time.Now()
	for _, p := range proms {
		waitUp(t, p, 0, stopped)
	}
	restarted := time.Now()
	stop = runServeAt(t, addr, args...)
	promtest.WaitReady(t, "http://"+addr+"/-/ready", time.Minute, os.DevNull)
	if again := settledOf(settledMetrics(t, url), ""); !slices.Equal(again, all) {
		t.Fatalf("/metrics' settled series after the restart differ from before:\n%s", strings.Join(diffSeries(again, all, true), "\n"))
	}
	for _, p := range proms {
		// The first scrape after the restart is where a false reset
		// would show; its values are those before.
		after := waitScraped(t, p, restarted, all)
		for k, v := range settledAt(t, p, "resets(%s[1h])", after) {
			if v != 0 {
				t.Errorf("%s: %s: resets() over the run %v, want 0", p, k, v)
			}
		}
		across := fmt.Sprintf("increase(%%s[%dms])", after.Sub(before[p]).Milliseconds()+3000)
		for k, v := range settledAt(t, p, across, after) {
			if v != 0 {
				t.Errorf("%s: %s: increase() across the restart %v, want 0", p, k, v)
			}
		}
	}
}

// linkRealLogs links the shared top-level logs (the History Server test
// directory) into a directory of their own.
func linkRealLogs(t *testing.T) string {
	t.Helper()
	src := filepath.Dir(testkit.Events(t, "README.md"))
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, e := range entries {
		if e.IsDir() || strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		if err := os.Symlink(filepath.Join(src, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// writeSimulatedLog writes the finished application cfg to path, whole:
// written beside it and renamed, so that serve never reads half of it.
func writeSimulatedLog(t *testing.T, path string, cfg simulate.Config) {
	t.Helper()
	tmp := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := simulate.WriteFile(tmp, cfg); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// settledOf are the series of settledFamilies in s, those of the
// application appID only unless it is "" (the workloads' runs have none).
func settledOf(s []flatSeries, appID string) []flatSeries {
	var out []flatSeries
	for _, x := range s {
		name, _, _ := strings.Cut(x.key, "{")
		if slices.Contains(settledFamilies, name) && (appID == "" || strings.Contains(x.key, fmt.Sprintf("app_id=%q", appID))) {
			out = append(out, x)
		}
	}
	return out
}

func hasPositive(s []flatSeries) bool {
	for _, x := range s {
		if x.value > 0 {
			return true
		}
	}
	return false
}

// settledAt evaluates wrap (a format of one %s: "increase(%s[1h])", say)
// around each settled family's selector restricted to p's job and
// matchers, at the instant at: each series' value by its flatten key.
func settledAt(t *testing.T, p ctProm, wrap string, at time.Time, matchers ...string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, name := range settledFamilies {
		expr := fmt.Sprintf(wrap, p.sel(name, matchers...))
		samples, err := p.prom.SamplesAt(expr, at)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, s := range samples {
			delete(s.Labels, "__name__")
			delete(s.Labels, "job")
			delete(s.Labels, "instance")
			out[seriesKey(name, s.Labels)] = s.Value
		}
	}
	return out
}

// waitScraped polls (a minute at most) until p's job has a successful
// scrape after since, the latest, in which the settled series (of
// matchers) are want, and returns its time. A loaded machine fails
// scrapes now and then (up 0, or the collector out of time): those are
// waited out.
func waitScraped(t *testing.T, p ctProm, since time.Time, want []flatSeries, matchers ...string) time.Time {
	t.Helper()
	var diffs []string
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		at, ok := latestUp(t, p, 1)
		if !ok || !at.After(since) {
			continue
		}
		var got []flatSeries
		for k, v := range settledAt(t, p, "%s", at, matchers...) {
			got = append(got, flatSeries{k, v})
		}
		slices.SortFunc(got, func(a, b flatSeries) int { return strings.Compare(a.key, b.key) })
		if diffs = diffSeries(got, want, true); len(diffs) == 0 {
			return at
		}
	}
	t.Fatalf("%s: no scrape after %s with the settled series of /metrics within a minute; the last differed:\n%s",
		p, since.Format(time.RFC3339Nano), strings.Join(diffs[:min(len(diffs), 20)], "\n"))
	return time.Time{}
}

// waitUp polls (a minute at most) until p's job's latest scrape, taken
// after since, has up = up, and returns its time.
func waitUp(t *testing.T, p ctProm, up float64, since time.Time) time.Time {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if at, ok := latestUp(t, p, up); ok && at.After(since) {
			return at
		}
	}
	t.Fatalf("%s: no scrape with up = %v after %s within a minute", p, up, since.Format(time.RFC3339Nano))
	return time.Time{}
}

// latestUp is the time of p's job's latest scrape if its up is up.
func latestUp(t *testing.T, p ctProm, up float64) (time.Time, bool) {
	t.Helper()
	// One query, so that the value and the time are of one sample.
	s, err := p.prom.Samples(fmt.Sprintf("timestamp(%s) and on() %s == %v", p.sel("up"), p.sel("up"), up))
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	if len(s) != 1 {
		return time.Time{}, false
	}
	return time.UnixMilli(int64(math.Round(s[0].Value * 1e3))), true
}
