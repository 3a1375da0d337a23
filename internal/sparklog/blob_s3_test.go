package sparklog

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/sparkglance/sparkglance/internal/sparklog/objstore"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
	"github.com/sparkglance/sparkglance/internal/testkit"
	"github.com/sparkglance/sparkglance/internal/testkit/objstoretest"
)

// readDigest reads a log and sums up everything a consumer sees: every
// event (as JSON) with its position, every problem, and the stats, with
// the log's location replaced by a placeholder so that a copy elsewhere
// reads the same.
func readDigest(t *testing.T, l Log, root string) string {
	t.Helper()
	h := sha256.New()
	var problems []string
	strip := func(s string) string { return strings.ReplaceAll(s, root, "<root>") }
	st, err := Read(l, HandlerFuncs{
		OnEvent: func(pos Position, ev sparkevent.Event) error {
			fmt.Fprintf(h, "%s:%d:%d ", strip(pos.File), pos.Line, pos.Offset)
			if b, err := json.Marshal(ev); err == nil {
				h.Write(b)
			} else {
				writeValue(h, reflect.ValueOf(ev)) // NaN rates of streaming events
			}
			fmt.Fprintln(h)
			return nil
		},
		OnProblem: func(p Problem) { problems = append(problems, strip(p.String())) },
	}, Options{})
	if err != nil {
		t.Fatalf("%s: %v", l.Key, err)
	}
	return fmt.Sprintf("key=%s layout=%s files=%d live=%v events=%d lines=%d in=%d out=%d finished=%v digest=%x problems=%q",
		strip(l.Key), l.Layout, len(l.Files), l.InProgress, st.Events, st.Lines, st.BytesIn, st.BytesOut, st.Finished, h.Sum(nil), problems)
}

// writeValue writes v with every pointer followed and map keys sorted, so
// equal events write the same bytes. Unlike JSON it takes the NaN rates of
// streaming events.
func writeValue(w io.Writer, v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			fmt.Fprint(w, "nil")
			return
		}
		writeValue(w, v.Elem())
	case reflect.Struct:
		fmt.Fprint(w, "{")
		for i := range v.NumField() {
			fmt.Fprintf(w, "%s:", v.Type().Field(i).Name)
			writeValue(w, v.Field(i))
			fmt.Fprint(w, " ")
		}
		fmt.Fprint(w, "}")
	case reflect.Slice, reflect.Array:
		fmt.Fprint(w, "[")
		for i := range v.Len() {
			writeValue(w, v.Index(i))
			fmt.Fprint(w, " ")
		}
		fmt.Fprint(w, "]")
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		fmt.Fprint(w, "map[")
		for _, k := range keys {
			writeValue(w, k)
			fmt.Fprint(w, ":")
			writeValue(w, v.MapIndex(k))
			fmt.Fprint(w, " ")
		}
		fmt.Fprint(w, "]")
	default:
		fmt.Fprintf(w, "%q", fmt.Sprint(v)) // fmt prints the value a reflect.Value holds
	}
}

// A sample of the shared logs, uploaded to S3 as they lie on disk, is
// discovered and read exactly as from disk: compressed single files, a
// rolling directory, a Databricks directory, a zip, a directory with
// several attempts. The whole tree is compared by the e2e test
// TestS3ReadsEverySharedLogAsOnDisk.
func TestS3ReadsSharedLayoutsAsOnDisk(t *testing.T) {
	root := testkit.Events(t)
	compareStoreTree(t, objstoretest.StartS3(t), root, sampleDirs(root), 12)
	s3 := objstoretest.StartS3(t)
	data, err := os.ReadFile(testkit.Events(t, "local-1422981780767"))
	if err != nil {
		t.Fatal(err)
	}
	s3.Put(t, "spark-events/local-1422981780767", data)
	// A single object is one log, as a single file is.
	one, err := DiscoverGiven(s3.URL("spark-events/local-1422981780767"))
	if err != nil || len(one) != 1 || one[0].Key != s3.Ref("spark-events/local-1422981780767") {
		t.Fatalf("single object: %+v, %v", one, err)
	}
}

// The same sample read from Google Cloud Storage (fake-gcs-server through
// the real GCS client).
func TestGCSReadsSharedLayoutsAsOnDisk(t *testing.T) {
	root := testkit.Events(t)
	compareStoreTree(t, objstoretest.StartGCS(t), root, sampleDirs(root), 12)
}

// The same sample read from Azure Blob Storage (Azurite through gocloud's
// azureblob and the real Azure SDK), named in each form Spark and gocloud
// use for a container.
func TestAzureReadsSharedLayoutsAsOnDisk(t *testing.T) {
	root := testkit.Events(t)
	compareStoreTree(t, objstoretest.StartAzurite(t), root, sampleDirs(root), 12)
}

