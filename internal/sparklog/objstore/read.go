package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
	"google.golang.org/api/googleapi"

	"github.com/sparkglance/sparkglance/internal/human"
)

// Info is an object's attributes as an fs.FileInfo, so that a follower
// treats objects and files alike.
type Info struct {
	name  string
	size  int64
	mtime time.Time
	etag  string
}

func (o Info) Name() string       { return o.name }
func (o Info) Size() int64        { return o.size }
func (o Info) Mode() fs.FileMode  { return 0o444 }
func (o Info) ModTime() time.Time { return o.mtime }
func (o Info) IsDir() bool        { return false }
func (o Info) Sys() any           { return nil }

// objectError names the object and keeps the store's error, made to match
// fs.ErrNotExist or fs.ErrPermission where it means that, so the follower's
// handling of renamed and vanished files applies to objects too.
func objectError(ref string, err error) error {
	ref = human.QuotedName(ref)
	if c := httpStatus(err); c == http.StatusForbidden || c == http.StatusUnauthorized {
		// GCS answers 403 for a bucket that does not exist too ("denied
		// on resource (or it may not exist)"), so the message says both.
		return fmt.Errorf("%s: %w (the credentials need list and get on the bucket, and the bucket must exist): %w", ref, fs.ErrPermission, err)
	}
	if isThrottled(err) {
		return fmt.Errorf("%s: %w even after the SDK's backed-off retries: %w", ref, ErrThrottled, err)
	}
	if httpStatus(err) == http.StatusNotFound && gcerrors.Code(err) == gcerrors.Unknown {
		// An S3 call made around gocloud (keys.go): not mapped by it.
		return fmt.Errorf("%s: %w: %w", ref, fs.ErrNotExist, err)
	}
	switch gcerrors.Code(err) {
	case gcerrors.NotFound:
		return fmt.Errorf("%s: %w: %w", ref, fs.ErrNotExist, err)
	case gcerrors.PermissionDenied:
		return fmt.Errorf("%s: %w (the credentials need list and get on the bucket): %w", ref, fs.ErrPermission, err)
	}
	return fmt.Errorf("%s: %w", ref, err)
}

// objectBucketOf opens the bucket of a canonical object path.
func objectBucketOf(ctx context.Context, ref string) (*blob.Bucket, string, error) {
	ob, key, err := splitObjectPath(ref)
	if err != nil {
		return nil, "", err
	}
	b, err := ob.bucket(ctx)
	if err != nil {
		return nil, "", err
	}
	return b, key, nil
}

// ErrThrottled marks a request the store kept refusing as too many (HTTP
// 429, 503 SlowDown) through the SDK's retries: a reason to wait for the
// next scan, not a fault of the location.
var ErrThrottled = errors.New("the object store is throttling requests")

// isThrottled tells the store's "slow down" answers: gocloud's codes where
// its driver maps them, else the HTTP status or the S3 error code.
func isThrottled(err error) bool {
	switch gcerrors.Code(err) {
	case gcerrors.ResourceExhausted:
		return true
	}
	if c := httpStatus(err); c == http.StatusTooManyRequests || c == http.StatusServiceUnavailable {
		return true
	}
	var api interface{ ErrorCode() string }
	if errors.As(err, &api) {
		switch api.ErrorCode() {
		case "SlowDown", "Throttling", "ThrottlingException", "TooManyRequests", "RequestLimitExceeded", "ServerBusy":
			return true
		}
	}
	return false
}

// httpStatus is the HTTP status an SDK error carries, 0 if none.
func httpStatus(err error) int {
	var status interface{ HTTPStatusCode() int } // AWS
	if errors.As(err, &status) {
		return status.HTTPStatusCode()
	}
	var gerr *googleapi.Error
	if errors.As(err, &gerr) {
		return gerr.Code
	}
	var aerr *azcore.ResponseError
	if errors.As(err, &aerr) {
		return aerr.StatusCode
	}
	return 0
}

// Stat is one stat request for the canonical ref. It remembers the size,
// so that an Open from that size on costs no request, and the ETag
// (TakeETag).
func Stat(ref string) (Info, error) {
	ctx, cancel := objectCall(context.Background())
	defer cancel()
	b, key, err := objectBucketOf(ctx, ref)
	if err != nil {
		return Info{}, err
	}
	a, err := objectAttributes(ctx, b, key)
	if err != nil {
		statSizes.Delete(ref)
		return Info{}, objectError(ref, err)
	}
	statSizes.Store(ref, a.size)
	if a.etag != "" {
		statETags.Store(ref, a.etag)
	}
	return Info{name: path.Base(key), size: a.size, mtime: a.mtime, etag: a.etag}, nil
}

