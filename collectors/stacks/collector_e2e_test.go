//go:build e2e

package stacks_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/sparkglance/sparkglance/collectors/process"
	"github.com/sparkglance/sparkglance/collectors/stacks"
	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/internal/jvm/jvmtest"
	"github.com/sparkglance/sparkglance/internal/profiles"
)

const (
	e2eApp       = "app-20260101000000-0042"
	e2eExecutor  = "7"
	deafExecutor = "9" // started with -XX:+DisableAttachMechanism
)

// e2eWorkload: 6 task threads, 2 running → blocked ratio 4/6.
var e2eWorkload = []string{"spin=2", "blocked=1", "park=1", "shuffle=1", "sleep=1"}

// wantStates is the construction of e2eWorkload: task threads per state.
var wantStates = map[string]float64{"running": 2, "lock": 2, "shuffle_fetch": 1, "other_wait": 1}

// TestStacksEndToEnd starts two fake Spark executors found by the real
// process discovery: one normal (also serving a Spark-like REST API), one
// with attach disabled; it serves the stacks collector with the profiles
// API through the exporter and checks /metrics and every API answer.
func TestStacksEndToEnd(t *testing.T) {
	classes := jvmtest.Compile(t)
	portFile := filepath.Join(t.TempDir(), "ui.port")
	jvm := jvmtest.Start(t, classes, jvmtest.Options{
		JVMArgs:   []string{"-Dsgtest.ui.portfile=" + portFile},
		MainClass: jvmtest.FakeExecutorMain,
		MainArgs:  []string{"--driver-url", "spark://CoarseGrainedScheduler@h:7078", "--executor-id", e2eExecutor, "--app-id", e2eApp, "--"},
	}, e2eWorkload...)
	deaf := jvmtest.Start(t, classes, jvmtest.Options{
		JVMArgs:   []string{"-XX:+DisableAttachMechanism"},
		MainClass: jvmtest.FakeExecutorMain,
		MainArgs:  []string{"--executor-id", deafExecutor, "--app-id", e2eApp, "--"},
	}, "sleep=1")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	agent, err := process.New(process.Options{DiscoveryInterval: 200 * time.Millisecond, Interval: 200 * time.Millisecond,
		SysfsPath: t.TempDir(), TDPWatts: 100}, nil)
	if err != nil {
		t.Fatal(err)
	}
	agentDone := make(chan struct{})
	go func() { defer close(agentDone); _ = agent.Run(ctx, 0) }()
	defer func() { cancel(); <-agentDone }()

	c, err := stacks.NewCollector(stacks.Options{
		Interval: 100 * time.Millisecond, Window: time.Minute,
		Listers:   []stacks.Lister{stacks.ProcessLister(agent.Scanner())},
		Profiling: true, ProfilingOptions: profiles.Options{MaxDuration: 300 * time.Second, HistorySize: 3},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, map[string]exporter.Collector{"stacks": exporter.FromUpdater(c)})
	waitSettled(t, jvm) // every thread reached its blocking call

	t.Run("metrics", func(t *testing.T) { testMetrics(t, c, base, jvm.PID) })
	t.Run("profiles", func(t *testing.T) { testProfiles(t, base, jvm.PID, deaf.PID) })
	t.Run("rest", func(t *testing.T) { testREST(t, portFile) })
}

func ours(exec string) map[string]string {
	return map[string]string{"app_id": e2eApp, "executor_id": exec, "framework": "spark"}
}

func testMetrics(t *testing.T, c *stacks.Collector, base string, pid int) {
	// At least 20 dumps in the window, and the deaf JVM's error counted.
	waitFor(t, 25*time.Second, "20 dumps of the executor and an error for the deaf one", func() bool {
		fams := scrape(t, base)
		h := series(fams, "sparkglance_stacks_dump_duration_seconds", ours(e2eExecutor))
		e := series(fams, "sparkglance_stacks_errors_total", ours(deafExecutor))
		return len(h) == 1 && h[0].GetHistogram().GetSampleCount() >= 20 && len(e) > 0
	})
	fams := scrape(t, base)

	ratio := series(fams, "spark_executor_blocked_ratio", ours(e2eExecutor))
	if len(ratio) != 1 {
		t.Fatalf("blocked ratio series for executor %s: %d", e2eExecutor, len(ratio))
	}
	want := 1 - wantStates["running"]/6
	got := ratio[0].GetGauge().GetValue()
	t.Logf("executor %s (pid %d): blocked ratio %.3f, built %.3f", e2eExecutor, pid, got, want)
	if math.Abs(got-want) > 0.10 {
		t.Errorf("blocked ratio %.3f, want %.3f ± 0.10", got, want)
	}
	samples := series(fams, "spark_thread_samples_total", ours(e2eExecutor))
	var total float64
	byState := map[string]float64{}
	for _, m := range samples {
		byState[label(m, "state")] = m.GetCounter().GetValue()
		total += m.GetCounter().GetValue()
	}
	if len(samples) != 8 || total < 6*20 {
		t.Fatalf("%d state series, %v samples; want 8 states, ≥ 120 samples", len(samples), total)
	}
	for state, n := range wantStates {
		if got := byState[state] / total; math.Abs(got-n/6) > 0.10 {
			t.Errorf("state %s: share %.3f, want %.3f ± 0.10", state, got, n/6)
		}
	}
	if math.Mod(total, 6) != 0 {
		t.Errorf("%v task samples is not a multiple of the 6 task threads", total)
	}

	deaf := series(fams, "sparkglance_stacks_errors_total", ours(deafExecutor))
	for _, m := range deaf {
		t.Logf("deaf executor: %s errors: %v", label(m, "reason"), m.GetCounter().GetValue())
		if r := label(m, "reason"); r != "attach_disabled" {
			t.Errorf("deaf executor error reason %q, want attach_disabled", r)
		}
	}
	if len(series(fams, "spark_executor_blocked_ratio", ours(deafExecutor))) != 0 {
		t.Error("the deaf executor has a blocked ratio")
	}
	if errs := series(fams, "sparkglance_stacks_errors_total", ours(e2eExecutor)); len(errs) != 0 {
		t.Errorf("the healthy executor has errors: %v", errs)
	}
	// Backoff: the deaf JVM is not retried every 100 ms.
	if n := deaf[0].GetCounter().GetValue(); n > 10 {
		t.Errorf("%v attempts on the deaf JVM: backoff does not work", n)
	}
	if err := c.Ready(); err != nil {
		t.Error(err)
	}
}

func postProfile(t *testing.T, base, body string) (int, map[string]any) {
	t.Helper()
	status, b := postJSON(t, base+"/api/v1/profiles", body)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("POST %s: %d, body not JSON: %q", body, status, b)
	}
	return status, out
}

