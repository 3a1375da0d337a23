package testkit

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// defaultClient bounds every request of a test that brings no client.
var defaultClient = &http.Client{Timeout: 15 * time.Second}

// HTTPDo sends one request with optional headers and body and returns the
// status and body, failing the test when no answer comes. A nil client
// means one with a 15 s timeout.
func HTTPDo(t testing.TB, client *http.Client, method, url string, header http.Header, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if client == nil {
		client = defaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, url, err)
	}
	return resp.StatusCode, b
}

// HTTPGet is HTTPDo for a GET, with the body as text.
func HTTPGet(t testing.TB, client *http.Client, url string, header http.Header) (int, string) {
	t.Helper()
	status, body := HTTPDo(t, client, http.MethodGet, url, header, "")
	return status, string(body)
}

// HTTPGetOK returns the body of a GET, failing the test unless the answer
// is 200.
func HTTPGetOK(t testing.TB, url string) string {
	t.Helper()
	status, body := HTTPGet(t, nil, url, nil)
	if status != http.StatusOK {
		t.Fatalf("GET %s: status %d, want 200:\n%.500s", url, status, body)
	}
	return body
}

// PollGet GETs url every interval until done accepts the body of an answer
// (any status) or timeout passes, and returns the last body read ("" if
// none came). Connection errors count as "not up yet".
func PollGet(url string, timeout, interval time.Duration, done func(body string) bool) string {
	client := &http.Client{Timeout: 2 * time.Second}
	body := ""
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(interval) {
		resp, err := client.Get(url)
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body = string(b)
		if done(body) {
			break
		}
	}
	return body
}
