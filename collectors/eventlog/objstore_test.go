package eventlog

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkglance/sparkglance/internal/sparklog/objstore"
	"github.com/sparkglance/sparkglance/internal/testkit/objstoretest"
)

// objectRequests is the process's count of object-store requests of op
// with result.
func objectRequests(op, result string) int64 {
	for _, c := range objstore.Requests() {
		if c.Op == op && c.Result == result {
			return c.Count
		}
	}
	return 0
}

// s3LiveApp starts a watcher on an S3 prefix and writes a simulated
// application there as Spark's rolling writer does on an object store:
// the appstatus marker, then each events part once it is complete. It
// returns the watcher, the parts and a function that writes part i.
func s3LiveApp(t *testing.T, s3 objstoretest.Store, appID string) (*Watcher, [][]byte, func(i int), string) {
	t.Helper()
	src := t.TempDir()
	data, err := os.ReadFile(writeSimulatedLog(t, src, appID, false))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	third := len(lines) / 3
	parts := [][]byte{bytes.Join(lines[:third], nil), bytes.Join(lines[third:2*third], nil), bytes.Join(lines[2*third:], nil)}

	cfg := testConfig(s3.URL("spark-events"))
	cfg.ScanInterval = 100 * time.Millisecond
	w := startWatcher(t, cfg)
	waitReady(t, w)
	dir := "spark-events/eventlog_v2_" + appID
	s3.Put(t, dir+"/appstatus_"+appID+".inprogress", nil)
	write := func(i int) {
		s3.Put(t, dir+"/events_"+string(rune('1'+i))+"_"+appID, parts[i])
	}
	return w, parts, write, filepath.Join(src, appID)
}

// A live application on S3, written part by part as Spark's rolling event
// log does, is followed: each part shows within a scan of its upload, each
// is downloaded once, and the finished application has the figures of an
// analysis of the whole log.
func TestS3LiveRollingLogFollowedPartByPart(t *testing.T) {
	testLiveRollingLogFollowedPartByPart(t, objstoretest.StartS3(t))
}

// The same on Google Cloud Storage.
func TestGCSLiveRollingLogFollowedPartByPart(t *testing.T) {
	testLiveRollingLogFollowedPartByPart(t, objstoretest.StartGCS(t))
}

// The same on Azure Blob Storage (Azurite).
func TestAzureLiveRollingLogFollowedPartByPart(t *testing.T) {
	testLiveRollingLogFollowedPartByPart(t, objstoretest.StartAzurite(t))
}

func testLiveRollingLogFollowedPartByPart(t *testing.T, s3 objstoretest.Store) {
	const appID = "app-20261202080000-0001"
	gets := objectRequests(objstore.OpGet, objstore.ResultOK)
	w, parts, write, whole := s3LiveApp(t, s3, appID)
	events := func() float64 {
		v, _ := series(gather(t, w), "sparkglance_eventlog_events_total", nil)
		return v
	}
	write(0)
	waitFor(t, 10*time.Second, "the application runs after its first part", func() bool {
		v, _ := series(gather(t, w), "sparkglance_eventlog_apps", map[string]string{"state": "running"})
		return v == 1
	})
	first := events()
	write(1)
	waitFor(t, 10*time.Second, "the second part is read", func() bool { return events() > first })
	write(2)
	dir := "spark-events/eventlog_v2_" + appID
	s3.Put(t, dir+"/appstatus_"+appID, nil)
	s3.Delete(t, dir+"/appstatus_"+appID+".inprogress")
	waitFor(t, 10*time.Second, "the application is finished with every event read", func() bool {
		v, _ := series(gather(t, w), "sparkglance_eventlog_apps", map[string]string{"state": "finished"})
		return v == 1
	})
	mfs := gather(t, w)
	ref := referenceReport(t, whole, w.cfg.Interval)
	if v, ok := series(mfs, "spark_app_core_seconds_total", map[string]string{"app_id": appID}); !ok || !near(v, ref.Totals.AvailableCoreSecs) {
		t.Errorf("core seconds %v (present %v), an analysis of the whole log says %v", v, ok, ref.Totals.AvailableCoreSecs)
	}
	if got := objectRequests(objstore.OpGet, objstore.ResultOK) - gets; got != int64(len(parts)) {
		t.Errorf("%d reads for %d parts: a part was downloaded again", got, len(parts))
	}
	if v, ok := series(mfs, "sparkglance_eventlog_object_requests_total", map[string]string{"op": "list", "result": "ok"}); !ok || v < 1 {
		t.Errorf("listing requests not counted: %v %v", v, ok)
	}
	if n := sumSeries(mfs, "sparkglance_eventlog_errors_total", nil); n != 0 {
		t.Errorf("%v errors counted for a log written as Spark writes it", n)
	}
}

// A bucket that turns unreadable mid-follow makes the collector fail and
// not ready, saying why, and the application is kept; once readable again
// following goes on. A throttled store is backed off and counted, and
// never fails a scrape.
func TestS3DeniedThenThrottledMidFollow(t *testing.T) {
	testDeniedThenThrottledMidFollow(t, objstoretest.StartS3(t))
}

