package eventlog

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sparkglance/sparkglance/internal/sparklog"
	"github.com/sparkglance/sparkglance/internal/sparklog/objstore"
)

// objectDir is an object-store location between scans: its paginated
// listing (continued where the request budget stopped it) and the logs
// of its last listing.
type objectDir struct {
	listing objstore.Listing
	last    time.Time
	logs    []sparklog.Log
	scanned bool
}

// discover lists d: a local directory at every scan (notifications make
// that cheap), an object-store location once per --eventlog.scan-interval
// within its request budget. due is false when d was not listed now; logs
// are then those of its last listing, which stand until the next one.
func (w *Watcher) discover(d string, now time.Time) (logs []sparklog.Log, due bool, err error) {
	if !objstore.IsURL(d) {
		logs, err := sparklog.DiscoverWith(d, sparklog.DiscoverOptions{FollowExternalLinks: w.cfg.FollowExternalLinks})
		return logs, true, err
	}
	w.mu.Lock()
	od := w.objects[d]
	if od == nil {
		od = &objectDir{}
		w.objects[d] = od
	}
	w.mu.Unlock()
	if od.scanned && now.Sub(od.last) < w.cfg.ScanInterval {
		return od.logs, false, nil
	}
	logs, err = sparklog.DiscoverWith(d, sparklog.DiscoverOptions{
		MaxObjectRequests: w.cfg.ObjectRequestsPerScan,
		ObjectListing:     &od.listing,
	})
	od.last, od.scanned = now, true
	if errors.Is(err, objstore.ErrThrottled) {
		// Backed off and counted already; the applications stay, and the
		// next scan tries again.
		w.log.Debug("object store throttled the listing; trying again at the next scan", "dir", d, "err", err)
		return od.logs, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	if !od.listing.Complete {
		w.log.Debug("object-store listing goes on at the next scan (--eventlog.object-requests-per-scan reached)",
			"dir", d, "requests", od.listing.Requests)
	}
	od.logs = logs
	return logs, true, nil
}

// pollInterval is how often a log is looked at without a notification:
// a log in an object store once per scan interval, since every look is a
// request.
func (w *Watcher) pollInterval(key string) time.Duration {
	if objstore.IsURL(key) {
		return w.cfg.ScanInterval
	}
	return w.cfg.PollInterval
}

// listedSize is an object's size as its listing gave it.
func listedSize(f sparklog.LogFile) (int64, bool) {
	if !objstore.IsURL(f.Path) || f.Member != "" {
		return 0, false
	}
	return f.Size, true
}

// objectRequestMetrics are the process's object-store requests so far.
func objectRequestMetrics() []prometheus.Metric {
	var out []prometheus.Metric
	for _, c := range objstore.Requests() {
		out = append(out, prometheus.MustNewConstMetric(selfObjectRequests.Desc(), counter, float64(c.Count), c.Op, c.Result))
	}
	return out
}
