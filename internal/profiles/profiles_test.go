package profiles_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/sparkglance/sparkglance/internal/jvm/threaddump"
	"github.com/sparkglance/sparkglance/internal/profiles"
)

// testdata/hotspot-thread-dump.txt is a jstack of a JDK 17 Spark executor
// with two task threads (one running, one blocked), recorded once.
const taskThreadPrefix = "Executor task launch worker"

// recordedSource is a profiles.Source that replays a recorded thread dump
// for one known target (PID 4242, or app-1 executor 7), so the manager,
// aggregation and downloads run without a JVM.
type recordedSource struct {
	dump  []byte
	fail  error // when set, every dump fails with it
	dumps atomic.Int64
}

func (s *recordedSource) Resolve(_ context.Context, req profiles.Request) (profiles.Target, error) {
	if req.PID == 4242 || (req.AppID == "app-1" && req.ExecutorID == "7") {
		return profiles.Target{Key: "pid:4242", AppID: "app-1", ExecutorID: "7", Framework: "spark", PID: 4242}, nil
	}
	if req.PID == 5151 || req.PID == 6161 { // two more JVMs, for the history limits
		return profiles.Target{Key: "pid:" + strconv.Itoa(req.PID), PID: req.PID}, nil
	}
	return profiles.Target{}, fmt.Errorf("%w: %+v", profiles.ErrUnknownTarget, req)
}

func (s *recordedSource) Dump(ctx context.Context, _ profiles.Target) (*threaddump.Dump, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.fail != nil {
		return nil, s.fail
	}
	s.dumps.Add(1)
	return threaddump.Parse(s.dump)
}

func (s *recordedSource) TaskThread(name string) bool {
	return strings.HasPrefix(name, taskThreadPrefix)
}

func recorded(t *testing.T) *recordedSource {
	t.Helper()
	b, err := os.ReadFile("testdata/hotspot-thread-dump.txt")
	if err != nil {
		t.Fatal(err)
	}
	return &recordedSource{dump: b}
}

// javaStacks counts the fixture's threads a profile samples: Java threads
// with frames, optionally only task threads.
func javaStacks(t *testing.T, src *recordedSource, taskOnly bool) (n int64, leafFuncs []string) {
	t.Helper()
	d, err := threaddump.Parse(src.dump)
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range d.Threads {
		if th.IsJava() && len(th.Frames) > 0 && (!taskOnly || src.TaskThread(th.Name)) {
			n++
			leafFuncs = append(leafFuncs, th.Frames[0].Func())
		}
	}
	return n, leafFuncs
}

func start(t *testing.T, src profiles.Source, opts profiles.Options) (*profiles.Manager, string) {
	t.Helper()
	m := profiles.NewManager(src, opts, nil)
	srv := httptest.NewServer(m.Handler()) // binds 127.0.0.1
	t.Cleanup(func() { srv.Close(); m.Close() })
	return m, srv.URL
}

func do(t *testing.T, method, url, body string) (int, http.Header, []byte) {
	t.Helper()
	return doTyped(t, method, url, "application/json", body)
}

// doTyped is do with the given Content-Type ("" for none).
func doTyped(t *testing.T, method, url, contentType, body string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b
}

func create(t *testing.T, base, body string) profiles.Info {
	t.Helper()
	status, hdr, b := do(t, http.MethodPost, base+profiles.CollectionPath, body)
	if status != http.StatusAccepted {
		t.Fatalf("POST %s: %d %s", body, status, b)
	}
	var info profiles.Info
	if err := json.Unmarshal(b, &info); err != nil {
		t.Fatal(err)
	}
	if hdr.Get("Location") != profiles.ItemPrefix+info.ID || info.Status != profiles.StatusRunning {
		t.Fatalf("created %+v at %q", info, hdr.Get("Location"))
	}
	return info
}

// waitDone waits until the profile ended and returns its status as the API
// gives it; the wait is bounded so a stuck profile fails the test instead
// of hanging it.
func waitDone(t *testing.T, m *profiles.Manager, base, id string) profiles.Info {
	t.Helper()
	p, ok := m.Get(id)
	if !ok {
		t.Fatalf("profile %s not kept", id)
	}
	select {
	case <-p.Done():
	case <-time.After(20 * time.Second):
		t.Fatalf("profile %s still running after 20 s: %+v", id, p.Info())
	}
	status, _, b := do(t, http.MethodGet, base+profiles.ItemPrefix+id, "")
	var info profiles.Info
	if status != http.StatusOK || json.Unmarshal(b, &info) != nil {
		t.Fatalf("GET %s: %d %s", id, status, b)
	}
	if info.Status == profiles.StatusRunning {
		t.Fatalf("profile %s ended but the API says running: %+v", id, info)
	}
	return info
}

