package objstore

import (
	"context"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// objectListPageSize is the most keys one listing request returns (S3's
// and gocloud's maximum), so that 10,000 applications cost 10 requests.
const objectListPageSize = 1000

// Listing carries the paginated listing of one object-store location from
// one scan to the next. With a request budget (List's maxRequests), a
// listing longer than the budget is continued where it stopped at the next
// scan; until a pass is complete, the previous complete pass (plus what the
// current one found so far) stands for the location, so no application
// seems to vanish because its page was not reached yet. The zero value is
// ready to use; it is not safe for concurrent use.
type Listing struct {
	token    []byte
	partial  map[string]Entry
	last     map[string]Entry
	complete bool // last holds a complete pass
	// Requests is the number of listing requests of the last scan.
	Requests int
	// Complete says the last scan finished a pass over the whole location.
	Complete bool
}

// Entry is one object found by a listing.
type Entry struct {
	Key     string // relative to the listed prefix
	Size    int64
	ModTime time.Time
}

// List lists the objects under the canonical prefix ref (Resolve) and one
// level deeper (a rolling log's parts), by their keys relative to ref, in
// pages. With maxRequests > 0 it stops after that many requests and st
// carries the listing on to the next call (see Listing); st may be nil.
func List(ref string, maxRequests int, st *Listing) (map[string]Entry, error) {
	ctx, cancel := objectCall(context.Background())
	defer cancel()
	b, key, err := objectBucketOf(ctx, ref)
	if err != nil {
		return nil, err
	}
	prefix := ""
	if key != "" {
		prefix = strings.TrimSuffix(key, "/") + "/"
	}
	if st == nil {
		st = &Listing{}
	}
	if st.partial == nil {
		st.partial = map[string]Entry{}
	}
	st.Requests, st.Complete = 0, false
	for {
		if maxRequests > 0 && st.Requests >= maxRequests {
			break // the budget of this scan is spent: go on at the next one
		}
		token := st.token
		if len(token) == 0 {
			token = blob.FirstPageToken
		}
		objs, next, err := b.ListPage(ctx, token, objectListPageSize, s3ListOptions(b, prefix))
		st.Requests++
		if err != nil {
			st.token = nil
			clear(st.partial)
			return nil, objectError(ref, err)
		}
		for _, o := range objs {
			rel := strings.TrimPrefix(listedKey(b, o), prefix)
			if o.IsDir || rel == "" || strings.Count(rel, "/") > 1 {
				continue // deeper than a rolling log's parts: not read, as on disk
			}
			st.partial[rel] = Entry{Key: rel, Size: o.Size, ModTime: o.ModTime}
		}
		st.token = next
		if len(next) == 0 {
			st.last, st.partial, st.complete, st.Complete = st.partial, nil, true, true
			return st.last, nil
		}
	}
	merged := make(map[string]Entry, len(st.last)+len(st.partial))
	for k, v := range st.last {
		merged[k] = v
	}
	for k, v := range st.partial {
		merged[k] = v
	}
	return merged, nil
}

// Find stats the object named by the canonical ref; found is false, with
// no error, when there is none (ref may then be a prefix).
func Find(ref string) (e Entry, found bool, err error) {
	ctx, cancel := objectCall(context.Background())
	defer cancel()
	b, key, err := objectBucketOf(ctx, ref)
	if err != nil || key == "" {
		return Entry{}, false, err
	}
	a, err := objectAttributes(ctx, b, key)
	switch {
	case err == nil:
		return Entry{Key: key, Size: a.size, ModTime: a.mtime}, true, nil
	case gcerrors.Code(err) == gcerrors.NotFound:
		return Entry{}, false, nil
	}
	return Entry{}, false, objectError(ref, err)
}
