package objstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
	"google.golang.org/api/googleapi"
	storagev1 "google.golang.org/api/storage/v1"

	"github.com/sparkglance/sparkglance/internal/testkit/objstoretest"
)

// openTestGCS opens the test server's bucket as Open and List do.
func openTestGCS(t *testing.T, g *objstoretest.GCS) *blob.Bucket {
	t.Helper()
	b, err := openObjectBucket(t.Context(), "gs://"+g.Bucket)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The driver's reads: a stat with the attributes the follower uses, ranged
// reads of exactly the bytes asked, a read past the end, a missing object
// and a missing bucket with the codes the reader's handling goes by.
func TestGCSDriverStatAndRangedReads(t *testing.T) {
	g := objstoretest.StartGCS(t)
	data := bytes.Repeat([]byte("0123456789"), 10)
	g.Put(t, "logs/app-1", data)
	b := openTestGCS(t, g)
	ctx := t.Context()

	a, err := b.Attributes(ctx, "logs/app-1")
	if err != nil {
		t.Fatal(err)
	}
	var obj storagev1.Object
	if a.Size != int64(len(data)) || a.ModTime.IsZero() || !strings.HasPrefix(a.ETag, `"`) || len(a.ETag) < 3 ||
		!a.As(&obj) || obj.Generation == 0 {
		t.Errorf("attributes: size %d, mtime %v, etag %q, generation %d; want size %d, a time, a quoted ETag and a generation",
			a.Size, a.ModTime, a.ETag, obj.Generation, len(data))
	}

	for _, tc := range []struct{ offset, length int64 }{{0, -1}, {10, 20}, {90, -1}, {99, 5}} {
		r, err := b.NewRangeReader(ctx, "logs/app-1", tc.offset, tc.length, nil)
		if err != nil {
			t.Fatalf("range %d+%d: %v", tc.offset, tc.length, err)
		}
		got, err := io.ReadAll(r)
		r.Close()
		end := int64(len(data))
		if tc.length >= 0 {
			end = min(end, tc.offset+tc.length)
		}
		if err != nil || !bytes.Equal(got, data[tc.offset:end]) {
			t.Errorf("range %d+%d: %q, %v; want %q", tc.offset, tc.length, got, err, data[tc.offset:end])
		}
		if r.Size() != int64(len(data)) {
			t.Errorf("range %d+%d: reader size %d, want %d", tc.offset, tc.length, r.Size(), len(data))
		}
	}

	_, err = b.NewRangeReader(ctx, "logs/app-1", int64(len(data)), -1, nil)
	if httpStatus(err) != http.StatusRequestedRangeNotSatisfiable {
		t.Errorf("a read from the end: %v, want HTTP 416 (the follower's nothing new)", err)
	}
	if rc, err := Open(context.Background(), g.Ref("logs/app-1"), int64(len(data))); err != nil {
		t.Errorf("openObject at the end: %v, want an empty read", err)
	} else {
		rc.Close()
	}

	_, err = b.Attributes(ctx, "logs/missing")
	if gcerrors.Code(err) != gcerrors.NotFound {
		t.Errorf("a missing object: code %v (%v), want NotFound", gcerrors.Code(err), err)
	}
	if _, err := Stat(g.Ref("logs/missing")); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), g.Ref("logs/missing")) {
		t.Errorf("stat of a missing object: %v, want fs.ErrNotExist naming it", err)
	}
	var gerr *googleapi.Error
	if _, err := b.NewRangeReader(ctx, "logs/missing", 0, -1, nil); gcerrors.Code(err) != gcerrors.NotFound || !b.ErrorAs(err, &gerr) || gerr.Code != http.StatusNotFound {
		t.Errorf("reading a missing object: %v, want NotFound with the API's 404", err)
	}

	other := strings.Replace(g.Ref("logs"), g.Bucket, g.Bucket+"-missing", 1)
	canon, err := Resolve(other)
	if err == nil {
		_, err = List(canon, 0, nil)
	}
	if err == nil || !strings.Contains(err.Error(), g.Bucket+"-missing") {
		t.Errorf("a missing bucket: %v, want an error naming it", err)
	}
}

