package objstore

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"
	"gocloud.dev/gcerrors"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
	storagev1 "google.golang.org/api/storage/v1"
)

// This file is a read-only gocloud blob driver for Google Cloud Storage
// over the JSON API client google.golang.org/api/storage/v1.
//
// It exists instead of gocloud's gcsblob because gcsblob is built on
// cloud.google.com/go/storage, which links gRPC, xDS with Envoy's
// protobufs and Cloud Monitoring into the binary whether or not gs:// is
// used: measured, their package initialisation made every run of
// sparkglance (even --version) take ~46 MiB of RSS instead of ~29 MiB and
// ~10 ms longer, and the binary 79 MB instead of 51 MB (figures in
// docs/performance.md, "Startup"). Event logs only need listing, stat and
// ranged reads, which the generated JSON client does with plain HTTP.

// gcsAttempts bounds the tries of one request. The generated client does
// not retry, while GCS asks clients to back off and retry on 429 and 5xx;
// AWS's and Azure's SDKs make 3 and 4 tries.
const gcsAttempts = 4

// gcsFirstBackoff is the wait before the first retry, doubled for each
// next one (with jitter): 4 tries wait about 1.75 s in all.
const gcsFirstBackoff = 250 * time.Millisecond

// gcsListFields are the listing fields the reader uses: a page of 1000
// objects with every field would be ~20 times the bytes to fetch and parse.
const gcsListFields = "items(name,size,updated,md5Hash,etag,generation),prefixes,nextPageToken"

// errGCSReadOnly answers every write: sparkglance only reads event logs.
var errGCSReadOnly = errors.New("not implemented: sparkglance's GCS driver is read-only (list, stat and read)")

// openGCS opens bucket u.Host with Application Default Credentials and the
// read-only scope, or with none when STORAGE_EMULATOR_HOST points at an
// emulator. Every request goes through client (counted, with its timeouts).
// The one option, ?endpoint=https://host, sends the signed-in requests to
// another address of the JSON API (a Private Service Connect endpoint, a
// proxy), as s3://…?endpoint= does for S3.
func openGCS(ctx context.Context, u *url.URL, client *http.Client) (*blob.Bucket, error) {
	q := u.Query()
	endpoint := q.Get("endpoint")
	q.Del("endpoint")
	if len(q) > 0 {
		return nil, fmt.Errorf("gs:// takes only the endpoint option (got %q); credentials come from Application Default Credentials", u.RawQuery)
	}
	if endpoint != "" {
		e, err := url.Parse(endpoint)
		if err != nil || (e.Scheme != "https" && e.Scheme != "http") || e.Host == "" {
			return nil, fmt.Errorf("gs://%s: endpoint=%q: want an http(s)://host[:port] address", u.Host, endpoint)
		}
		endpoint = strings.TrimSuffix(endpoint, "/") + "/storage/v1/"
	}
	opts := []option.ClientOption{option.WithHTTPClient(client)}
	if host := os.Getenv("STORAGE_EMULATOR_HOST"); host != "" {
		// As cloud.google.com/go/storage does: host:port or a URL, anonymous.
		if !strings.Contains(host, "://") {
			host = "http://" + host
		}
		opts = append(opts, option.WithEndpoint(strings.TrimSuffix(host, "/")+"/storage/v1/"))
	} else {
		// The token source keeps this context for its refreshes: they must
		// outlive the call that opens the bucket, and go through client
		// too (counted as "other" requests).
		tctx := context.WithValue(context.WithoutCancel(ctx), oauth2.HTTPClient, client)
		creds, err := google.FindDefaultCredentials(tctx, storagev1.DevstorageReadOnlyScope)
		if err != nil {
			return nil, fmt.Errorf("gs://%s: no Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud auth application-default login, workload identity or the metadata server): %w", u.Host, err)
		}
		opts[0] = option.WithHTTPClient(&http.Client{Transport: &oauth2.Transport{Source: creds.TokenSource, Base: client.Transport}})
		if endpoint != "" {
			opts = append(opts, option.WithEndpoint(endpoint))
		}
	}
	svc, err := storagev1.NewService(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("gs://%s: %w", u.Host, err)
	}
	return blob.NewBucket(&gcsBucket{name: u.Host, svc: svc}), nil
}