func TestProfileDownloads(t *testing.T) {
	for _, threads := range []string{"all", "task"} {
		t.Run(threads, func(t *testing.T) {
			src := recorded(t)
			m, base := start(t, src, profiles.Options{})
			info := create(t, base, `{"app_id":"app-1","executor_id":"7","duration":0.1,"interval_ms":10,"threads":"`+threads+`"}`)
			info = waitDone(t, m, base, info.ID)
			perDump, leaves := javaStacks(t, src, threads == "task")
			if info.Status != profiles.StatusFinished || info.Dumps == 0 || int64(info.Dumps) != src.dumps.Load() ||
				info.Samples != int64(info.Dumps)*perDump || info.Errors != 0 {
				t.Fatalf("finished profile %+v: want status finished, %d dumps taken, %d samples per dump", info, src.dumps.Load(), perDump)
			}
			if info.AppID != "app-1" || info.ExecutorID != "7" || info.PID != 4242 || info.Threads != threads {
				t.Errorf("profile target %+v", info)
			}

			// pprof: a valid gzipped protobuf whose samples add up.
			status, hdr, b := do(t, http.MethodGet, base+profiles.ItemPrefix+info.ID+"?format=pprof", "")
			if status != http.StatusOK || !strings.HasSuffix(hdr.Get("Content-Disposition"), `.pb.gz"`) {
				t.Fatalf("pprof: %d %v", status, hdr)
			}
			prof, err := profile.Parse(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("pprof does not parse: %v", err)
			}
			if err := prof.CheckValid(); err != nil {
				t.Errorf("pprof invalid: %v", err)
			}
			var total int64
			for _, s := range prof.Sample {
				total += s.Value[0]
			}
			if total != info.Samples {
				t.Errorf("pprof samples sum to %d, want %d", total, info.Samples)
			}
			funcs := map[string]bool{}
			for _, f := range prof.Function {
				funcs[f.Name] = true
			}
			for _, leaf := range leaves {
				if !funcs[leaf] {
					t.Errorf("pprof lacks the leaf frame %q", leaf)
				}
			}

			// folded: "root;…;leaf count" lines adding up to the samples.
			status, _, b = do(t, http.MethodGet, base+profiles.ItemPrefix+info.ID+"?format=folded", "")
			if status != http.StatusOK {
				t.Fatalf("folded: %d %s", status, b)
			}
			total = 0
			for line := range strings.Lines(string(b)) {
				stack, count, ok := strings.Cut(strings.TrimSpace(line), " ")
				n, err := strconv.ParseInt(count, 10, 64)
				if !ok || err != nil || stack == "" {
					t.Fatalf("folded line %q", line)
				}
				total += n
			}
			if total != info.Samples {
				t.Errorf("folded counts sum to %d, want %d", total, info.Samples)
			}
			if threads == "task" && strings.Contains(string(b), "Reference$ReferenceHandler") {
				t.Errorf("task-only profile has a JVM thread's stack:\n%s", b)
			}

			// svg: well-formed XML with an <svg> root.
			status, hdr, b = do(t, http.MethodGet, base+profiles.ItemPrefix+info.ID+"?format=svg", "")
			if status != http.StatusOK || hdr.Get("Content-Type") != "image/svg+xml" {
				t.Fatalf("svg: %d %v", status, hdr)
			}
			dec := xml.NewDecoder(bytes.NewReader(b))
			var root string
			for {
				tok, err := dec.Token()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("svg is not well-formed XML: %v", err)
				}
				if se, ok := tok.(xml.StartElement); ok && root == "" {
					root = se.Name.Local
				}
			}
			if root != "svg" {
				t.Errorf("svg root element %q", root)
			}
		})
	}
}

// List is newest first and the history keeps at most HistorySize
// finished profiles.
func TestListAndHistory(t *testing.T) {
	m, base := start(t, recorded(t), profiles.Options{HistorySize: 2})
	var ids []string
	for range 3 {
		info := create(t, base, `{"pid":4242,"duration":0.02,"interval_ms":10}`)
		waitDone(t, m, base, info.ID)
		ids = append(ids, info.ID)
	}
	status, _, b := do(t, http.MethodGet, base+profiles.CollectionPath, "")
	var list struct{ Profiles []profiles.Info }
	if status != http.StatusOK || json.Unmarshal(b, &list) != nil {
		t.Fatalf("list: %d %s", status, b)
	}
	if len(list.Profiles) != 2 || list.Profiles[0].ID != ids[2] || list.Profiles[1].ID != ids[1] {
		t.Errorf("list = %+v, want the two newest %v, newest first", list.Profiles, ids[1:])
	}
	if status, _, _ := do(t, http.MethodGet, base+profiles.ItemPrefix+ids[0], ""); status != http.StatusNotFound {
		t.Errorf("the oldest profile, dropped from the history: %d, want 404", status)
	}
}

