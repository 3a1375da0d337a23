package objstore

import (
	"net/http"
	"sort"
	"strings"
	"sync"
)

// Object-store request operations and results, the labels of
// sparkglance_eventlog_object_requests_total.
const (
	OpList  = "list"  // a listing page
	OpStat  = "stat"  // an object's size, time and ETag
	OpGet   = "get"   // a (ranged) read
	OpOther = "other" // anything else the SDKs send (token refresh, …)

	ResultOK        = "ok"
	ResultNotFound  = "not_found"
	ResultDenied    = "denied"    // 401, 403
	ResultThrottled = "throttled" // 429, 503 (S3's SlowDown): backed off by the SDK's retryer
	ResultError     = "error"     // other failures, network errors included
)

// RequestCount is the number of requests of one op with one result.
type RequestCount struct {
	Op, Result string
	Count      int64
}

var objectRequests = struct {
	sync.Mutex
	n map[[2]string]int64
}{n: map[[2]string]int64{}}

// Requests returns every request sent to object stores by this
// process so far, retries included, sorted by op and result.
func Requests() []RequestCount {
	objectRequests.Lock()
	defer objectRequests.Unlock()
	out := make([]RequestCount, 0, len(objectRequests.n))
	for k, v := range objectRequests.n {
		out = append(out, RequestCount{Op: k[0], Result: k[1], Count: v})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Op != out[j].Op {
			return out[i].Op < out[j].Op
		}
		return out[i].Result < out[j].Result
	})
	return out
}

func countObjectRequest(op, result string) {
	objectRequests.Lock()
	objectRequests.n[[2]string{op, result}]++
	objectRequests.Unlock()
}

// objectTransport counts every HTTP request the store SDKs send, below
// their retry layer, so a throttled attempt that a retry then fixed is
// still counted as throttled.
type objectTransport struct{ base http.RoundTripper }

func (t *objectTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	op := requestOp(req)
	resp, err := t.base.RoundTrip(req)
	countObjectRequest(op, requestResult(resp, err))
	return resp, err
}

// requestOp tells the operation from the request as S3, GCS (JSON API)
// and Azure Blob shape it.
func requestOp(req *http.Request) string {
	q := req.URL.Query()
	switch {
	case req.Method == http.MethodHead:
		return OpStat
	case req.Method != http.MethodGet:
		return OpOther
	case q.Has("list-type") || q.Get("comp") == "list" || q.Has("delimiter") || q.Has("prefix") || isGCSListPath(req.URL.EscapedPath()):
		return OpList
	case q.Get("alt") == "media" || req.Header.Get("Range") != "" || req.Header.Get("x-ms-range") != "":
		return OpGet
	case strings.Contains(req.URL.Path, "/storage/v1/b/"):
		return OpStat // GCS object metadata
	default:
		return OpGet
	}
}

// isGCSListPath tells GCS's objects.list path, .../storage/v1/b/<bucket>/o,
// from an object's, .../b/<bucket>/o/<escaped name>, which may end in "/o"
// too once unescaped.
func isGCSListPath(escaped string) bool {
	_, rest, ok := strings.Cut(escaped, "/storage/v1/b/")
	if !ok {
		return false
	}
	_, tail, ok := strings.Cut(rest, "/")
	return ok && tail == "o"
}

func requestResult(resp *http.Response, err error) string {
	if err != nil || resp == nil {
		return ResultError
	}
	switch c := resp.StatusCode; {
	case c < 400:
		return ResultOK
	case c == http.StatusNotFound:
		return ResultNotFound
	case c == http.StatusUnauthorized || c == http.StatusForbidden:
		return ResultDenied
	case c == http.StatusTooManyRequests || c == http.StatusServiceUnavailable:
		return ResultThrottled
	case c == http.StatusRequestedRangeNotSatisfiable:
		return ResultOK // a read at the end of a live object: nothing new
	default:
		return ResultError
	}
}
