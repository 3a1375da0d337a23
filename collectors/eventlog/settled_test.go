package eventlog

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/simulate"
	"github.com/sparkglance/sparkglance/internal/sparklog"
	"github.com/sparkglance/sparkglance/internal/testkit/promtest"
)

// While a live application with long straggler tasks runs, a real
// Prometheus scrapes the settled counters from their birth: for each
// category and each executor's spill, the first scraped sample is 0, the
// counter never decreases, every sample is the exact sum of a prefix of
// the independent analysis' intervals, and its increase over the
// application's life (last sample minus first) is the analysis' total to
// 1e-9. The pacing makes a scrape see 0 first: Prometheus scrapes every
// 250 ms, and an interval is 20 s of the log's time at 10× real time, so
// the first interval settles at least 2 s after the application appears.
func TestSettledCountersExactUnderPrometheus(t *testing.T) {
	t.Parallel() // waits on Prometheus or the OTLP pushes far more than it computes
	const scrapeEvery, speed = 250 * time.Millisecond, 10
	dir := t.TempDir()
	cfg := testConfig(dir)
	cfg.Interval = 20 * time.Second
	if width := time.Duration(float64(cfg.Interval) / speed); width < 8*scrapeEvery {
		t.Fatalf("an interval lasts %v of real time, want well above the %v scrape interval", width, scrapeEvery)
	}
	base, w := startExporter(t, cfg)
	prom := promtest.Start(t, fmt.Sprintf(`global:
  scrape_interval: %[1]v
  scrape_timeout: %[1]v
scrape_configs:
  - job_name: sparkglance
    static_configs:
      - targets: ['%[2]s']
`, scrapeEvery, strings.TrimPrefix(base, "http://")), nil)
	waitReady(t, w)
	waitFor(t, 30*time.Second, "Prometheus scrapes the exporter", func() bool {
		s := promQuery(prom, `up`)
		return len(s) == 1 && s[0].Value == 1
	})

	sim := liveConfig("app-20261130150000-0005")
	sim.Executors, sim.CoresPerExecutor, sim.TasksPerStage = 2, 2, 8 // the skewed and repartition(1) stages keep their 60 s and 45 s stragglers
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	final, err := simulate.Live(ctx, dir, sim, simulate.LiveOptions{Codec: "zstd", Speed: speed})
	if err != nil {
		t.Fatalf("simulate.Live: %v", err)
	}
	r := referenceReport(t, final, cfg.Interval)
	if !r.CPUTimeAvailable || r.Totals.CPUSeconds == 0 {
		t.Fatal("the simulated log has no CPU time")
	}
	want := map[string]float64{"cpu": r.Totals.CPUSeconds, "shuffle": r.Totals.ShuffleSeconds,
		"serde": r.Totals.SerdeSeconds, "gc": r.Totals.GCSeconds}
	app := `app_id="` + sim.AppID + `"`
	waitFor(t, 30*time.Second, "Prometheus scraped the final cpu total", func() bool {
		s := promQuery(prom, `spark_app_settled_task_seconds_total{`+app+`,category="cpu"}`)
		return len(s) == 1 && near(s[0].Value, want["cpu"])
	})

	prefixes := prefixSums(r.Intervals)
	// Each executor's spill, by medium: its prefix sums over the intervals.
	spill := map[[2]string][]float64{}
	for _, iv := range r.Intervals {
		for _, sp := range iv.Spill {
			for medium, v := range map[string]float64{"memory": sp.MemoryBytes, "disk": sp.DiskBytes} {
				k := [2]string{sp.ExecutorID, medium}
				if spill[k] == nil {
					spill[k] = []float64{0}
				}
				spill[k] = append(spill[k], spill[k][len(spill[k])-1]+v)
			}
		}
	}
	if len(spill) == 0 {
		t.Fatal("the simulated application spilled nothing")
	}
	type counter struct {
		name, expr string
		sums       []float64 // prefix sums; the last is the analysis' total
		spill      bool
	}
	var counters []counter
	for _, c := range []string{"cpu", "shuffle", "serde", "gc"} {
		counters = append(counters, counter{c, `spark_app_settled_task_seconds_total{` + app + `,category="` + c + `"}[10m]`, prefixes[c], false})
		if total := prefixes[c][len(prefixes[c])-1]; !near(total, want[c]) {
			t.Fatalf("%s: the intervals sum to %v, the analysis' total is %v", c, total, want[c])
		}
	}
	counters = append(counters, counter{"core", `spark_app_settled_core_seconds_total{` + app + `}[10m]`, prefixes["core"], false})
	for k, sums := range spill {
		counters = append(counters, counter{"spill " + k[0] + " " + k[1],
			`spark_executor_settled_spill_bytes_total{` + app + `,executor_id="` + k[0] + `",medium="` + k[1] + `"}[10m]`, sums, true})
	}
	for _, c := range counters {
		values := rangeValues(t, prom, c.expr)
		total := c.sums[len(c.sums)-1]
		if len(values) < 3 {
			t.Fatalf("%s: %d samples, want the run's scrapes", c.expr, len(values))
		}
		distinct := 1
		for i, v := range values {
			if i > 0 && v < values[i-1] {
				t.Errorf("%s: scrape %d shows %v after %v", c.name, i, v, values[i-1])
			}
			if i > 0 && v != values[i-1] {
				distinct++
			}
			if !isPrefixSum(v, c.sums) {
				t.Errorf("%s: scraped %v is not the sum of the first settled intervals %v", c.name, v, c.sums)
			}
		}
		first, last := values[0], values[len(values)-1]
		if first != 0 {
			t.Errorf("%s: the first scraped sample is %v, want 0: increase() misses it", c.name, first)
		}
		if !near(last-first, total) {
			t.Errorf("%s: increase over the application's life %v (last %v − first %v), analysis total %v", c.name, last-first, last, first, total)
		}
		// The application's counters take at least three values (0, some,
		// all); an executor's spill may settle in one or two intervals, or
		// in several at once when a straggler ends.
		if !c.spill && distinct < 3 {
			t.Errorf("%s: only %d distinct values over %d scrapes; the counter did not advance while the application ran", c.name, distinct, len(values))
		}
		t.Logf("%s: %d scrapes, %d distinct values, first %v, last %v (total %v over %d intervals)",
			c.name, len(values), distinct, first, last, total, len(r.Intervals))
	}
}

