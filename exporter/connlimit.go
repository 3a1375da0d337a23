package exporter

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// connLimiter bounds the open connections of one listener, as
// netutil.LimitListener does, but a connection idle between requests does
// not hold its place: when the limit is reached the longest-idle one is
// closed for the newcomer. Otherwise --web.max-connections kept-alive
// connections, each after one request (even a 401), would lock every scrape
// out until their idle timeout. Past the limit with no idle connection,
// newcomers wait in the kernel's backlog.
type connLimiter struct {
	max int

	mu   sync.Mutex
	open int
	// idle are the server's connections between requests, with the time
	// they became idle; evicting are those closed for a newcomer.
	idle     map[net.Conn]time.Time
	evicting map[net.Conn]bool
	freed    chan struct{} // a token per closed connection, never blocking
}

func newConnLimiter(max int) *connLimiter {
	return &connLimiter{max: max, idle: map[net.Conn]time.Time{}, evicting: map[net.Conn]bool{}, freed: make(chan struct{}, 1)}
}

// connState is the http.Server's ConnState hook: it tracks which
// connections sit idle.
func (c *connLimiter) connState(conn net.Conn, state http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch state {
	case http.StateIdle:
		c.idle[conn] = time.Now()
	case http.StateClosed, http.StateHijacked:
		delete(c.evicting, conn)
		fallthrough
	default:
		delete(c.idle, conn)
	}
}

// acquire takes a place for the next connection, closing the longest-idle
// connection if none is free, and waiting for a close if none is idle.
func (c *connLimiter) acquire(done <-chan struct{}) bool {
	for {
		c.mu.Lock()
		if c.open < c.max {
			c.open++
			c.mu.Unlock()
			return true
		}
		var oldest net.Conn
		var since time.Time
		for conn, t := range c.idle {
			if oldest == nil || t.Before(since) {
				oldest, since = conn, t
			}
		}
		if oldest != nil {
			delete(c.idle, oldest)
			c.evicting[oldest] = true
		}
		c.mu.Unlock()
		if oldest != nil {
			_ = oldest.Close() // its release frees the place
		}
		select {
		case <-c.freed:
		case <-done:
			return false
		}
	}
}

func (c *connLimiter) release() {
	c.mu.Lock()
	c.open--
	c.mu.Unlock()
	select {
	case c.freed <- struct{}{}:
	default:
	}
}

// listener wraps l so that every accepted connection holds a place until
// it is closed.
func (c *connLimiter) listener(l net.Listener) net.Listener {
	return &limitedListener{Listener: l, limiter: c, done: make(chan struct{})}
}

type limitedListener struct {
	net.Listener
	limiter   *connLimiter
	done      chan struct{}
	closeOnce sync.Once
}

func (l *limitedListener) Accept() (net.Conn, error) {
	if !l.limiter.acquire(l.done) {
		return nil, net.ErrClosed
	}
	conn, err := l.Listener.Accept()
	if err != nil {
		l.limiter.release()
		return nil, err
	}
	return &limitedConn{Conn: conn, release: l.limiter.release}, nil
}

func (l *limitedListener) Close() error {
	err := l.Listener.Close()
	l.closeOnce.Do(func() { close(l.done) })
	return err
}

type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