// gcsBucket is one bucket. Its driver.Bucket methods are called by the
// blob.Bucket wrapping it, which checks their arguments and wraps errors
// with ErrorCode.
type gcsBucket struct {
	name string
	svc  *storagev1.Service
}

var _ driver.Bucket = (*gcsBucket)(nil)

// retry makes call up to gcsAttempts times while it fails with a status or
// a network error that a later try may not meet.
func (b *gcsBucket) retry(ctx context.Context, call func() error) error {
	backoff := gcsFirstBackoff
	var err error
	for attempt := range gcsAttempts {
		if err = call(); err == nil || attempt == gcsAttempts-1 || !gcsRetryable(err) {
			return err
		}
		// Half to one and a half times the backoff, so that clients
		// throttled together do not come back together.
		wait := time.NewTimer(backoff/2 + rand.N(backoff))
		select {
		case <-ctx.Done():
			wait.Stop()
			return err
		case <-wait.C:
		}
		backoff *= 2
	}
	return err
}

// gcsRetryable tells the failures GCS documents as transient: 408, 429 and
// 5xx, and a connection that failed (not a cancelled or timed-out call, nor
// credentials that cannot get a token).
func gcsRetryable(err error) bool {
	var gerr *googleapi.Error
	if errors.As(err, &gerr) {
		c := gerr.Code
		return c == http.StatusRequestTimeout || c == http.StatusTooManyRequests || c >= 500
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var tokenErr *oauth2.RetrieveError
	if errors.As(err, &tokenErr) {
		return false
	}
	var uerr *url.Error
	return errors.As(err, &uerr)
}

// ErrorCode maps the HTTP status of the JSON API's errors to gocloud's
// codes, which the reader's not-found and permission handling go by.
func (b *gcsBucket) ErrorCode(err error) gcerrors.ErrorCode {
	switch {
	case errors.Is(err, errGCSReadOnly):
		return gcerrors.Unimplemented
	case errors.Is(err, context.Canceled):
		return gcerrors.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return gcerrors.DeadlineExceeded
	}
	var gerr *googleapi.Error
	if !errors.As(err, &gerr) {
		return gcerrors.Unknown
	}
	switch c := gerr.Code; {
	case c == http.StatusNotFound:
		return gcerrors.NotFound
	case c == http.StatusUnauthorized || c == http.StatusForbidden:
		return gcerrors.PermissionDenied
	case c == http.StatusBadRequest || c == http.StatusRequestedRangeNotSatisfiable:
		return gcerrors.InvalidArgument
	case c == http.StatusConflict:
		return gcerrors.AlreadyExists
	case c == http.StatusPreconditionFailed || c == http.StatusNotModified:
		return gcerrors.FailedPrecondition
	case c == http.StatusTooManyRequests:
		return gcerrors.ResourceExhausted
	case c == http.StatusNotImplemented:
		return gcerrors.Unimplemented
	case c >= 500:
		return gcerrors.Internal
	}
	return gcerrors.Unknown
}

// As exposes the JSON API client, as **storagev1.Service.
func (b *gcsBucket) As(i any) bool { return asPointer(b.svc)(i) }

// asPointer is the As function that gives v to a target of type **T.
func asPointer[T any](v *T) func(any) bool {
	return func(i any) bool {
		p, ok := i.(**T)
		if ok {
			*p = v
		}
		return ok
	}
}

// ErrorAs exposes the JSON API's error, as **googleapi.Error.
func (b *gcsBucket) ErrorAs(err error, i any) bool {
	p, ok := i.(**googleapi.Error)
	return ok && errors.As(err, p)
}

// Attributes is one objects.get of the object's metadata. AsFunc exposes
// the whole resource (generation, metageneration, …) as *storagev1.Object.
func (b *gcsBucket) Attributes(ctx context.Context, key string) (*driver.Attributes, error) {
	var obj *storagev1.Object
	err := b.retry(ctx, func() (err error) {
		obj, err = b.svc.Objects.Get(b.name, key).Context(ctx).Do()
		return err
	})
	if err != nil {
		return nil, err
	}
	mtime, err := gcsTime(obj.Updated)
	if err != nil {
		return nil, fmt.Errorf("gs://%s/%s: the store's metadata has %w", b.name, key, err)
	}
	created, _ := gcsTime(obj.TimeCreated) // informative only
	md5, _ := base64.StdEncoding.DecodeString(obj.Md5Hash)
	return &driver.Attributes{
		CacheControl:       obj.CacheControl,
		ContentDisposition: obj.ContentDisposition,
		ContentEncoding:    obj.ContentEncoding,
		ContentLanguage:    obj.ContentLanguage,
		ContentType:        obj.ContentType,
		Metadata:           obj.Metadata,
		CreateTime:         created,
		ModTime:            mtime,
		Size:               int64(obj.Size),
		MD5:                md5,
		ETag:               gcsETag(obj.Etag),
		AsFunc:             asObject(obj),
	}, nil
}

// gcsETag quotes the JSON API's bare ETag, as an HTTP ETag is written (and
// as gocloud's gcsblob did, so a follower's remembered ETag compares alike).
func gcsETag(etag string) string {
	if etag == "" || strings.HasPrefix(etag, `"`) || strings.HasPrefix(etag, `W/"`) {
		return etag
	}
	return strconv.Quote(etag)
}

// gcsTime parses the JSON API's RFC 3339 times; none is the zero time.
func gcsTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("a time that is not RFC 3339: %q", s)
	}
	return t, nil
}

