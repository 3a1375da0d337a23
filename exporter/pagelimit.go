package exporter

import (
	"net/http"
	"time"
)

// pageWait is how long a request to a collector's pages may wait for a
// free place before it is answered 503.
const pageWait = 5 * time.Second

// pageLimiter bounds the requests served at once by the collectors' own
// routes (the live pages and their JSON, the profiles API), apart from the
// scrapes' --web.max-requests: hundreds of browsers polling the live pages
// would otherwise take every core and connection from /metrics. Requests
// past the limit wait (at most waiting of them, each at most pageWait),
// the rest are answered 503 with Retry-After at once, so pages never hold
// more than running+waiting connections.
type pageLimiter struct {
	running chan struct{}
	waiting chan struct{}
}

func newPageLimiter(n int) *pageLimiter {
	return &pageLimiter{running: make(chan struct{}, n), waiting: make(chan struct{}, 4*n)}
}

func (p *pageLimiter) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !p.acquire(r) {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "too many page requests at once (--web.max-page-requests); retry shortly", http.StatusServiceUnavailable)
			return
		}
		defer func() { <-p.running }()
		next.ServeHTTP(w, r)
	})
}

func (p *pageLimiter) acquire(r *http.Request) bool {
	select {
	case p.running <- struct{}{}:
		return true
	default:
	}
	select {
	case p.waiting <- struct{}{}:
	default:
		return false
	}
	defer func() { <-p.waiting }()
	t := time.NewTimer(pageWait)
	defer t.Stop()
	select {
	case p.running <- struct{}{}:
		return true
	case <-t.C:
	case <-r.Context().Done():
	}
	return false
}
