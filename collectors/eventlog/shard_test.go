package eventlog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sparkglance/sparkglance/internal/simulate"
	"github.com/sparkglance/sparkglance/internal/sparklog"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

func TestAppIDFromLogName(t *testing.T) {
	for key, want := range map[string]string{
		"/d/application_1516285256255_0012":               "application_1516285256255_0012",
		"/d/application_1536831636016_59384_1":            "application_1536831636016_59384",
		"/d/application_1536831636016_59384_2.lz4":        "application_1536831636016_59384",
		"/d/application_1536831636016_59384_2.zstd":       "application_1536831636016_59384",
		"/d/local-1430917381535_1":                        "local-1430917381535",
		"/d/local-1430917381535_2.snappy":                 "local-1430917381535",
		"/d/app-20161115172038-0000":                      "app-20161115172038-0000",
		"/d/app-20161115172038-0000.lzf":                  "app-20161115172038-0000",
		"/d/spark-0123456789abcdef.gz":                    "spark-0123456789abcdef",
		"/d/eventlog_v2_local-1623876083964":              "local-1623876083964",
		"/d/eventlog_v2_application_1700000000000_0007_2": "application_1700000000000_0007",
		"/d/logs.zip!local-1430917381535_1":               "local-1430917381535",
		"/d/logs.ZIP!eventlog_v2_application_1_2_1":       "application_1_2",
		"/d/databricks-cluster-0415-app":                  "databricks-cluster-0415-app",
		"/d/_1":                                           "_1",
	} {
		l := sparklog.Log{Key: key, Layout: sparklog.LayoutFile}
		if strings.Contains(key, "eventlog_v2_") {
			l.Layout = sparklog.LayoutRolling
		}
		if got := AppIDFromLogName(l); got != want {
			t.Errorf("AppIDFromLogName(%s) = %q, want %q", key, got, want)
		}
	}
	// The in-progress name of a log has the key of its final name.
	logs, err := sparklog.Discover(writeNamed(t, "application_1700000000000_0042_1.zstd.inprogress"))
	if err != nil || len(logs) != 1 {
		t.Fatal(logs, err)
	}
	if got := AppIDFromLogName(logs[0]); got != "application_1700000000000_0042" {
		t.Errorf("in-progress log: %q", got)
	}
}

func writeNamed(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// ShardOf is FNV-1a 64 modulo the total; the hashes below were computed
// with an independent implementation of FNV-1a (offset basis
// 0xcbf29ce484222325, prime 0x100000001b3) and checked by hand.
func TestShardOfIsFNV1a64(t *testing.T) {
	for _, c := range []struct {
		id            string
		hash          uint64
		of2, of3, of4 int
	}{
		{"application_1516285256255_0012", 0xa3a467531bdec7eb, 1, 2, 3},
		{"local-1430917381535", 0x5cc4817c233859b5, 1, 2, 1},
	} {
		if c.hash%2 != uint64(c.of2) || c.hash%3 != uint64(c.of3) || c.hash%4 != uint64(c.of4) {
			t.Fatalf("test table inconsistent for %s", c.id)
		}
		for total, want := range map[int]int{1: 0, 2: c.of2, 3: c.of3, 4: c.of4} {
			if got := ShardOf(c.id, total); got != want {
				t.Errorf("ShardOf(%s, %d) = %d, want %d", c.id, total, got, want)
			}
		}
	}
}

func TestShardFromHostname(t *testing.T) {
	for _, c := range []struct {
		host    string
		total   int
		want    int
		wantErr string
	}{
		{"sparkglance-eventlog-3", 4, 3, ""},
		{"sparkglance-eventlog-0", 1, 0, ""},
		{"sparkglance-eventlog-4", 4, 0, "must be in [0, 4)"},
		{"sparkglance", 4, 0, "does not end in -<ordinal>"},
		{"node-x", 4, 0, "does not end in -<ordinal>"},
		{"node-+1", 4, 0, "does not end in -<ordinal>"},
		{"node-", 4, 0, "does not end in -<ordinal>"},
	} {
		cfg := DefaultConfig()
		cfg.Shard = ShardConfig{Total: c.total, FromHostname: true}
		err := cfg.resolveShard(func() (string, error) { return c.host, nil })
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%s: %v", c.host, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr) || !strings.Contains(err.Error(), c.host)):
			t.Errorf("%s: error %v, want one naming the host and %q", c.host, err, c.wantErr)
		case c.wantErr == "" && cfg.Shard.Shard != c.want:
			t.Errorf("%s: shard %d, want %d", c.host, cfg.Shard.Shard, c.want)
		}
	}
	cfg := DefaultConfig()
	cfg.Shard = ShardConfig{Total: 2, FromHostname: true}
	if err := cfg.resolveShard(func() (string, error) { return "", errors.New("no uts") }); err == nil || !strings.Contains(err.Error(), "no uts") {
		t.Errorf("host name failure: %v", err)
	}
	for _, s := range []ShardConfig{{Shard: 2, Total: 2}, {Shard: -1, Total: 2}, {Total: 0}} {
		cfg := testConfig(t.TempDir())
		cfg.Shard = s
		if _, err := New(cfg, testLogger(t)); err == nil || !strings.Contains(err.Error(), "--eventlog.") {
			t.Errorf("New with %+v: %v, want a flag error", s, err)
		}
	}
}