// A target whose dumps keep failing ends the profile as failed, saying why.
func TestFailingTargetEndsProfile(t *testing.T) {
	src := recorded(t)
	src.fail = errors.New("attach: connection refused")
	m, base := start(t, src, profiles.Options{})
	info := waitDone(t, m, base, create(t, base, `{"pid":4242,"duration":60,"interval_ms":10}`).ID)
	if info.Status != profiles.StatusFailed || info.Errors != 3 || !strings.Contains(info.Message, "connection refused") {
		t.Errorf("profile of a failing target: %+v, want failed after 3 errors naming the cause", info)
	}
}

func TestErrorCodes(t *testing.T) {
	_, base := start(t, recorded(t), profiles.Options{HistorySize: 2, MaxDuration: time.Minute})
	// A long profile that stays running for the whole test (Close ends it).
	running := create(t, base, `{"pid":4242,"duration":60,"interval_ms":1000}`)
	item := base + profiles.ItemPrefix + running.ID
	for _, tc := range []struct {
		name, method, url, body string
		status                  int
		says                    string
	}{
		{"bad JSON", http.MethodPost, base + profiles.CollectionPath, `{"pid":`, 400, "request body"},
		{"two JSON values", http.MethodPost, base + profiles.CollectionPath, `{"pid":4242,"duration":1} {}`, 400, "more than one JSON value"},
		{"no target", http.MethodPost, base + profiles.CollectionPath, `{"duration":1}`, 400, "name the target"},
		{"pid and app", http.MethodPost, base + profiles.CollectionPath, `{"pid":4242,"app_id":"app-1","executor_id":"7","duration":1}`, 400, "not both"},
		{"app without executor", http.MethodPost, base + profiles.CollectionPath, `{"app_id":"app-1","duration":1}`, 400, "go together"},
		{"zero duration", http.MethodPost, base + profiles.CollectionPath, `{"pid":4242,"duration":0}`, 400, "duration 0 s out of range"},
		{"too long", http.MethodPost, base + profiles.CollectionPath, `{"pid":4242,"duration":61}`, 400, "out of range (0, 60]"},
		{"interval too short", http.MethodPost, base + profiles.CollectionPath, `{"pid":4242,"duration":1,"interval_ms":1}`, 400, "interval_ms 1 out of range"},
		{"bad threads", http.MethodPost, base + profiles.CollectionPath, `{"pid":4242,"duration":1,"threads":"some"}`, 400, `threads "some"`},
		{"unknown target", http.MethodPost, base + profiles.CollectionPath, `{"pid":999,"duration":1}`, 400, "unknown target"},
		{"target busy", http.MethodPost, base + profiles.CollectionPath, `{"app_id":"app-1","executor_id":"7","duration":1}`, 409, running.ID},
		{"method on collection", http.MethodDelete, base + profiles.CollectionPath, "", 405, "DELETE"},
		{"method on item", http.MethodPost, item, "", 405, "POST"},
		{"unknown id", http.MethodGet, base + profiles.ItemPrefix + "0123456789abcdef", "", 404, "0123456789abcdef"},
		{"unknown format", http.MethodGet, item + "?format=jfr", "", 400, `format "jfr"`},
		{"download while running", http.MethodGet, item + "?format=pprof", "", 409, "still running"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, _, b := do(t, tc.method, tc.url, tc.body)
			var e struct{ Error string }
			if err := json.Unmarshal(b, &e); err != nil {
				t.Fatalf("error body %q is not JSON: %v", b, err)
			}
			if status != tc.status || !strings.Contains(e.Error, tc.says) {
				t.Errorf("%s %s %s: %d %s, want %d saying %q", tc.method, tc.url, tc.body, status, b, tc.status, tc.says)
			}
		})
	}
	// Only JSON starts a profile: a text/plain or form body is what any web
	// page can send cross-site without asking.
	for _, ct := range []string{"", "text/plain", "text/plain; charset=utf-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"} {
		status, hdr, b := doTyped(t, http.MethodPost, base+profiles.CollectionPath, ct, `{"pid":5151,"duration":1}`)
		if status != http.StatusUnsupportedMediaType || hdr.Get("Accept-Post") != "application/json" || !strings.Contains(string(b), "want application/json") {
			t.Errorf("POST with Content-Type %q: %d %v %s, want 415 asking for application/json", ct, status, hdr, b)
		}
	}
	if status, _, b := doTyped(t, http.MethodPost, base+profiles.CollectionPath, "application/json; charset=utf-8", `{"pid":999,"duration":1}`); status != http.StatusBadRequest {
		t.Errorf("POST with application/json; charset=utf-8: %d %s, want the body read (400 unknown target)", status, b)
	}
	// The history holds two: with both slots running, a third target gets
	// 503 and a Retry-After.
	create(t, base, `{"pid":5151,"duration":60,"interval_ms":1000}`)
	status, hdr, b := do(t, http.MethodPost, base+profiles.CollectionPath, `{"pid":6161,"duration":1}`)
	if status != http.StatusServiceUnavailable || hdr.Get("Retry-After") == "" || !strings.Contains(string(b), "history-size") {
		t.Errorf("third target with the history full of running profiles: %d %v %s, want 503 with Retry-After", status, hdr, b)
	}
}