// sampleDirs are directories of the shared logs with every layout.
func sampleDirs(root string) []string {
	extra := func(p string) string { return filepath.Join(root, "extra", p) }
	return []string{
		extra("spark-rapids-tools/spark-events-qualification/eventlog_v2_local-1623876083964"),
		extra("spark-rapids-tools/spark-events-qualification/db_sim_eventlog"),
		extra("spark-rapids-tools/spark-events-qualification/multiple_attempts"),
		extra("spark-rapids-tools/spark-events-profiling"),
		extra("sparklint/src/test/resources/history_source"),
		extra("apache-spark/deleted-2019"),
	}
}

// compareStoreTree uploads root to store and compares, for each of dirs,
// the logs found and read on disk and in the store; at least minLogs must
// be compared.
func compareStoreTree(t *testing.T, store objstoretest.Store, root string, dirs []string, minLogs int) {
	t.Helper()
	objstoretest.UploadDir(t, store, root, "spark-events")
	logs := 0
	for _, dir := range dirs {
		rel, _ := filepath.Rel(root, dir)
		prefix := "spark-events"
		if rel != "." {
			prefix += "/" + filepath.ToSlash(rel)
		}
		local, err := Discover(dir)
		if err != nil {
			t.Fatal(err)
		}
		remote, err := DiscoverGiven(store.URL(prefix))
		if err != nil {
			t.Fatalf("%s: %v", prefix, err)
		}
		if len(local) != len(remote) {
			t.Errorf("%s: %d logs on disk, %d in the store", rel, len(local), len(remote))
			continue
		}
		for i := range local {
			want := diskDigest(t, local[i], dir)
			got := readDigest(t, remote[i], store.Ref(prefix))
			if got != want {
				t.Errorf("%s: the store reads\n%s\nwant (disk)\n%s", rel, got, want)
			}
			logs++
		}
	}
	if logs < minLogs {
		t.Errorf("only %d logs compared, want at least %d", logs, minLogs)
	}
}

// diskDigests holds the digests of the sample's logs read from disk, the
// same for every store (S3, GCS, Azure): read once, not once per store.
var diskDigests sync.Map // root + log key -> digest

// diskDigest is readDigest of a log on disk, read once per test binary.
func diskDigest(t *testing.T, l Log, root string) string {
	t.Helper()
	key := root + "\x00" + l.Key
	if d, ok := diskDigests.Load(key); ok {
		return d.(string)
	}
	d := readDigest(t, l, root)
	diskDigests.Store(key, d)
	return d
}

// Reading a big object streams it: the bytes read in one Poll are those of
// the object once, in ranged reads, not a copy of it held first.
func TestS3ReadCountsRequests(t *testing.T) {
	s3 := objstoretest.StartS3(t)
	data, err := os.ReadFile(testkit.Events(t, "local-1422981780767"))
	if err != nil {
		t.Fatal(err)
	}
	s3.Put(t, "logs/app-1", data)
	before := requestCount(objstore.OpGet, objstore.ResultOK)
	logs, err := DiscoverGiven(s3.URL("logs"))
	if err != nil || len(logs) != 1 {
		t.Fatalf("%v %v", logs, err)
	}
	st, err := Read(logs[0], HandlerFuncs{}, Options{})
	if err != nil || st.BytesIn != int64(len(data)) || !st.Finished {
		t.Fatalf("stats %+v, %v", st, err)
	}
	if got := requestCount(objstore.OpGet, objstore.ResultOK) - before; got != 1 {
		t.Errorf("%d get requests for one finished object, want 1", got)
	}
}

func requestCount(op, result string) int64 {
	for _, c := range objstore.Requests() {
		if c.Op == op && c.Result == result {
			return c.Count
		}
	}
	return 0
}

