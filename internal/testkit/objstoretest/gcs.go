package objstoretest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"
)

// GCS is an in-process Google Cloud Storage server (fake-gcs-server) on
// 127.0.0.1 behind the fault proxy, reached by the real GCS client through
// STORAGE_EMULATOR_HOST.
type GCS struct {
	faults
	Server   *fakestorage.Server
	Endpoint string
	Bucket   string
}

// StartGCS starts a server with one empty bucket and points the GCS
// client at it.
func StartGCS(t testing.TB) *GCS {
	t.Helper()
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{Scheme: "http", Host: "127.0.0.1", PublicHost: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	g := &GCS{Server: srv, Bucket: fmt.Sprintf("sparkglance-test-%d", bucketSeq.Add(1))}
	srv.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: g.Bucket})
	g.denyBody = `{"error":{"code":403,"message":"denied"}}`
	g.slowBody = `{"error":{"code":503,"message":"slow down"}}`
	g.Endpoint = g.front(t, srv.URL())
	t.Setenv("STORAGE_EMULATOR_HOST", strings.TrimPrefix(g.Endpoint, "http://"))
	return g
}

// URL is the location of prefix in the test bucket.
func (g *GCS) URL(prefix string) string { return g.Ref(prefix) }

// Ref is how sparklog names key.
func (g *GCS) Ref(key string) string { return "gs://" + g.Bucket + "/" + key }

// URLScheme is URL with the scheme given (gs is the only one).
func (g *GCS) URLScheme(scheme, prefix string) string {
	return scheme + "://" + g.Bucket + "/" + prefix
}

// Put stores one object directly in the server.
func (g *GCS) Put(t testing.TB, key string, data []byte) {
	t.Helper()
	g.Server.CreateObject(fakestorage.Object{
		ObjectAttrs: fakestorage.ObjectAttrs{BucketName: g.Bucket, Name: key},
		Content:     data,
	})
}

// Delete removes one object.
func (g *GCS) Delete(t testing.TB, key string) {
	t.Helper()
	if err := g.Server.Backend().DeleteObject(g.Bucket, key); err != nil {
		t.Fatalf("delete %s: %v", key, err)
	}
}