func profileInfo(t *testing.T, base, id string) profiles.Info {
	t.Helper()
	status, b := do(t, http.MethodGet, base+"/api/v1/profiles/"+id, "")
	var info profiles.Info
	if status != http.StatusOK || json.Unmarshal(b, &info) != nil {
		t.Fatalf("GET profile %s: %d %s", id, status, b)
	}
	return info
}

func waitFinished(t *testing.T, base, id string) profiles.Info {
	t.Helper()
	var info profiles.Info
	waitFor(t, 20*time.Second, "profile "+id+" to end", func() bool {
		info = profileInfo(t, base, id)
		return info.Status != profiles.StatusRunning
	})
	if info.Status != profiles.StatusFinished {
		t.Fatalf("profile %s: %s (%s)", id, info.Status, info.Message)
	}
	return info
}

func testProfiles(t *testing.T, base string, pid, deafPID int) {
	body := fmt.Sprintf(`{"app_id": %q, "executor_id": %q, "duration": 1.5, "interval_ms": 50}`, e2eApp, e2eExecutor)
	status, created := postProfile(t, base, body)
	id, _ := created["id"].(string)
	if status != http.StatusAccepted || len(id) != 16 {
		t.Fatalf("POST: %d %v", status, created)
	}

	// Errors while it runs.
	for _, tc := range []struct {
		body string
		want int
	}{
		{body, http.StatusConflict},
		{fmt.Sprintf(`{"pid": %d, "duration": 1}`, pid), http.StatusConflict}, // same JVM by pid
		{`{"app_id": "x", "executor_id": `, http.StatusBadRequest},
		{`{"pid": 1, "duration": 1, "colour": "red"}`, http.StatusBadRequest},
		{fmt.Sprintf(`{"pid": %d, "duration": 0}`, pid), http.StatusBadRequest},
		{fmt.Sprintf(`{"pid": %d, "duration": 301}`, pid), http.StatusBadRequest},
		{fmt.Sprintf(`{"pid": %d, "duration": 1, "interval_ms": 5}`, pid), http.StatusBadRequest},
		{fmt.Sprintf(`{"pid": %d, "app_id": %q, "executor_id": "7", "duration": 1}`, pid, e2eApp), http.StatusBadRequest},
		{`{"app_id": "app-unknown", "executor_id": "1", "duration": 1}`, http.StatusBadRequest},
		{`{"pid": 1, "duration": 1}`, http.StatusBadRequest}, // not a Spark JVM
	} {
		if got, out := postProfile(t, base, tc.body); got != tc.want || out["error"] == "" {
			t.Errorf("POST %s: %d %v, want %d with an error message", tc.body, got, out, tc.want)
		}
	}
	if status, b := do(t, http.MethodGet, base+"/api/v1/profiles/"+id+"?format=svg", ""); status != http.StatusConflict {
		t.Errorf("download while running: %d %s, want 409", status, b)
	}
	for _, path := range []string{"0123456789abcdef", "..%2F..%2Fetc%2Fpasswd", "ZZZ"} {
		if status, _ := do(t, http.MethodGet, base+"/api/v1/profiles/"+path, ""); status != http.StatusNotFound {
			t.Errorf("GET unknown profile %s: %d, want 404", path, status)
		}
	}

	info := waitFinished(t, base, id)
	t.Logf("profile %s: %d dumps, %d samples, %d errors", id, info.Dumps, info.Samples, info.Errors)
	if info.Dumps < 10 || info.Samples < int64(info.Dumps)*8 || info.AppID != e2eApp || info.ExecutorID != e2eExecutor || info.PID != pid {
		t.Errorf("profile info %+v: want ≥ 10 dumps of ≥ 8 threads of pid %d", info, pid)
	}
	if status, b := do(t, http.MethodGet, base+"/api/v1/profiles/"+id+"?format=flame", ""); status != http.StatusBadRequest {
		t.Errorf("unknown format: %d %s", status, b)
	}

	// pprof.
	status, raw := do(t, http.MethodGet, base+"/api/v1/profiles/"+id+"?format=pprof", "")
	if status != http.StatusOK {
		t.Fatalf("pprof: %d", status)
	}
	prof, err := profile.Parse(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("profile.Parse: %v", err)
	}
	var pprofSamples int64
	spinInPprof := false
	for _, s := range prof.Sample {
		pprofSamples += s.Value[0]
		if s.Value[1] != s.Value[0]*50e6 {
			t.Errorf("wall value %d for %d samples at 50 ms", s.Value[1], s.Value[0])
		}
		if fn := s.Location[0].Line[0].Function; fn.Name == "sgtest.Workload.spin" && s.Label["thread_state"][0] == "RUNNABLE" {
			spinInPprof = true
		}
	}
	if pprofSamples != info.Samples || !spinInPprof {
		t.Errorf("pprof: %d samples (info %d), leaf sgtest.Workload.spin RUNNABLE found: %v", pprofSamples, info.Samples, spinInPprof)
	}

	// folded.
	status, raw = do(t, http.MethodGet, base+"/api/v1/profiles/"+id+"?format=folded", "")
	if status != http.StatusOK {
		t.Fatalf("folded: %d", status)
	}
	var foldedSum int64
	spinLines := int64(0)
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		stack, n, ok := strings.Cut(sc.Text(), " ")
		count, err := strconv.ParseInt(n, 10, 64)
		if !ok || err != nil || strings.Contains(n, " ") {
			t.Fatalf("folded line %q", sc.Text())
		}
		foldedSum += count
		frames := strings.Split(stack, ";")
		if frames[len(frames)-1] == "sgtest.Workload.spin" {
			spinLines += count
			if frames[0] != "java.lang.Thread.run" { // root first
				t.Errorf("spin stack not root first: %s", stack)
			}
		}
	}
	if foldedSum != info.Samples {
		t.Errorf("folded lines sum to %d, want %d samples", foldedSum, info.Samples)
	}
	if want := 2 * int64(info.Dumps); spinLines != want {
		t.Errorf("spin leaf counted %d times, want 2 threads × %d dumps", spinLines, info.Dumps)
	}

	// svg.
	status, raw = do(t, http.MethodGet, base+"/api/v1/profiles/"+id+"?format=svg", "")
	if status != http.StatusOK {
		t.Fatalf("svg: %d", status)
	}
	rects, err := checkSVG(raw)
	if err != nil || rects < 20 || !bytes.Contains(raw, []byte(">sgtest.Workload.spin (")) {
		t.Errorf("svg: %v, %d rects, hot method shown: %v", err, rects, bytes.Contains(raw, []byte("sgtest.Workload.spin")))
	}
	if dir := os.Getenv("SPARKGLANCE_KEEP_SVG"); dir != "" { // for a look in a browser
		_ = os.WriteFile(filepath.Join(dir, "profile.svg"), raw, 0o644)
	}

	// History rolling (size 3): three short task-thread profiles push the first out.
	var ids []string
	for range 3 {
		status, out := postProfile(t, base, fmt.Sprintf(`{"pid": %d, "duration": 0.3, "interval_ms": 100, "threads": "task"}`, pid))
		if status != http.StatusAccepted {
			t.Fatalf("POST short profile: %d %v", status, out)
		}
		short := waitFinished(t, base, out["id"].(string))
		if short.Samples != 6*int64(short.Dumps) || short.Dumps == 0 {
			t.Errorf("task-thread profile: %d samples in %d dumps, want 6 per dump", short.Samples, short.Dumps)
		}
		ids = append(ids, short.ID)
	}
	if status, _ := do(t, http.MethodGet, base+"/api/v1/profiles/"+id, ""); status != http.StatusNotFound {
		t.Errorf("oldest profile still there after 3 more with history size 3: %d", status)
	}
	status, b := do(t, http.MethodGet, base+"/api/v1/profiles", "")
	var list struct{ Profiles []profiles.Info }
	if status != http.StatusOK || json.Unmarshal(b, &list) != nil || len(list.Profiles) != 3 ||
		list.Profiles[0].ID != ids[2] || list.Profiles[2].ID != ids[0] {
		t.Errorf("list: %d %s, want %v newest first", status, b, ids)
	}

	// The deaf JVM: the profile fails with the attach error.
	status, out := postProfile(t, base, fmt.Sprintf(`{"pid": %d, "duration": 2, "interval_ms": 10}`, deafPID))
	if status != http.StatusAccepted {
		t.Fatalf("POST deaf: %d %v", status, out)
	}
	var deaf profiles.Info
	waitFor(t, 10*time.Second, "deaf profile to end", func() bool {
		deaf = profileInfo(t, base, out["id"].(string))
		return deaf.Status != profiles.StatusRunning
	})
	if deaf.Status != profiles.StatusFailed || !strings.Contains(deaf.Message, "DisableAttachMechanism") {
		t.Errorf("deaf profile: %s %q", deaf.Status, deaf.Message)
	}
}