// prefixSums are the running sums of each category over the intervals,
// starting at 0.
func prefixSums(ivs []analysis.Interval) map[string][]float64 {
	out := map[string][]float64{}
	sums := map[string]float64{}
	for _, c := range []string{"cpu", "shuffle", "serde", "gc", "core"} {
		out[c] = []float64{0}
	}
	for _, iv := range ivs {
		for c, v := range map[string]float64{"cpu": iv.CPUSeconds, "shuffle": iv.ShuffleSeconds, "serde": iv.SerdeSeconds,
			"gc": iv.GCSeconds, "core": iv.AvailableCoreSeconds} {
			sums[c] += v
			out[c] = append(out[c], sums[c])
		}
	}
	return out
}

func isPrefixSum(v float64, sums []float64) bool {
	for _, s := range sums {
		if near(v, s) {
			return true
		}
	}
	return false
}

// rangeValues returns the samples of the one series a range query selects.
func rangeValues(t *testing.T, prom *promtest.Server, expr string) []float64 {
	t.Helper()
	var body struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Values [][2]any `json:"values"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := prom.Get("/api/v1/query?query="+url.QueryEscape(expr), &body); err != nil {
		t.Fatal(err)
	}
	if body.Status != "success" || len(body.Data.Result) != 1 {
		t.Fatalf("%s: status %s %s, %d series, want one", expr, body.Status, body.Error, len(body.Data.Result))
	}
	var out []float64
	for _, p := range body.Data.Result[0].Values {
		v, err := strconv.ParseFloat(fmt.Sprint(p[1]), 64)
		if err != nil {
			t.Fatalf("%s: value %v: %v", expr, p[1], err)
		}
		out = append(out, v)
	}
	return out
}

// A running application followed from before its first interval ended is
// first exported with its settled counters at 0, even when the first read
// already settles intervals (Prometheus' increase() would miss a first
// value above 0); the next view shows them in full. One found after its
// first interval ended (an earlier run of the exporter may have exported
// it) shows its totals at once, so that a restart counts nothing twice.
func TestSettledCountersBornAtZero(t *testing.T) {
	dir := t.TempDir()
	sim := liveConfig("app-20261130150000-0006")
	sim.Executors, sim.CoresPerExecutor, sim.TasksPerStage, sim.Live = 2, 2, 8, true
	// Written at once: the first read takes in the whole running application.
	path, err := simulate.Live(context.Background(), dir, sim, simulate.LiveOptions{Codec: "zstd"})
	if err != nil {
		t.Fatalf("simulate.Live: %v", err)
	}
	logs, err := sparklog.Discover(path)
	if err != nil || len(logs) != 1 {
		t.Fatalf("discover %s: %v (%d logs)", path, err, len(logs))
	}
	cfg := testConfig(dir)
	cfg.Interval = 5 * time.Second
	for _, tc := range []struct {
		name     string
		admitted time.Time
		born0    bool
	}{
		{"admitted before its first interval ended", sim.Start, true},
		{"admitted after its first interval ended", sim.Start.Add(time.Hour), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := New(cfg, testLogger(t))
			if err != nil {
				t.Fatal(err)
			}
			a := newTrackedApp(w, logs[0])
			a.admittedAt = tc.admitted
			if a.pollOnce(t.Context()) {
				t.Fatal("the running application's log reads as finished")
			}
			first := a.view.Load()
			if first == nil || !first.running {
				t.Fatalf("no running view after the first read: %+v", first)
			}
			full := a.settled // everything settled by the first read
			if full.core == 0 || full.task[0] == 0 || len(full.spill) == 0 {
				t.Fatalf("the first read settled no core time, CPU or spill: %+v", full)
			}
			born0 := first.settled.core == 0 && first.settled.task == [4]float64{} && len(first.settled.spill) == 0
			if born0 != tc.born0 {
				t.Errorf("first view's settled counters %+v, want at 0: %v (totals %+v)", first.settled, tc.born0, full)
			}
			if tc.born0 && !a.dirty {
				t.Error("counters were held back but no next view is due")
			}
			a.publish(false)
			next := a.view.Load()
			if next.settled.core != full.core || next.settled.task != full.task || !maps.Equal(next.settled.spill, full.spill) {
				t.Errorf("the next view's settled counters %+v, want the totals %+v", next.settled, full)
			}
		})
	}
}

// An executor's settled spill is first exported at 0: in the first view
// that lists it, its spill is held back, the application's counters are
// not; holding back the application also holds back every executor.
func TestSettledSpillOfNewExecutorBornAtZero(t *testing.T) {
	s := settledTotals{task: [4]float64{1, 2, 3, 4}, core: 10, spill: map[string][2]float64{"1": {5, 6}, "2": {7, 0}, "3": {}}}
	got, held := s.exported(false, func(id string) bool { return id == "2" || id == "3" })
	if !held || got.core != 10 || got.task != s.task || !maps.Equal(got.spill, map[string][2]float64{"1": {5, 6}, "3": {}}) {
		t.Errorf("executors 2 and 3 new: %+v (held %v), want executor 2's spill held back, the rest as is", got, held)
	}
	if len(s.spill) != 3 {
		t.Errorf("exported changed the totals: %+v", s.spill)
	}
	got, held = s.exported(true, func(string) bool { return false })
	if !held || got.core != 0 || got.task != [4]float64{} || len(got.spill) != 1 {
		t.Errorf("application held back: %+v (held %v), want 0 and only the zero spill of executor 3", got, held)
	}
	if _, held = s.exported(false, func(string) bool { return false }); held {
		t.Error("nothing new, yet something was held back")
	}
}
