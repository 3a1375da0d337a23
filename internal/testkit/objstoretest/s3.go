// Package objstoretest starts object stores on loopback for tests: an S3
// server (gofakes3, in process, over real HTTP), reached by the code under
// test through the real AWS SDK, with an optional proxy in front that
// answers some requests like a throttled S3 does.
package objstoretest

import (
	"bytes"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// bucketSeq makes bucket names unique in a test binary: sparklog keeps the
// buckets it opened for the life of the process, by name.
var bucketSeq atomic.Int64

// S3 is an in-process S3 server on 127.0.0.1.
type S3 struct {
	Backend  *s3mem.Backend
	Endpoint string // http://127.0.0.1:port, possibly the throttling proxy
	Bucket   string

	mu sync.Mutex
	// throttle makes the proxy answer 503 SlowDown to the next requests
	// it gets, as S3 does when a prefix gets too many.
	throttle int
	// deny makes every request answered 403 AccessDenied.
	deny bool
	// Throttled counts the requests answered SlowDown.
	Throttled atomic.Int64
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
	target, err := url.Parse(fake.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if code, body := s.fault(); code != 0 {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(code)
			fmt.Fprint(w, body)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	s.Endpoint = front.URL
	t.Setenv("AWS_ACCESS_KEY_ID", "sparkglance-test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "sparkglance-test-secret")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	return s
}

func (s *S3) fault() (int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.deny:
		return http.StatusForbidden, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`
	case s.throttle > 0:
		s.throttle--
		s.Throttled.Add(1)
		return http.StatusServiceUnavailable, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`
	}
	return 0, ""
}

// Throttle answers the next n requests 503 SlowDown.
func (s *S3) Throttle(n int) {
	s.mu.Lock()
	s.throttle = n
	s.mu.Unlock()
}

// Deny answers every request 403 AccessDenied while on.
func (s *S3) Deny(on bool) {
	s.mu.Lock()
	s.deny = on
	s.mu.Unlock()
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
func (s *S3) UploadDir(t testing.TB, dir, prefix string) {
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
