package testkit

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// HTTPDo sends the method, headers and body it is given and returns what
// the server answered, whatever the status.
func TestHTTPDoSendsAndReturns(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.WriteHeader(http.StatusTeapot)
		_, _ = io.WriteString(w, r.Method+" "+r.Header.Get("X-Test")+" "+string(b))
	}))
	defer srv.Close()
	status, body := HTTPDo(t, nil, http.MethodPost, srv.URL, http.Header{"X-Test": {"h"}}, "payload")
	if status != http.StatusTeapot || string(body) != "POST h payload" {
		t.Errorf("got %d %q, want 418 \"POST h payload\"", status, body)
	}
}

// ServeJSON answers its routes as JSON and anything else with 404;
// HTTPGetOK returns a 200's body.
func TestServeJSONAndHTTPGetOK(t *testing.T) {
	srv := ServeJSON(t, map[string][]byte{"/a": []byte(`{"x":1}`)})
	if got := HTTPGetOK(t, srv.URL+"/a?ignored=1"); got != `{"x":1}` {
		t.Errorf("/a: %q", got)
	}
	if status, _ := HTTPGet(t, nil, srv.URL+"/b", nil); status != http.StatusNotFound {
		t.Errorf("/b: status %d, want 404", status)
	}
}

// PollGet keeps asking until the body satisfies done, and gives up on a
// server that never answers.
func TestPollGet(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, strings.Repeat("x", int(n.Add(1))))
	}))
	defer srv.Close()
	if got := PollGet(srv.URL, 5*time.Second, time.Millisecond, func(b string) bool { return len(b) == 3 }); got != "xxx" {
		t.Errorf("PollGet stopped at %q, want xxx", got)
	}
	addr := FreeLoopbackAddr(t)
	if got := PollGet("http://"+addr, 100*time.Millisecond, 10*time.Millisecond, func(string) bool { return true }); got != "" {
		t.Errorf("nothing listens on %s, yet PollGet read %q", addr, got)
	}
}

// The address is on loopback and can be bound again.
func TestFreeLoopbackAddr(t *testing.T) {
	addr := FreeLoopbackAddr(t)
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("address %s not on 127.0.0.1", addr)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("binding %s again: %v", addr, err)
	}
	l.Close()
}
