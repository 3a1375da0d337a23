//go:build scale

package scaletest

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/simulate"
	"github.com/sparkglance/sparkglance/internal/testkit"
	"github.com/sparkglance/sparkglance/internal/testkit/promtest"
)

const (
	shards      = 4
	liveWriters = 50 // live applications growing while the figures are taken
	window      = 5 * time.Minute
	// A shard of 2,500 of the applications exports some 300,000 series,
	// one process 1.2 million; on the shared 2-core box (load average 20
	// to 40 from other work, a tenth of a core per process) a shard's
	// scrape took 53 s on average.
	scrapeEvery = 2 * time.Minute
)

// TestScaleTenThousandApps generates 10,000 finished and 200 live
// applications, follows them with 4 shards (then with one process), and
// checks with a real Prometheus that the shards together export every
// application exactly once. It logs the figures of docs/scaling.md:
// catch-up time, RSS, CPU, scrape time and memory per application.
func TestScaleTenThousandApps(t *testing.T) {
	testkit.RequireTool(t, "prometheus")
	bin := buildSparkglance(t)
	dir := t.TempDir()

	start := time.Now()
	cfg := simulate.DefaultFleetConfig(start)
	cfg.Live -= liveWriters // the others are written while measuring
	if n := os.Getenv("SPARKGLANCE_SCALE_FINISHED"); n != "" {
		// A quicker run of the same test: fewer finished applications.
		if _, err := fmt.Sscan(n, &cfg.Finished); err != nil || cfg.Finished < cfg.Big+cfg.Medium {
			t.Fatalf("SPARKGLANCE_SCALE_FINISHED=%q: want a number of at least %d", n, cfg.Big+cfg.Medium)
		}
	}
	apps, err := simulate.GenerateFleet(context.Background(), dir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var bytes int64
	for _, a := range apps {
		bytes += a.Bytes
	}
	t.Logf("generated %d applications (%d live, %d big), %.1f MB zstd, in %v",
		len(apps), cfg.Live, cfg.Big, float64(bytes)/1e6, time.Since(start).Round(100*time.Millisecond))

	want := map[string]bool{}
	for _, a := range apps {
		want[a.ID] = true
	}
	for i := range liveWriters {
		want[liveID(i)] = true
	}

	var sharded, single phaseFigures
	t.Run("sharded", func(t *testing.T) { sharded = runPhase(t, bin, dir, shards, "24h", want) })
	t.Run("unsharded", func(t *testing.T) { single = runPhase(t, bin, dir, 1, "24h", want) })
	if sharded.maxCatchUp > 0 && single.maxCatchUp > 0 { // both phases ran (-run may pick one)
		t.Logf("ratio unsharded/sharded: catch-up %.2f, max RSS per process %.2f, scrape %.2f",
			single.maxCatchUp.Seconds()/sharded.maxCatchUp.Seconds(), single.maxRSS/sharded.maxRSS, single.maxScrape/sharded.maxScrape)
	}

	// Retention drops the finished applications: started again with a
	// retention shorter than the finished logs' age, the processes skip
	// them unread and follow the live ones only.
	t.Run("sharded-after-retention", func(t *testing.T) { runPhase(t, bin, dir, shards, "1m", nil) })
	t.Run("unsharded-after-retention", func(t *testing.T) { runPhase(t, bin, dir, 1, "1m", nil) })
}

func liveID(i int) string { return fmt.Sprintf("app-20261202%06d-live", i) }

// phaseFigures are one phase's largest per-process figures.
type phaseFigures struct {
	maxCatchUp        time.Duration
	maxRSS, maxScrape float64
}

// runPhase runs total processes (total shards, or one unsharded process)
// over dir, writes the live applications while measuring, and checks the
// union of spark_app_info against want (skipped when want is nil).
func runPhase(t *testing.T, bin, dir string, total int, retention string, want map[string]bool) phaseFigures {
	t.Helper()
	name := fmt.Sprintf("%d shard(s), retention %s", total, retention)
	removeLive(t, dir)
	var targets []string
	var procs []*exec.Cmd
	started := time.Now()
	for shard := range total {
		addr := testkit.FreeLoopbackAddr(t)
		args := []string{"serve", "--web.listen-address=" + addr, "--log.level=warn",
			"--collector.eventlog", "--eventlog.dir=" + dir, "--eventlog.max-apps=20000", "--eventlog.retention=" + retention,
			"--no-collector.spark", "--no-collector.process", "--no-collector.stacks",
			fmt.Sprintf("--eventlog.shard=%d", shard), fmt.Sprintf("--eventlog.total-shards=%d", total)}
		cmd := exec.Command(bin, args...)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, cmd)
		targets = append(targets, addr)
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		for _, p := range procs {
			_ = p.Process.Kill()
			_ = p.Wait()
		}
	}
	defer stop()

	// Catch-up from a cold start: until /-/ready says every log was read.
	catchUp := make([]time.Duration, total)
	var wg sync.WaitGroup
	for i, addr := range targets {
		wg.Go(func() {
			client := &http.Client{Timeout: 5 * time.Second}
			for deadline := time.Now().Add(20 * time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
				resp, err := client.Get("http://" + addr + "/-/ready")
				if err == nil {
					resp.Body.Close()
					if resp.StatusCode == http.StatusOK {
						catchUp[i] = time.Since(started)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	for i, d := range catchUp {
		if d == 0 {
			t.Fatalf("%s: process %d not ready within 20 minutes", name, i)
		}
	}

	prom := promtest.Start(t, scrapeConfig(targets), nil)

	// The live applications grow while the figures are taken.
	ctx, cancel := context.WithCancel(context.Background())
	var writers sync.WaitGroup
	for i := range liveWriters {
		writers.Go(func() {
			c := simulate.DefaultConfig()
			c.AppID, c.AppName, c.Seed = liveID(i), "live job", uint64(i)
			c.Executors, c.CoresPerExecutor, c.TasksPerStage, c.Repeat = 2+i%3, 2, 32, 1000
			c.Start, c.Live = time.Now(), true
			_, _ = simulate.Live(ctx, dir, c, simulate.LiveOptions{Codec: "zstd", Speed: 4})
		})
	}
	measured := time.Now()
	time.Sleep(window) // the measuring window; Prometheus scrapes meanwhile
	cancel()
	writers.Wait()

	q := func(expr string) map[string]float64 {
		t.Helper()
		s, err := prom.Samples(expr)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, x := range s {
			out[x.Labels["instance"]+x.Labels["app_id"]] = x.Value
		}
		return out
	}
	rng := fmt.Sprintf("[%ds]", int(time.Since(measured).Seconds()))
	apps := q(`count by (instance) (spark_app_info)`)
	rss := q(`max_over_time(process_resident_memory_bytes` + rng + `)`)
	heap := q(`max_over_time(go_memstats_heap_inuse_bytes` + rng + `)`)
	cpu := q(`rate(process_cpu_seconds_total` + rng + `)`)
	scrape := q(`max_over_time(scrape_duration_seconds` + rng + `)`)
	scrapeAvg := q(`avg_over_time(scrape_duration_seconds` + rng + `)`)
	samples := q(`max_over_time(scrape_samples_scraped` + rng + `)`)
	live := q(`sum by (instance) (sparkglance_eventlog_apps{state="running"})`)

	var fig phaseFigures
	for i, addr := range targets {
		fig.maxCatchUp = max(fig.maxCatchUp, catchUp[i])
		fig.maxRSS = max(fig.maxRSS, rss[addr])
		fig.maxScrape = max(fig.maxScrape, scrape[addr])
		perApp := 0.0
		if apps[addr] > 0 {
			perApp = heap[addr] / apps[addr]
		}
		t.Logf("%s | process %d: apps %.0f (running %.0f), catch-up %v, RSS max %.0f MiB, heap in use %.0f MiB (%.1f KiB/app), CPU %.2f cores, scrape avg %.3f s max %.3f s, %.0f samples",
			name, i, apps[addr], live[addr], catchUp[i].Round(100*time.Millisecond), rss[addr]/(1<<20), heap[addr]/(1<<20), perApp/1024,
			cpu[addr], scrapeAvg[addr], scrape[addr], samples[addr])
	}
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		t.Logf("%s | load average: %s", name, strings.TrimSpace(string(load)))
	}

	if want != nil {
		// The union of the shards' applications is the fleet, and no
		// application is on two shards.
		byApp, err := prom.Samples(`count by (app_id) (last_over_time(spark_app_info[10m]))`)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, s := range byApp {
			id := s.Labels["app_id"]
			got[id] = true
			if s.Value != 1 {
				t.Errorf("%s: application %s exported %v times", name, id, s.Value)
			}
		}
		var missing, extra []string
		for id := range want {
			if !got[id] {
				missing = append(missing, id)
			}
		}
		for id := range got {
			if !want[id] {
				extra = append(extra, id)
			}
		}
		sort.Strings(missing)
		sort.Strings(extra)
		if len(missing) > 0 || len(extra) > 0 {
			t.Errorf("%s: %d applications missing (%v…), %d unexpected (%v…)", name, len(missing), head(missing), len(extra), head(extra))
		}
		dup, err := prom.Samples(`count by (app_id) (count by (app_id, instance) (spark_app_info)) > 1`)
		if err != nil {
			t.Fatal(err)
		}
		if len(dup) > 0 {
			t.Errorf("%s: %d applications on more than one shard", name, len(dup))
		}
	}
	stop()
	return fig
}

func head(s []string) []string { return s[:min(5, len(s))] }

// removeLive deletes the logs the live writers of an earlier phase left.
func removeLive(t *testing.T, dir string) {
	t.Helper()
	for i := range liveWriters {
		for _, suffix := range []string{".zstd", ".zstd.inprogress"} {
			if err := os.Remove(filepath.Join(dir, liveID(i)+suffix)); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
		}
	}
}

func scrapeConfig(targets []string) string {
	quoted := make([]string, len(targets))
	for i, tg := range targets {
		quoted[i] = "'" + tg + "'"
	}
	return fmt.Sprintf(`global:
  scrape_interval: %s
  scrape_timeout: %s
scrape_configs:
  - job_name: sparkglance
    static_configs:
      - targets: [%s]
`, scrapeEvery, scrapeEvery-5*time.Second, strings.Join(quoted, ", "))
}

// buildSparkglance builds ./cmd/sparkglance from this tree.
func buildSparkglance(t *testing.T) string {
	t.Helper()
	goBin := testkit.RequireTool(t, "go")
	bin := filepath.Join(t.TempDir(), "sparkglance")
	build := exec.Command(goBin, "build", "-o", bin, "./cmd/sparkglance")
	root, err := testkit.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