// A listing comes in pages of the size asked, in key order, resuming at
// the token; with a delimiter the "directories" are among the objects in
// key order (GCS sends them apart, after the objects).
func TestGCSDriverListsPagesAndDirectories(t *testing.T) {
	g := objstoretest.StartGCS(t)
	for _, key := range []string{"p/a", "p/b", "p/d/1", "p/d/2", "p/e", "p/f/1", "q/x"} {
		g.Put(t, key, []byte(key))
	}
	b := openTestGCS(t, g)
	list := func(pageSize int, delimiter string) (keys []string, pages int) {
		t.Helper()
		token := blob.FirstPageToken
		for len(token) > 0 && pages < 10 {
			objs, next, err := b.ListPage(t.Context(), token, pageSize, &blob.ListOptions{Prefix: "p/", Delimiter: delimiter})
			if err != nil {
				t.Fatal(err)
			}
			if len(objs) > pageSize {
				t.Errorf("a page of %d objects, asked for %d", len(objs), pageSize)
			}
			for _, o := range objs {
				k := o.Key
				if o.IsDir {
					k += "(dir)"
				} else if o.Size != int64(len(o.Key)) || o.ModTime.IsZero() {
					t.Errorf("%s: size %d, mtime %v", o.Key, o.Size, o.ModTime)
				}
				keys = append(keys, k)
			}
			token, pages = next, pages+1
		}
		return keys, pages
	}
	if keys, pages := list(2, ""); strings.Join(keys, " ") != "p/a p/b p/d/1 p/d/2 p/e p/f/1" || pages != 3 {
		t.Errorf("flat listing: %v in %d pages, want the 6 objects under p/ in 3", keys, pages)
	}
	if keys, pages := list(100, "/"); strings.Join(keys, " ") != "p/a p/b p/d/(dir) p/e p/f/(dir)" || pages != 1 {
		t.Errorf("listing with a delimiter: %v in %d pages", keys, pages)
	}
}

// Throttling (503) is retried with backoff within gcsAttempts tries, each
// try counted; a store still throttling after them is ErrThrottled naming
// the object. A denied request is not retried and means fs.ErrPermission.
func TestGCSDriverRetriesThrottlingWithinBound(t *testing.T) {
	g := objstoretest.StartGCS(t)
	g.Put(t, "logs/app-1", []byte("{}\n"))
	ref := g.Ref("logs/app-1")
	if _, err := Stat(ref); err != nil { // the bucket opened, nothing throttled yet
		t.Fatal(err)
	}

	throttled := requestCount(OpStat, ResultThrottled)
	g.Throttle(2)
	if info, err := Stat(ref); err != nil || info.Size() != 3 {
		t.Errorf("stat after two 503s: %v, %v; want it retried to success", info, err)
	}
	if got := requestCount(OpStat, ResultThrottled) - throttled; got != 2 {
		t.Errorf("%d throttled stats counted, want 2", got)
	}

	throttled = requestCount(OpStat, ResultThrottled)
	g.Throttle(gcsAttempts + 5)
	_, err := Stat(ref)
	g.Throttle(0)
	if !errors.Is(err, ErrThrottled) || !strings.Contains(err.Error(), ref) {
		t.Errorf("stat while the store keeps throttling: %v, want ErrThrottled naming %s", err, ref)
	}
	if got := requestCount(OpStat, ResultThrottled) - throttled; got != gcsAttempts {
		t.Errorf("%d tries while throttled, want gcsAttempts = %d", got, gcsAttempts)
	}

	denied := requestCount(OpStat, ResultDenied)
	g.Deny(true)
	_, err = Stat(ref)
	g.Deny(false)
	if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), ref) {
		t.Errorf("stat while denied: %v, want fs.ErrPermission naming %s", err, ref)
	}
	if got := requestCount(OpStat, ResultDenied) - denied; got != 1 {
		t.Errorf("%d denied stats, want 1 (a 403 is not retried)", got)
	}
}

// The driver never writes: each write is a clear Unimplemented error
// naming the object, sent to nobody.
func TestGCSDriverIsReadOnly(t *testing.T) {
	g := objstoretest.StartGCS(t)
	b := openTestGCS(t, g)
	ctx := t.Context()
	before := Requests()
	checks := map[string]error{
		"write":  b.WriteAll(ctx, "k", []byte("x"), nil),
		"copy":   b.Copy(ctx, "k", "j", nil),
		"delete": b.Delete(ctx, "k"),
	}
	_, checks["signed URL"] = b.SignedURL(ctx, "k", nil)
	for what, err := range checks {
		if gcerrors.Code(err) != gcerrors.Unimplemented || !strings.Contains(err.Error(), "read-only") || !strings.Contains(err.Error(), "gs://"+g.Bucket+"/") {
			t.Errorf("%s: %v, want Unimplemented saying read-only and naming the object", what, err)
		}
	}
	if after := Requests(); !equalCounts(before, after) {
		t.Errorf("writes sent requests: %v, then %v", before, after)
	}
}