// statSizes holds each object's size as last stat'ed. A follower stats a
// file right before reading it; a read from that size on would find
// nothing, so it is not sent (a part that was the live one is looked at
// once more when it becomes final).
var statSizes sync.Map // ref → int64

// statETags holds each object's ETag as last stat'ed, until the follower
// reading it takes it (TakeETag).
var statETags sync.Map // ref → string

// TakeETag returns and forgets the ETag of the last Stat of ref, "" if
// none: each version of an object read is taken once.
func TakeETag(ref string) string {
	v, ok := statETags.LoadAndDelete(ref)
	if !ok {
		return ""
	}
	return v.(string)
}

// IdleTimeout cuts an object's body that sends nothing for that long: a
// store that stops mid-body (or a black-holed connection) must not hold a
// reader for ever. A variable so tests can shorten it.
var IdleTimeout = 30 * time.Second

// Open streams the object ref from offset at with one ranged read: the
// object is never held in memory, and the codec decodes it as it arrives.
// Cancelling parent cancels the read, even one blocked mid-body.
func Open(parent context.Context, ref string, at int64) (io.ReadCloser, error) {
	if size, ok := statSizes.LoadAndDelete(ref); ok && at > 0 && at >= size.(int64) {
		return io.NopCloser(strings.NewReader("")), nil
	}
	ctx, cancel := context.WithCancel(parent)
	octx, ocancel := objectCall(ctx)
	defer ocancel()
	b, key, err := objectBucketOf(octx, ref)
	if err != nil {
		cancel()
		return nil, err
	}
	// The read outlives the opening call's deadline, so it gets its own
	// context, cancelled by Close.
	r, err := objectRangeReader(ctx, b, key, at, -1)
	if err != nil {
		cancel()
		if at > 0 && httpStatus(err) == http.StatusRequestedRangeNotSatisfiable {
			// Read to its end before: nothing new (a part that was the
			// live one is looked at once more as final).
			return io.NopCloser(strings.NewReader("")), nil
		}
		return nil, objectError(ref, err)
	}
	// A stream that stalls is cut after IdleTimeout without a
	// byte, so that a hung store cannot block a follower for ever.
	o := &objectReader{r: r, cancel: cancel, ctx: ctx, idle: IdleTimeout}
	o.stall = time.AfterFunc(o.idle, func() { o.stalled.Store(true); cancel() })
	return o, nil
}

type objectReader struct {
	r       io.ReadCloser
	ctx     context.Context
	cancel  context.CancelFunc
	idle    time.Duration
	stall   *time.Timer
	stalled atomic.Bool
}

func (o *objectReader) Read(p []byte) (int, error) {
	n, err := o.r.Read(p)
	if err != nil && o.stalled.Load() {
		return n, fmt.Errorf("%w: no byte of the object's body for %v", errObjectStalled, o.idle)
	}
	if err != nil && o.ctx.Err() != nil {
		return n, o.ctx.Err()
	}
	o.stall.Reset(o.idle)
	return n, err
}

// errObjectStalled is an object body that stopped sending.
var errObjectStalled = errors.New("the object store stopped sending")

func (o *objectReader) Close() error {
	o.stall.Stop()
	err := o.r.Close()
	o.cancel()
	return err
}

// objectReadAhead is how much one ranged read of a zip archive fetches:
// archive/zip reads members in small pieces, each of which would
// otherwise be a request of its own.
const objectReadAhead = 1 << 20

// NewReaderAt reads the object ref of the given size at random offsets,
// for zip archives, through a read-ahead window.
func NewReaderAt(ref string, size int64) io.ReaderAt {
	return &objectReaderAt{ref: ref, size: size}
}

type objectReaderAt struct {
	mu   sync.Mutex // members of one archive may be read at once
	ref  string
	size int64
	win  []byte
	off  int64
}

func (o *objectReaderAt) ReadAt(p []byte, off int64) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for n < len(p) {
		at := off + int64(n)
		if at >= o.size {
			return n, io.EOF
		}
		if at < o.off || at >= o.off+int64(len(o.win)) {
			if err := o.fill(at, len(p)-n); err != nil {
				return n, err
			}
		}
		n += copy(p[n:], o.win[at-o.off:])
	}
	return n, nil
}

func (o *objectReaderAt) fill(at int64, want int) error {
	length := min(max(int64(want), objectReadAhead), o.size-at)
	ctx, cancel := objectCall(context.Background())
	defer cancel()
	b, key, err := objectBucketOf(ctx, o.ref)
	if err != nil {
		return err
	}
	r, err := objectRangeReader(ctx, b, key, at, length)
	if err != nil {
		return objectError(o.ref, err)
	}
	defer r.Close()
	buf := make([]byte, length)
	if _, err := io.ReadFull(r, buf); err != nil {
		return objectError(o.ref, err)
	}
	o.win, o.off = buf, at
	return nil
}