func asObject(obj *storagev1.Object) func(any) bool {
	return func(i any) bool {
		p, ok := i.(*storagev1.Object)
		if ok {
			*p = *obj
		}
		return ok
	}
}

// ListPaged is one objects.list request: the objects and, with a
// delimiter, the "directories" under opts.Prefix, merged in key order.
// A listed object's AsFunc has only the fields of gcsListFields.
func (b *gcsBucket) ListPaged(ctx context.Context, opts *driver.ListOptions) (*driver.ListPage, error) {
	call := b.svc.Objects.List(b.name).Context(ctx).Fields(gcsListFields)
	if opts.Prefix != "" {
		call.Prefix(opts.Prefix)
	}
	if opts.Delimiter != "" {
		call.Delimiter(opts.Delimiter)
	}
	if opts.PageSize > 0 {
		call.MaxResults(int64(opts.PageSize))
	}
	if len(opts.PageToken) > 0 {
		call.PageToken(string(opts.PageToken))
	}
	if opts.BeforeList != nil {
		if err := opts.BeforeList(asPointer(call)); err != nil {
			return nil, err
		}
	}
	var res *storagev1.Objects
	err := b.retry(ctx, func() (err error) {
		res, err = call.Do()
		return err
	})
	if err != nil {
		return nil, err
	}
	page := &driver.ListPage{Objects: make([]*driver.ListObject, 0, len(res.Items)+len(res.Prefixes))}
	for _, obj := range res.Items {
		mtime, err := gcsTime(obj.Updated)
		if err != nil {
			return nil, fmt.Errorf("gs://%s/%s: the listing has %w", b.name, obj.Name, err)
		}
		md5, _ := base64.StdEncoding.DecodeString(obj.Md5Hash)
		page.Objects = append(page.Objects, &driver.ListObject{
			Key: obj.Name, ModTime: mtime, Size: int64(obj.Size), MD5: md5, AsFunc: asObject(obj),
		})
	}
	for _, prefix := range res.Prefixes {
		page.Objects = append(page.Objects, &driver.ListObject{Key: prefix, IsDir: true})
	}
	if len(res.Prefixes) > 0 {
		// Items and prefixes come as two sorted lists; gocloud promises one.
		slices.SortFunc(page.Objects, func(a, b *driver.ListObject) int { return strings.Compare(a.Key, b.Key) })
	}
	if res.NextPageToken != "" {
		page.NextPageToken = []byte(res.NextPageToken)
	}
	return page, nil
}