// checkSVG parses the SVG as XML and counts its rect elements.
func checkSVG(raw []byte) (int, error) {
	dec := xml.NewDecoder(bytes.NewReader(raw))
	rects := 0
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return rects, err
		}
		if se, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = se.Name.Local
			}
			if se.Name.Local == "rect" {
				rects++
			}
		}
	}
	if root != "svg" {
		return rects, fmt.Errorf("root element %q", root)
	}
	return rects, nil
}

// testREST samples the same executor through its Spark-like REST API: a
// real JVM's ThreadMXBean dump in Spark's JSON, classified by the same rules.
func testREST(t *testing.T, portFile string) {
	var port []byte
	waitFor(t, 5*time.Second, "the fake UI's port file", func() bool {
		var err error
		port, err = os.ReadFile(portFile)
		return err == nil
	})
	ui := "http://127.0.0.1:" + strings.TrimSpace(string(port))
	c, err := stacks.NewCollector(stacks.Options{Interval: 50 * time.Millisecond,
		Listers: []stacks.Lister{&stacks.RESTSource{UIs: []string{ui}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = c.Run(ctx) }()
	defer func() { cancel(); <-done }()
	var ts stacks.TargetSnapshot
	deadline := time.Now().Add(15 * time.Second)
	for ts.Window.Dumps < 20 {
		if time.Now().After(deadline) {
			t.Fatalf("no 20 REST dumps within 15 s: target %v, window %+v, errors %v", ts.Target, ts.Window, ts.Errors)
		}
		time.Sleep(50 * time.Millisecond)
		if s := c.Snapshot(); s != nil && len(s.Targets) == 1 {
			ts = s.Targets[0]
		}
	}
	if ts.AppID != e2eApp || ts.ExecutorID != e2eExecutor || ts.UI != ui || len(ts.Errors) != 0 {
		t.Errorf("REST target %+v", ts)
	}
	for state, n := range wantStates {
		st, _ := stacks.ParseState(state)
		if got := ts.Window.Ratio(st); math.Abs(got-n/6) > 0.10 {
			t.Errorf("REST %s share %.3f, want %.3f ± 0.10 (counts %v)", state, got, n/6, ts.Window.Counts)
		}
	}
	r, _ := ts.Window.BlockedRatio()
	t.Logf("REST: %d dumps, blocked ratio %.3f, counts %v", ts.Window.Dumps, r, ts.Window.Counts)
}