// shardTestDir is a directory of generated logs in every naming Spark
// uses (single files in several codecs, attempts, rolling directories,
// in progress) plus copies of the shared logs. Copies, not links: the
// test watches opens with inotify, which reports them on the directory
// the file was opened through.
func shardTestDir(t *testing.T) string {
	dir := t.TempDir()
	gen := func(path, appID string, live bool) {
		cfg := simulate.DefaultConfig()
		cfg.AppID, cfg.Executors, cfg.CoresPerExecutor, cfg.TasksPerStage, cfg.Live = appID, 1, 1, 1, live
		writeSimulatedFile(t, path, cfg)
	}
	for i := range 24 {
		id := fmt.Sprintf("app-20261201%06d-%04d", i, i)
		switch i % 4 {
		case 0:
			gen(filepath.Join(dir, id), id, false)
		case 1: // two attempts: they must land on one shard
			yarn := fmt.Sprintf("application_1764547200000_%04d", i)
			gen(filepath.Join(dir, yarn+"_1"), yarn, false)
			gen(filepath.Join(dir, yarn+"_2.inprogress"), yarn, true)
		case 2: // a rolling log
			d := filepath.Join(dir, "eventlog_v2_"+id)
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
			gen(filepath.Join(d, "events_1_"+id), id, false)
			if err := os.WriteFile(filepath.Join(d, "appstatus_"+id), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		case 3:
			gen(filepath.Join(dir, id+".inprogress"), id, true)
		}
	}
	shared := filepath.Dir(testkit.Events(t, "local-1430917381535_1"))
	entries, err := os.ReadDir(shared)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() || e.Name() == "README.md" {
			continue
		}
		copyFile(t, filepath.Join(shared, e.Name()), filepath.Join(dir, e.Name()))
	}
	return dir
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// openWatch records the regular files opened under some directories, by
// anyone, through inotify: the kernel's own account of opens.
type openWatch struct {
	fd   int
	dirs map[int32]string
}

func watchOpens(t *testing.T, dirs ...string) *openWatch {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		t.Skipf("no inotify: %v", err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	w := &openWatch{fd: fd, dirs: map[int32]string{}}
	for _, d := range dirs {
		wd, err := unix.InotifyAddWatch(fd, d, unix.IN_OPEN)
		if err != nil {
			t.Fatalf("inotify watch %s: %v", d, err)
		}
		w.dirs[int32(wd)] = d
	}
	return w
}

// drain returns the files opened since the last call.
func (w *openWatch) drain(t *testing.T) map[string]bool {
	t.Helper()
	opened := map[string]bool{}
	buf := make([]byte, 64<<10)
	for {
		n, err := unix.Read(w.fd, buf)
		if errors.Is(err, unix.EAGAIN) {
			return opened
		}
		if err != nil {
			t.Fatalf("inotify read: %v", err)
		}
		if n <= 0 {
			return opened
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := strings.TrimRight(string(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)]), "\x00")
			off += unix.SizeofInotifyEvent + int(ev.Len)
			if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
				t.Fatal("inotify queue overflowed: opens were lost")
			}
			if ev.Mask&unix.IN_ISDIR != 0 || name == "" {
				continue // listing a directory is shared by all shards
			}
			opened[filepath.Join(w.dirs[ev.Wd], name)] = true
		}
	}
}