// NewRangeReader is one objects.get of the media with a Range header:
// the body is streamed, never held. length 0 is a stat, as gocloud's
// drivers do, so the reader's attributes hold.
func (b *gcsBucket) NewRangeReader(ctx context.Context, key string, offset, length int64, opts *driver.ReaderOptions) (driver.Reader, error) {
	if length == 0 {
		a, err := b.Attributes(ctx, key)
		if err != nil {
			return nil, err
		}
		if opts.BeforeRead != nil {
			if err := opts.BeforeRead(func(any) bool { return false }); err != nil {
				return nil, err
			}
		}
		return &gcsReader{body: http.NoBody, attrs: driver.ReaderAttributes{ContentType: a.ContentType, ModTime: a.ModTime, Size: a.Size}}, nil
	}
	call := b.svc.Objects.Get(b.name, key).Context(ctx)
	switch {
	case length > 0:
		call.Header().Set("Range", fmt.Sprintf("bytes=%d-%d", offset, offset+length-1))
	case offset > 0:
		call.Header().Set("Range", fmt.Sprintf("bytes=%d-", offset))
	}
	if opts.BeforeRead != nil {
		if err := opts.BeforeRead(asPointer(call)); err != nil {
			return nil, err
		}
	}
	var resp *http.Response
	err := b.retry(ctx, func() (err error) {
		resp, err = call.Download()
		return err
	})
	if err != nil {
		return nil, err
	}
	body := resp.Body
	if resp.StatusCode != http.StatusPartialContent {
		switch {
		case offset > 0:
			// A store that ignored the range hands over the object from
			// its start, which would be read as the bytes from offset on.
			resp.Body.Close()
			return nil, fmt.Errorf("gs://%s/%s: asked for the bytes from %d, the store answered %s without a range", b.name, key, offset, resp.Status)
		case length > 0:
			body = struct {
				io.Reader
				io.Closer
			}{io.LimitReader(resp.Body, length), resp.Body}
		}
	}
	return &gcsReader{body: body, resp: resp, attrs: readerAttributes(resp, offset)}, nil
}

// readerAttributes are the object's attributes as a media response gives
// them: the size from Content-Range or GCS's stored length.
func readerAttributes(resp *http.Response, offset int64) driver.ReaderAttributes {
	a := driver.ReaderAttributes{ContentType: resp.Header.Get("Content-Type"), Size: -1}
	if a.ContentType == "" {
		a.ContentType = "application/octet-stream"
	}
	if t, err := http.ParseTime(resp.Header.Get("Last-Modified")); err == nil {
		a.ModTime = t
	}
	if _, total, ok := strings.Cut(resp.Header.Get("Content-Range"), "/"); ok {
		if n, err := strconv.ParseInt(total, 10, 64); err == nil {
			a.Size = n
		}
	}
	if a.Size < 0 {
		if n, err := strconv.ParseInt(resp.Header.Get("X-Goog-Stored-Content-Length"), 10, 64); err == nil {
			a.Size = n
		} else if resp.ContentLength >= 0 {
			a.Size = offset + resp.ContentLength
		}
	}
	return a
}

// gcsReader streams one media response.
type gcsReader struct {
	body  io.ReadCloser
	resp  *http.Response
	attrs driver.ReaderAttributes
}

func (r *gcsReader) Read(p []byte) (int, error)           { return r.body.Read(p) }
func (r *gcsReader) Close() error                         { return r.body.Close() }
func (r *gcsReader) Attributes() *driver.ReaderAttributes { return &r.attrs }

// As exposes the media response, as **http.Response.
func (r *gcsReader) As(i any) bool {
	p, ok := i.(**http.Response)
	if !ok || r.resp == nil {
		return false
	}
	*p = r.resp
	return true
}

func (b *gcsBucket) readOnly(key string) error {
	return fmt.Errorf("gs://%s/%s: %w", b.name, key, errGCSReadOnly)
}

// NewTypedWriter refuses: sparkglance never writes.
func (b *gcsBucket) NewTypedWriter(_ context.Context, key, _ string, _ *driver.WriterOptions) (driver.Writer, error) {
	return nil, b.readOnly(key)
}

// Copy refuses: sparkglance never writes.
func (b *gcsBucket) Copy(_ context.Context, dstKey, _ string, _ *driver.CopyOptions) error {
	return b.readOnly(dstKey)
}

// Delete refuses: sparkglance never writes.
func (b *gcsBucket) Delete(_ context.Context, key string, _ *driver.DeleteOptions) error {
	return b.readOnly(key)
}

// SignedURL refuses: it needs a signing key, and nothing here hands out
// URLs.
func (b *gcsBucket) SignedURL(_ context.Context, key string, _ *driver.SignedURLOptions) (string, error) {
	return "", b.readOnly(key)
}

// Close has nothing to release: the HTTP client is the caller's.
func (b *gcsBucket) Close() error { return nil }
