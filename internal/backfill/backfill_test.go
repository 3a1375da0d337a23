package backfill_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/backfill"
	"github.com/sparkglance/sparkglance/internal/simulate"
	"github.com/sparkglance/sparkglance/internal/sparklog"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
	"github.com/sparkglance/sparkglance/internal/testkit"
	"github.com/sparkglance/sparkglance/internal/testkit/promtest"
)

const interval = 10 * time.Second

func options() backfill.Options {
	cfg := analysis.DefaultConfig()
	cfg.Interval = interval
	return backfill.Options{Analysis: cfg}
}

// report analyses one log independently of the backfill.
func report(t *testing.T, path string) analysis.Report {
	t.Helper()
	logs, err := sparklog.Discover(path)
	if err != nil || len(logs) != 1 {
		t.Fatalf("discover %s: %v (%d logs)", path, err, len(logs))
	}
	cfg := options().Analysis
	app := analysis.New(cfg)
	h := sparklog.HandlerFuncs{OnEvent: func(_ sparklog.Position, ev sparkevent.Event) error { app.Add(ev); return nil }}
	if _, err := sparklog.Read(logs[0], h, sparklog.Options{}); err != nil {
		t.Fatal(err)
	}
	return app.Report()
}

// The backfill of a real log (YARN, executors removed, a killed task) and
// of a simulated one (spill, stragglers) becomes blocks with the real
// promtool; a real Prometheus on those blocks answers PromQL that
// reproduces the analysis interval by interval.
func TestBackfillLoadsIntoPrometheus(t *testing.T) {
	promtool := testkit.RequireTool(t, "promtool")
	testkit.RequireTool(t, "prometheus")
	dir := t.TempDir()
	real := testkit.Events(t, "application_1628109047826_1317105")
	sim := filepath.Join(dir, "app-20261130090000-0001")
	cfg := simulate.DefaultConfig()
	cfg.Executors, cfg.TasksPerStage = 4, 32
	if err := simulate.WriteFile(sim, cfg); err != nil {
		t.Fatal(err)
	}

	var out bytes.Buffer
	sum, err := backfill.Write(&out, []string{real, sim}, options())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Apps != 2 || len(sum.Skipped) != 0 {
		t.Fatalf("summary %+v, want 2 applications and nothing skipped", sum)
	}
	om := filepath.Join(dir, "history.om")
	if err := os.WriteFile(om, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if msg, err := exec.CommandContext(ctx, promtool, "tsdb", "create-blocks-from", "openmetrics", om, data).CombinedOutput(); err != nil {
		t.Fatalf("promtool tsdb create-blocks-from openmetrics: %v\n%s", err, msg)
	}
	prom := promtest.StartOnData(t, data)

	for _, path := range []string{real, sim} {
		r := report(t, path)
		ivs := r.Intervals
		last := ivs[len(ivs)-1].End
		app := `app_id="` + r.AppID + `"`
		checks := map[string]func(analysis.Interval) float64{
			`spark_app_settled_task_seconds_total{` + app + `,category="cpu"}`:     func(iv analysis.Interval) float64 { return iv.CPUSeconds },
			`spark_app_settled_task_seconds_total{` + app + `,category="gc"}`:      func(iv analysis.Interval) float64 { return iv.GCSeconds },
			`spark_app_settled_task_seconds_total{` + app + `,category="serde"}`:   func(iv analysis.Interval) float64 { return iv.SerdeSeconds },
			`spark_app_settled_task_seconds_total{` + app + `,category="shuffle"}`: func(iv analysis.Interval) float64 { return iv.ShuffleSeconds },
			`spark_app_settled_core_seconds_total{` + app + `}`:                    func(iv analysis.Interval) float64 { return iv.AvailableCoreSeconds },
			`sum(spark_executor_settled_spill_bytes_total{` + app + `,medium="memory"} @ T)`: func(iv analysis.Interval) float64 {
				s := 0.0
				for _, sp := range iv.Spill {
					s += sp.MemoryBytes
				}
				return s
			},
		}
		for expr, value := range checks {
			total := 0.0
			for _, iv := range ivs {
				total += value(iv)
			}
			// Each interval: the counter's increase between its start and
			// its end, evaluated by Prometheus.
			for i, iv := range ivs {
				q := at(expr, iv.End) + ` - ` + at(expr, iv.Start)
				got := scalar(t, prom, q)
				if !near(got, value(iv), total) {
					t.Errorf("%s: interval %d [%d, %d): PromQL %v, analysis %v", r.AppID, i, iv.Start, iv.End, got, value(iv))
				}
			}
			if got := scalar(t, prom, at(expr, last)); !near(got, total, total) {
				t.Errorf("%s: %s at the end = %v, analysis total %v", r.AppID, expr, got, total)
			}
		}
		// The share over the whole run from the ratio of increases.
		q := fmt.Sprintf(`sum(spark_app_settled_task_seconds_total{%s,category="cpu"} @ %s) / sum(spark_app_settled_core_seconds_total{%s} @ %s)`, app, sec(last), app, sec(last))
		if got, want := scalar(t, prom, q), r.Totals.CPUSeconds/r.Totals.AvailableCoreSecs; !near(got, want, 1) {
			t.Errorf("%s: CPU share over the run %v, analysis %v", r.AppID, got, want)
		}
		if got := scalar(t, prom, `count(spark_app_info{`+app+`} @ `+sec(last)+`)`); got != 1 {
			t.Errorf("%s: spark_app_info series at the end = %v, want 1", r.AppID, got)
		}
		// Every stage attempt has a lane while it runs and none after.
		for _, st := range r.Stages {
			if st.SubmissionTime <= 0 || st.CompletionTime <= st.SubmissionTime {
				continue
			}
			sel := fmt.Sprintf(`spark_stage_active{%s,stage_id="%d",attempt_id="%d"}`, app, st.StageID, st.AttemptID)
			mid := (st.SubmissionTime + st.CompletionTime) / 2
			if got := scalar(t, prom, sel+` @ `+sec(mid)); got != 1 {
				t.Errorf("%s: stage %d.%d while running (%d): %v, want 1", r.AppID, st.StageID, st.AttemptID, mid, got)
			}
			if got := scalar(t, prom, `sum(`+sel+` @ `+sec(st.CompletionTime+1)+` == 1)`); !math.IsNaN(got) {
				t.Errorf("%s: stage %d.%d still running after its completion: %v", r.AppID, st.StageID, st.AttemptID, got)
			}
		}
	}
}

// Unfinished logs and superseded attempts are left out and named.
func TestBackfillSkipsLiveLogsAndOldAttempts(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"local-1426533911241", "local-1426633911242"} { // two attempts of one application
		if err := os.Symlink(testkit.Events(t, n), filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
	cfg := simulate.DefaultConfig()
	cfg.Live, cfg.AppID = true, "app-20261130090000-0002"
	if err := simulate.WriteFile(filepath.Join(dir, cfg.AppID+".inprogress"), cfg); err != nil {
		t.Fatal(err)
	}
	// A README beside the logs is skipped, named once.
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# Spark logs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	opt := options()
	var problems []string
	opt.Problem = func(p sparklog.Problem) { problems = append(problems, p.String()) }
	sum, err := backfill.Write(&out, []string{dir}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Apps != 1 || len(sum.Skipped) != 3 || len(problems) != 0 {
		t.Fatalf("summary %+v, problems %q; want one application, three logs skipped and no problem", sum, problems)
	}
	joined := strings.Join(sum.Skipped, "\n")
	for _, want := range []string{"local-1426533911241: an attempt", cfg.AppID + ".inprogress: application not finished", "README.md: not a Spark event log"} {
		if !strings.Contains(joined, want) {
			t.Errorf("skipped %q lacks %q", joined, want)
		}
	}
	if !bytes.Contains(out.Bytes(), []byte(`attempt_id="2"`)) || !bytes.HasSuffix(out.Bytes(), []byte("# EOF\n")) {
		t.Errorf("output lacks the second attempt or the # EOF line:\n%.2000s", out.String())
	}
}

// A path that does not exist is an error naming it.
func TestBackfillMissingPath(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	_, err := backfill.Write(&bytes.Buffer{}, []string{missing}, options())
	if err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("err = %v, want one naming %s", err, missing)
	}
}

// at evaluates expr at ms: its selector's "@ T" placeholder, or a selector
// without one, gets the time.
func at(expr string, ms int64) string {
	if strings.Contains(expr, "@ T") {
		return strings.ReplaceAll(expr, "@ T", "@ "+sec(ms))
	}
	return expr + " @ " + sec(ms)
}

func sec(ms int64) string { return strconv.FormatFloat(float64(ms)/1e3, 'f', 3, 64) }

// near compares to 1e-9 of the scale (a difference of two running sums
// carries their rounding).
func near(a, b, scale float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(scale))
}

// scalar runs an instant query that yields at most one sample; NaN when
// none.
func scalar(t *testing.T, prom *promtest.Server, expr string) float64 {
	t.Helper()
	r, err := prom.Query(expr)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	switch len(r.Result) {
	case 0:
		return math.NaN()
	case 1:
		v, err := strconv.ParseFloat(fmt.Sprint(r.Result[0].Value[1]), 64)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return v
	}
	t.Fatalf("%s: %d series, want one", expr, len(r.Result))
	return 0
}

// The backfill skips the live application, hands over a log's first
// problems and counts the rest. (That it writes, skips and says the same
// whatever the logs read at once is cmd/sparkglance's
// FuzzParallelDifferential.)
func TestBackfillSkipsLiveAndBoundsProblems(t *testing.T) {
	dir := t.TempDir()
	for i := range 16 {
		cfg := simulate.DefaultConfig()
		cfg.AppID = fmt.Sprintf("app-20261201%06d-%04d", i, i)
		cfg.Executors, cfg.CoresPerExecutor, cfg.TasksPerStage, cfg.Seed = 2, 2, 8, uint64(i)
		cfg.Live = i == 5
		var b strings.Builder
		if _, err := simulate.Write(&b, cfg); err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(b.String(), "\n")
		switch i {
		case 3: // two damaged lines
			lines[20], lines[30] = "{\"Event\":\n", "not json\n"
		case 9: // damaged on more lines than a log keeps waiting
			lines[30] = strings.Repeat("not json\n", 1200) + lines[30]
		}
		if err := os.WriteFile(filepath.Join(dir, cfg.AppID), []byte(strings.Join(lines, "")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var problems []string
	opt := options()
	opt.Parallel = 2
	opt.Problem = func(p sparklog.Problem) { problems = append(problems, p.String()) }
	sum, err := backfill.Write(io.Discard, []string{dir}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Apps != 15 || len(sum.Skipped) != 1 {
		t.Errorf("summary %+v, want 15 applications and the live one skipped", sum)
	}
	if len(problems) != 2+1000 || sum.ProblemsOmitted != 200 {
		t.Errorf("%d problems handed over, %d omitted; want 2 of one log, the first 1000 of the other and the rest counted", len(problems), sum.ProblemsOmitted)
	}
}

// Application names no Spark user should write but a log can hold (invalid
// UTF-8 from a damaged or foreign log, quotes, backslashes, line breaks,
// control characters) go through the whole chain: backfill, promtool's
// block creation (which rejects a whole file for one invalid label value),
// a real Prometheus answering with the name as /metrics would show it.
func TestBackfillHostileNamesReachPrometheus(t *testing.T) {
	promtool := testkit.RequireTool(t, "promtool")
	testkit.RequireTool(t, "prometheus")
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	if err := os.Mkdir(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	// Each name as its JSON string literal in the log, and the label value
	// Prometheus must give back.
	names := []struct{ json, want string }{
		{`"caf` + "\xe9" + ` au lait"`, "caf\uFFFD au lait"},
		{`"say \"hi\" to C:\\spark\\jobs"`, `say "hi" to C:\spark\jobs`},
		{`"two\nlines\r\tand \u0000 nul"`, "two\nlines\r\tand \x00 nul"},
		{`"` + "\xff\xfe" + `\\\"` + "\xc3" + `"`, "\uFFFD\\\"\uFFFD"}, // a run of invalid bytes is one U+FFFD
	}
	ids := make([]string, len(names))
	paths := make([]string, len(names))
	for i, n := range names {
		cfg := simulate.DefaultConfig()
		cfg.AppID = fmt.Sprintf("app-20261201000000-%04d", i)
		cfg.AppName = "placeholder-name"
		cfg.Executors, cfg.TasksPerStage = 2, 4
		var b strings.Builder
		if _, err := simulate.Write(&b, cfg); err != nil {
			t.Fatal(err)
		}
		text := strings.ReplaceAll(b.String(), `"placeholder-name"`, n.json)
		paths[i] = filepath.Join(logs, cfg.AppID)
		if err := os.WriteFile(paths[i], []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		ids[i] = cfg.AppID
	}
	var out bytes.Buffer
	sum, err := backfill.Write(&out, []string{logs}, options())
	if err != nil || sum.Apps != len(names) {
		t.Fatalf("backfill: %v, summary %+v; want %d applications", err, sum, len(names))
	}
	om := filepath.Join(dir, "history.om")
	if err := os.WriteFile(om, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if msg, err := exec.CommandContext(ctx, promtool, "tsdb", "create-blocks-from", "openmetrics", om, data).CombinedOutput(); err != nil {
		t.Fatalf("promtool tsdb create-blocks-from openmetrics: %v\n%s", err, msg)
	}
	prom := promtest.StartOnData(t, data)
	for i, id := range ids {
		ivs := report(t, paths[i]).Intervals
		r, err := prom.Query(`spark_app_info{app_id="` + id + `"} @ ` + sec(ivs[len(ivs)-1].End))
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Result) != 1 {
			t.Errorf("%s: %d spark_app_info series, want 1", id, len(r.Result))
			continue
		}
		if got := r.Result[0].Metric["app_name"]; got != names[i].want {
			t.Errorf("%s: app_name %q, want %q", id, got, names[i].want)
		}
	}
}

// With IncludeUnfinished a log without an ApplicationEnd is written up to
// its last event, counted apart; the finished ones are unchanged.
func TestBackfillIncludeUnfinished(t *testing.T) {
	dir := t.TempDir()
	finished := testkit.Events(t, "local-1642039451826")
	cfg := simulate.DefaultConfig()
	cfg.Live, cfg.AppID = true, "app-20261130090000-0002"
	live := filepath.Join(dir, cfg.AppID+".inprogress")
	if err := simulate.WriteFile(live, cfg); err != nil {
		t.Fatal(err)
	}

	var without bytes.Buffer
	sum, err := backfill.Write(&without, []string{finished, live}, options())
	if err != nil || sum.Apps != 1 || sum.Unfinished != 0 || len(sum.Skipped) != 1 ||
		!strings.Contains(sum.Skipped[0], "--include-unfinished") {
		t.Fatalf("without the option: %v, summary %+v; want the finished application and the unfinished one skipped, naming --include-unfinished", err, sum)
	}
	opt := options()
	opt.IncludeUnfinished = true
	var with bytes.Buffer
	sum, err = backfill.Write(&with, []string{finished, live}, opt)
	if err != nil || sum.Apps != 2 || sum.Unfinished != 1 || len(sum.Skipped) != 0 {
		t.Fatalf("with the option: %v, summary %+v; want two applications, one unfinished, nothing skipped", err, sum)
	}
	r := report(t, live)
	if !r.Live || len(r.Intervals) == 0 {
		t.Fatalf("the simulated log is not an unfinished application with intervals: live %v, %d intervals", r.Live, len(r.Intervals))
	}
	last := r.Intervals[len(r.Intervals)-1]
	total := 0.0
	for _, iv := range r.Intervals {
		total += iv.AvailableCoreSeconds
	}
	want := `spark_app_settled_core_seconds_total{app_id="` + cfg.AppID + `",app_name="` + cfg.AppName + `"} ` +
		strconv.FormatFloat(total, 'g', -1, 64) + " " + sec(last.End) + "\n"
	if !strings.Contains(with.String(), want) {
		t.Errorf("the unfinished application's last core-seconds sample %q is not in the output", want)
	}
	// The finished application's lines are those written without the option.
	for _, line := range strings.SplitAfter(without.String(), "\n") {
		if strings.Contains(line, "local-1642039451826") && !strings.Contains(with.String(), line) {
			t.Fatalf("finished application's line %q is missing with the option", line)
		}
	}
}
