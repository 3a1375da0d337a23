// Package objstoretest starts object stores on loopback for tests: an S3
// server (gofakes3, in process, over real HTTP), reached by the code under
// test through the real AWS SDK, with an optional proxy in front that
// answers some requests like a throttled S3 does.
package objstoretest

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// bucketSeq makes bucket names unique in a test binary: sparklog keeps the
// buckets it opened for the life of the process, by name.
var bucketSeq atomic.Int64

// Store is what the tests of every store use: objects put and deleted
// behind the code's back, and the location a user would give.
type Store interface {
	// URL is the location of prefix as a user gives it.
	URL(prefix string) string
	// Ref is how sparklog names key (canonical form).
	Ref(key string) string
	Put(t testing.TB, key string, data []byte)
	Delete(t testing.TB, key string)
	// Throttle answers the next n requests 503, Deny every one 403.
	Throttle(n int)
	Deny(on bool)
	// ThrottledCount is the number of requests answered 503 so far.
	ThrottledCount() int64
}

// faults is the proxy in front of a test store: it answers some requests
// as a throttled or forbidding store does, and passes the rest on.
type faults struct {
	mu sync.Mutex
	// throttle makes the proxy answer 503 (S3's SlowDown) to the next
	// requests it gets, as a store does when a prefix gets too many.
	throttle int
	// deny makes every request answered 403.
	deny      bool
	throttled atomic.Int64
	denyBody  string
	slowBody  string
	// stallAfter > 0 makes object bodies stop after that many bytes.
	stallAfter atomic.Int64
	release    chan struct{} // closed at cleanup: stalled bodies end
	stalls     atomic.Int64
	// lister, when set, answers ListObjectsV2 requests itself (S3:
	// listV2), in place of the store behind.
	lister http.HandlerFunc
}

// front starts the proxy to target on loopback.
func (f *faults) front(t testing.TB, target string) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	f.release = make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if code, body := f.fault(); code != 0 {
			w.WriteHeader(code)
			fmt.Fprint(w, body)
			return
		}
		if f.lister != nil && isListV2(r) {
			f.lister(w, r)
			return
		}
		if n := f.stallAfter.Load(); n > 0 && isObjectGet(r) {
			w = &stallingWriter{ResponseWriter: w, left: n, f: f, gone: r.Context().Done()}
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(f.release) }) // runs first: no handler blocks Close
	return srv.URL
}

// isObjectGet tells a GET of one object (path-style /bucket/key; the AWS
// SDK adds x-id=GetObject) from listings and other requests.
func isObjectGet(r *http.Request) bool {
	q := r.URL.Query()
	return r.Method == http.MethodGet && !q.Has("list-type") && !q.Has("prefix") && strings.Count(strings.Trim(r.URL.Path, "/"), "/") >= 1
}

// stallingWriter passes left bytes of a body on, then stops sending —
// the connection stays open, as with a store that hangs mid-body — until
// the client goes away or the test ends.
type stallingWriter struct {
	http.ResponseWriter
	left int64
	f    *faults
	gone <-chan struct{}
}

func (s *stallingWriter) Write(p []byte) (int, error) {
	if int64(len(p)) <= s.left {
		s.left -= int64(len(p))
		return s.ResponseWriter.Write(p)
	}
	n, err := s.ResponseWriter.Write(p[:s.left])
	s.left = 0
	if err != nil {
		return n, err
	}
	if fl, ok := s.ResponseWriter.(http.Flusher); ok {
		fl.Flush()
	}
	s.f.stalls.Add(1)
	select {
	case <-s.gone:
	case <-s.f.release:
	}
	return n, errors.New("objstoretest: body stalled")
}

// StallBodies makes every object body stop after n bytes (0: off).
func (f *faults) StallBodies(n int64) { f.stallAfter.Store(n) }

// Stalls is the number of bodies stalled so far.
func (f *faults) Stalls() int64 { return f.stalls.Load() }

func (f *faults) fault() (int, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.deny:
		return http.StatusForbidden, f.denyBody
	case f.throttle > 0:
		f.throttle--
		f.throttled.Add(1)
		return http.StatusServiceUnavailable, f.slowBody
	}
	return 0, ""
}

// Throttle answers the next n requests 503.
func (f *faults) Throttle(n int) {
	f.mu.Lock()
	f.throttle = n
	f.mu.Unlock()
}

// Deny answers every request 403 while on.
func (f *faults) Deny(on bool) {
	f.mu.Lock()
	f.deny = on
	f.mu.Unlock()
}

// ThrottledCount is the number of requests answered 503 so far.
func (f *faults) ThrottledCount() int64 { return f.throttled.Load() }

// S3 is an in-process S3 server on 127.0.0.1.
type S3 struct {
	faults
	Backend  *s3mem.Backend
	Endpoint string // http://127.0.0.1:port: the fault proxy
	Bucket   string
	// ignoreEncoding: listings ignore encoding-type (IgnoreEncodingType).
	ignoreEncoding atomic.Bool
}

// StartS3 starts a server with one empty bucket, behind a proxy that can
// be told to throttle or deny, and sets the AWS environment so that the
// SDK's standard credential chain finds static test keys and never asks
// an instance-metadata service.
func StartS3(t testing.TB) *S3 {
	t.Helper()
	s := &S3{Backend: s3mem.New(), Bucket: fmt.Sprintf("sparkglance-test-%d", bucketSeq.Add(1))}
	if err := s.Backend.CreateBucket(s.Bucket); err != nil {
		t.Fatal(err)
	}
	fake := httptest.NewServer(gofakes3.New(s.Backend).Server())
	t.Cleanup(fake.Close)
	s.denyBody = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`
	s.slowBody = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`
	s.lister = s.listV2
	s.Endpoint = s.front(t, fake.URL)
	t.Setenv("AWS_ACCESS_KEY_ID", "sparkglance-test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "sparkglance-test-secret")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	return s
}

// URL is the location of prefix in the test bucket, as a user would give
// it: path-style addressing at the loopback endpoint.
func (s *S3) URL(prefix string) string {
	return s.URLScheme("s3", prefix)
}

// URLScheme is URL with another scheme (s3a, s3n).
func (s *S3) URLScheme(scheme, prefix string) string {
	q := url.Values{"endpoint": {s.Endpoint}, "use_path_style": {"true"}, "region": {"us-east-1"}}
	return fmt.Sprintf("%s://%s/%s?%s", scheme, s.Bucket, prefix, q.Encode())
}

// Ref is how sparklog names key in canonical form.
func (s *S3) Ref(key string) string { return "s3://" + s.Bucket + "/" + key }

// Put stores one object directly in the backend.
func (s *S3) Put(t testing.TB, key string, data []byte) {
	t.Helper()
	if _, err := s.Backend.PutObject(s.Bucket, key, map[string]string{}, bytes.NewReader(data), int64(len(data)), nil); err != nil {
		t.Fatalf("put %s: %v", key, err)
	}
}

// Delete removes one object.
func (s *S3) Delete(t testing.TB, key string) {
	t.Helper()
	if _, err := s.Backend.DeleteObject(s.Bucket, key); err != nil {
		t.Fatalf("delete %s: %v", key, err)
	}
}

// UploadDir copies every regular file under dir to prefix/<relative path>.
func UploadDir(t testing.TB, s Store, dir, prefix string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		s.Put(t, prefix+"/"+filepath.ToSlash(rel), data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