// runShard follows dir as shard of total until every log it owns is read,
// and returns the application ids it exports and the log keys it followed.
func runShard(t *testing.T, dir string, shard, total int) (apps, keys []string) {
	t.Helper()
	cfg := testConfig(dir)
	cfg.Shard = ShardConfig{Shard: shard, Total: total}
	w, err := New(cfg, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	defer func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Error(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("watcher did not stop within 10 s")
		}
	}()
	waitReady(t, w)
	for _, a := range w.snapshot() {
		keys = append(keys, a.key)
	}
	mfs := gather(t, w)
	for _, m := range mfs["spark_app_info"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "app_id" {
				apps = append(apps, l.GetValue())
			}
		}
	}
	if v, ok := series(mfs, "sparkglance_eventlog_shard_info", map[string]string{"shard": fmt.Sprint(shard), "total_shards": fmt.Sprint(total)}); !ok || v != 1 {
		t.Errorf("shard %d of %d: sparkglance_eventlog_shard_info = %v, %v", shard, total, v, ok)
	}
	return apps, keys
}

// N shards over one directory follow every application exactly once, all
// attempts of an application on the same shard, and no shard opens a log
// another shard owns.
func TestShardsSplitApplicationsWithoutReadingEachOthersLogs(t *testing.T) {
	dir := shardTestDir(t)
	allApps, allKeys := runShard(t, dir, 0, 1)
	if len(allApps) < 30 {
		t.Fatalf("only %d applications unsharded", len(allApps))
	}
	logs, err := sparklog.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	var watched []string
	watched = append(watched, dir)
	for _, l := range logs {
		if l.Layout == sparklog.LayoutRolling {
			watched = append(watched, l.Path)
		}
	}
	const total = 3
	opens := watchOpens(t, watched...)
	byApp := map[string]int{}
	byKey := map[string]int{}
	perShard := make([]int, total)
	for shard := range total {
		opens.drain(t)
		apps, keys := runShard(t, dir, shard, total)
		perShard[shard] = len(apps)
		for _, a := range apps {
			if prev, ok := byApp[a]; ok {
				t.Errorf("application %s exported by shards %d and %d", a, prev, shard)
			}
			byApp[a] = shard
		}
		opened := opens.drain(t)
		owned := map[string]bool{}
		for _, k := range keys {
			byKey[k]++
			owned[k] = true
		}
		for _, l := range logs {
			mine := ShardOf(AppIDFromLogName(l), total) == shard
			if mine && !owned[l.Key] {
				t.Errorf("shard %d does not follow its log %s", shard, l.Key)
			}
			for _, f := range l.Files {
				switch {
				case !mine && opened[f.Path]:
					t.Errorf("shard %d opened %s, a log of shard %d", shard, f.Path, ShardOf(AppIDFromLogName(l), total))
				case mine && !opened[f.Path]:
					// The watch must see the owner's opens, or it proves nothing.
					t.Errorf("shard %d read its log %s but inotify saw no open of it", shard, f.Path)
				}
			}
		}
	}
	slices.Sort(allApps)
	got := make([]string, 0, len(byApp))
	for a := range byApp {
		got = append(got, a)
	}
	slices.Sort(got)
	if !slices.Equal(got, allApps) {
		t.Errorf("union of the shards' applications:\n%v\nunsharded:\n%v", got, allApps)
	}
	for _, k := range allKeys {
		if byKey[k] != 1 {
			t.Errorf("log %s followed by %d shards, want 1", k, byKey[k])
		}
	}
	for shard, n := range perShard {
		if n == 0 {
			t.Errorf("shard %d follows no application of %d: the hash does not spread them", shard, len(allApps))
		}
	}
}

// BenchmarkShardOwned10000 is what sharding adds to each directory scan of
// a 10,000-application directory: the id from each name and its hash.
func BenchmarkShardOwned10000(b *testing.B) {
	logs := make([]sparklog.Log, 10_000)
	for i := range logs {
		name := fmt.Sprintf("/spark-events/application_1764547200000_%04d_1.zstd", i)
		if i%2 == 1 {
			name = fmt.Sprintf("/spark-events/app-20261201%06d-%04d.lz4.inprogress", i, i%10000)
		}
		logs[i] = sparklog.Log{Key: strings.TrimSuffix(name, ".inprogress"), Path: name, Layout: sparklog.LayoutFile}
	}
	s := ShardConfig{Shard: 1, Total: 4}
	b.ReportAllocs()
	for b.Loop() {
		if n := len(s.owned(logs)); n == 0 || n == len(logs) {
			b.Fatalf("%d of %d logs owned", n, len(logs))
		}
	}
}