func equalCounts(a, b []RequestCount) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Without an emulator, credentials come from Application Default
// Credentials: a key file that does not exist is an error naming the
// bucket and where credentials come from, before any request.
func TestGCSWithoutCredentialsSaysWhere(t *testing.T) {
	t.Setenv("STORAGE_EMULATOR_HOST", "")
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", filepath.Join(t.TempDir(), "missing.json"))
	_, err := openObjectBucket(context.Background(), "gs://sparkglance-no-credentials")
	if err == nil || !strings.Contains(err.Error(), "gs://sparkglance-no-credentials") || !strings.Contains(err.Error(), "Application Default Credentials") {
		t.Errorf("open without credentials: %v", err)
	}
}

// gs:// takes one option, endpoint, and says so when given another or a
// bad address.
func TestGCSOptionsRefused(t *testing.T) {
	for _, c := range []struct{ url, want string }{
		{"gs://sparkglance-opt?region=eu", "only the endpoint option"},
		{"gs://sparkglance-opt?endpoint=ftp://proxy", "want an http(s)://host[:port] address"},
		{"gs://sparkglance-opt?endpoint=localhost", "want an http(s)://host[:port] address"},
	} {
		_, err := openObjectBucket(context.Background(), c.url)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.url, err, c.want)
		}
	}
}

// With credentials, every request carries a bearer token from Application
// Default Credentials, fetched through the counted client; a token
// refreshed after the call that opened the bucket has ended still works.
func TestGCSWithCredentialsSendsBearerTokens(t *testing.T) {
	g := objstoretest.StartGCS(t)
	g.Put(t, "logs/app-1", []byte("{}\n"))
	t.Setenv("STORAGE_EMULATOR_HOST", "")

	var mu sync.Mutex
	var tokens int
	var auth []string
	tokenServer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil || r.Form.Get("grant_type") != "refresh_token" || r.Form.Get("refresh_token") != "test-refresh" {
			http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
			return
		}
		mu.Lock()
		tokens++
		n := tokens
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		// Shorter than oauth2's 10 s margin: each request needs a new token.
		fmt.Fprintf(w, `{"access_token":"tok-%d","token_type":"Bearer","expires_in":1}`, n)
	}))
	t.Cleanup(tokenServer.Close)
	target, err := url.Parse(g.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	store := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(store.Close)

	creds := filepath.Join(t.TempDir(), "adc.json")
	adc := fmt.Sprintf(`{"type":"authorized_user","client_id":"test-client","client_secret":"test-secret","refresh_token":"test-refresh","token_uri":%q}`, tokenServer.URL)
	if err := os.WriteFile(creds, []byte(adc), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", creds)

	others := requestCount(OpOther, ResultOK)
	// The signed-in requests go to the endpoint option's address, given
	// with the location as a user would.
	if _, err := Resolve(g.Ref("logs") + "?endpoint=" + url.QueryEscape(store.URL)); err != nil {
		t.Fatal(err)
	}
	ref := g.Ref("logs/app-1")
	for i := range 2 {
		if info, err := Stat(ref); err != nil || info.Size() != 3 {
			t.Fatalf("stat %d: %v, %v", i+1, info, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(auth, ",") != "Bearer tok-1,Bearer tok-2" || tokens != 2 {
		t.Errorf("the store saw %q after %d token requests, want each stat with a fresh bearer token", auth, tokens)
	}
	if got := requestCount(OpOther, ResultOK) - others; got != 2 {
		t.Errorf("%d token requests counted, want 2", got)
	}
}

// Behind a proxy that drops the Range header, the whole object comes back
// with 200: from offset 0 the bytes asked for are still its first ones,
// from further on they are not, and that read is refused rather than
// misread.
func TestGCSDriverRefusesRangeIgnored(t *testing.T) {
	g := objstoretest.StartGCS(t)
	g.Put(t, "logs/app-1", []byte("0123456789"))
	target, err := url.Parse(g.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	noRange := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del("Range")
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(noRange.Close)
	t.Setenv("STORAGE_EMULATOR_HOST", noRange.URL)
	b := openTestGCS(t, g)

	r, err := b.NewRangeReader(t.Context(), "logs/app-1", 0, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	r.Close()
	if err != nil || string(got) != "0123" {
		t.Errorf("the first 4 bytes: %q, %v", got, err)
	}
	_, err = b.NewRangeReader(t.Context(), "logs/app-1", 4, -1, nil)
	if err == nil || !strings.Contains(err.Error(), "without a range") || !strings.Contains(err.Error(), g.Ref("logs/app-1")) {
		t.Errorf("bytes from 4 with the range ignored: %v, want a refusal naming the object", err)
	}
}

// requestCount is the count of one op and result so far.
func requestCount(op, result string) int64 {
	for _, c := range Requests() {
		if c.Op == op && c.Result == result {
			return c.Count
		}
	}
	return 0
}