// The same on Google Cloud Storage.
func TestGCSDeniedThenThrottledMidFollow(t *testing.T) {
	testDeniedThenThrottledMidFollow(t, objstoretest.StartGCS(t))
}

// The same on Azure Blob Storage (Azurite).
func TestAzureDeniedThenThrottledMidFollow(t *testing.T) {
	testDeniedThenThrottledMidFollow(t, objstoretest.StartAzurite(t))
}

func testDeniedThenThrottledMidFollow(t *testing.T, s3 objstoretest.Store) {
	const appID = "app-20261202080000-0002"
	w, _, write, _ := s3LiveApp(t, s3, appID)
	write(0)
	waitFor(t, 10*time.Second, "the application runs", func() bool {
		v, _ := series(gather(t, w), "sparkglance_eventlog_apps", map[string]string{"state": "running"})
		return v == 1
	})

	s3.Deny(true)
	waitFor(t, 10*time.Second, "the denied listing makes the collector fail", func() bool {
		_, err := w.Families(t.Context())
		return err != nil
	})
	if err := w.Ready(); err == nil || !strings.Contains(err.Error(), "permission denied") || !strings.Contains(err.Error(), s3.Ref("spark-events")) {
		t.Errorf("Ready while denied: %v; want the location and the reason", err)
	}
	if v, _ := series(gatherWith(t, w, func(error) {}), "sparkglance_eventlog_apps", map[string]string{"state": "running"}); v != 1 {
		t.Errorf("the application was dropped while the bucket was unreadable (%v running)", v)
	}
	if objectRequests(objstore.OpList, objstore.ResultDenied)+objectRequests(objstore.OpStat, objstore.ResultDenied) == 0 {
		t.Errorf("denied requests not counted: %v", objstore.Requests())
	}
	s3.Deny(false)
	waitFor(t, 10*time.Second, "the collector recovers", func() bool { return w.Ready() == nil })

	throttled := objectRequests(objstore.OpList, objstore.ResultThrottled) +
		objectRequests(objstore.OpStat, objstore.ResultThrottled) +
		objectRequests(objstore.OpGet, objstore.ResultThrottled)
	s3.Throttle(2)
	write(1)
	waitFor(t, 20*time.Second, "the throttled requests are retried", func() bool { return s3.ThrottledCount() >= 2 })
	for range 3 {
		waitScans(t, w, 1)
		if _, err := w.Families(t.Context()); err != nil {
			t.Errorf("a scrape failed while the store throttled: %v", err)
		}
	}
	after := objectRequests(objstore.OpList, objstore.ResultThrottled) +
		objectRequests(objstore.OpStat, objstore.ResultThrottled) +
		objectRequests(objstore.OpGet, objstore.ResultThrottled)
	if after-throttled < 2 {
		t.Errorf("%d throttled requests counted, want 2", after-throttled)
	}
}

// Served through the real exporter: a bucket that does not exist makes
// /-/ready say which location and why and the collector fail; logs in an
// existing bucket are exported.
func TestS3ServedReadyAndMetrics(t *testing.T) {
	s3 := objstoretest.StartS3(t)
	missing := strings.Replace(s3.URL("spark-events"), s3.Bucket, s3.Bucket+"-missing", 1)
	base, w := startExporter(t, testConfig(missing))
	waitFor(t, 10*time.Second, "the first listing", func() bool { return w.scanned.Load() })
	status, body := getStatus(t, base+"/-/ready")
	if status != http.StatusServiceUnavailable || !strings.Contains(body, "s3://"+s3.Bucket+"-missing/spark-events") || !strings.Contains(body, "NoSuchBucket") {
		t.Errorf("/-/ready = %d %q, want 503 naming the location and the missing bucket", status, body)
	}
	if m := httpGet(t, base+"/metrics"); !strings.Contains(m, `sparkglance_scrape_collector_success{collector="eventlog"} 0`) {
		t.Errorf("collector success is not 0 while the bucket is missing")
	}

	data, err := os.ReadFile(writeSimulatedLog(t, t.TempDir(), "app-20261202080000-0003", false))
	if err != nil {
		t.Fatal(err)
	}
	s3.Put(t, "spark-events/app-20261202080000-0003", data)
	base, _ = startExporter(t, testConfig(s3.URL("spark-events")))
	waitFor(t, 10*time.Second, "ready and exporting the application", func() bool {
		status, _ := getStatus(t, base+"/-/ready")
		m := httpGet(t, base+"/metrics")
		return status == http.StatusOK && strings.Contains(m, `sparkglance_scrape_collector_success{collector="eventlog"} 1`) &&
			strings.Contains(m, `app_id="app-20261202080000-0003"`) && strings.Contains(m, `sparkglance_eventlog_object_requests_total{op="get",result="ok"}`)
	})
}