// 10,000 applications under one prefix are listed in pages of 1000 keys,
// within a budget of requests per scan; a smaller budget goes on where it
// stopped at the next scan, never losing applications found before.
func TestS3ListsTenThousandAppsWithinBudget(t *testing.T) {
	s3 := objstoretest.StartS3(t)
	const apps = 10000
	for i := range apps {
		s3.Put(t, fmt.Sprintf("many/application_1700000000000_%05d", i), []byte("{}\n"))
	}
	s3.Put(t, "many/eventlog_v2_app-1/appstatus_app-1.inprogress", nil)
	s3.Put(t, "many/eventlog_v2_app-1/events_1_app-1", []byte("{}\n"))
	s3.Put(t, "many/unrelated/deeper/file", []byte("x"))
	loc := s3.URL("many")

	var state objstore.Listing
	logs, err := DiscoverWith(loc, DiscoverOptions{MaxObjectRequests: 20, ObjectListing: &state})
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != apps+1 || !state.Complete || state.Requests > 11 {
		t.Fatalf("%d logs in %d requests (complete %v), want %d in at most 11", len(logs), state.Requests, state.Complete, apps+1)
	}
	if logs[apps].Layout != LayoutRolling || !logs[apps].InProgress || len(logs[apps].Files) != 1 {
		t.Errorf("rolling log among them: %+v", logs[apps])
	}

	// A budget of 3 requests: 3000 keys per scan, the previous pass's logs
	// standing meanwhile.
	var small objstore.Listing
	seen := 0
	for scan := 1; scan <= 4; scan++ {
		logs, err := DiscoverWith(loc, DiscoverOptions{MaxObjectRequests: 3, ObjectListing: &small})
		if err != nil {
			t.Fatal(err)
		}
		if len(logs) < seen {
			t.Fatalf("scan %d: %d logs, fewer than the %d of the scan before", scan, len(logs), seen)
		}
		seen = len(logs)
		if small.Requests > 3 {
			t.Fatalf("scan %d sent %d listing requests, budget 3", scan, small.Requests)
		}
		if want := scan < 4; small.Complete == want {
			t.Fatalf("scan %d: complete %v", scan, small.Complete)
		}
	}
	if seen != apps+1 {
		t.Errorf("after a whole pass: %d logs, want %d", seen, apps+1)
	}
	logs, err = DiscoverWith(loc, DiscoverOptions{MaxObjectRequests: 3, ObjectListing: &small})
	if err != nil || len(logs) != apps+1 {
		t.Errorf("a new pass under way: %d logs (%v), want the last whole pass's %d", len(logs), err, apps+1)
	}
}

// A live rolling log on S3: each new part is read once as it appears, a
// part deleted while it was the one being read is reported as missing,
// and following goes on with the next part.
func TestS3RollingPartDeletedMidFollow(t *testing.T) {
	testRollingPartDeletedMidFollow(t, objstoretest.StartS3(t))
}

// The same on Google Cloud Storage.
func TestGCSRollingPartDeletedMidFollow(t *testing.T) {
	testRollingPartDeletedMidFollow(t, objstoretest.StartGCS(t))
}

// The same on Azure Blob Storage (Azurite).
func TestAzureRollingPartDeletedMidFollow(t *testing.T) {
	testRollingPartDeletedMidFollow(t, objstoretest.StartAzurite(t))
}

func testRollingPartDeletedMidFollow(t *testing.T, s3 objstoretest.Store) {
	const dir = "live/eventlog_v2_app-1"
	line := func(i int) []byte {
		return fmt.Appendf(nil, `{"Event":"SparkListenerLogStart","Spark Version":"3.5.%d"}`+"\n", i)
	}
	s3.Put(t, dir+"/appstatus_app-1.inprogress", nil)
	s3.Put(t, dir+"/events_1_app-1", line(1))
	logs, err := DiscoverGiven(s3.URL(dir))
	if err != nil || len(logs) != 1 || !logs[0].InProgress {
		t.Fatalf("%+v %v", logs, err)
	}
	var problems []Problem
	fo := NewFollower(logs[0], HandlerFuncs{OnProblem: func(p Problem) { problems = append(problems, p) }}, Options{})
	poll := func(want int64) {
		t.Helper()
		res, err := fo.Poll()
		if err != nil || res.Events != want {
			t.Fatalf("poll: %d events, %v; want %d", res.Events, err, want)
		}
	}
	poll(1)
	s3.Put(t, dir+"/events_2_app-1", line(2))
	poll(1)
	gets := requestCount(objstore.OpGet, objstore.ResultOK)
	poll(0) // nothing new: no part is downloaded again
	if got := requestCount(objstore.OpGet, objstore.ResultOK) - gets; got != 0 {
		t.Errorf("%d reads with nothing new", got)
	}
	s3.Delete(t, dir+"/events_2_app-1")
	s3.Put(t, dir+"/events_3_app-1", line(3))
	poll(1)
	// As on disk: the gap in the indices and the part that vanished.
	vanished := false
	for _, p := range problems {
		if p.Kind != ProblemMissingFile {
			t.Errorf("unexpected problem %v", p)
		}
		vanished = vanished || strings.HasSuffix(p.File, "events_2_app-1")
	}
	if !vanished {
		t.Errorf("problems %v, none names the vanished part 2", problems)
	}
	s3.Put(t, dir+"/appstatus_app-1", nil)
	s3.Delete(t, dir+"/appstatus_app-1.inprogress")
	if res, err := fo.Poll(); err != nil || !res.Finished {
		t.Errorf("after the marker's rename: %+v %v", res, err)
	}
}
