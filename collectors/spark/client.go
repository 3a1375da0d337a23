package spark

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
)

// client reads Spark endpoints: no redirects followed (a 3xx is usually a
// login page), bodies capped at maxBody, HTML recognised.
type client struct {
	http    *http.Client
	maxBody int64
}

func newClient(maxBody int64) *client {
	return &client{
		http: &http.Client{
			Transport:     http.DefaultTransport.(*http.Transport).Clone(),
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		maxBody: maxBody,
	}
}

// get returns the body of u, or a *fault saying why not.
func (c *client) get(ctx context.Context, u *url.URL) ([]byte, error) {
	shown := displayURL(u)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, &fault{reason: reasonNetwork, url: shown, err: err}
	}
	req.Header.Set("Accept", "application/json, text/plain;q=0.9")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, &fault{reason: transportReason(err), url: shown, err: unwrapURLError(err)}
	}
	defer resp.Body.Close()
	if f := statusFault(resp, shown); f != nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096)) // lets the connection be reused
		return nil, f
	}
	if resp.ContentLength > c.maxBody {
		return nil, &fault{reason: reasonTooLarge, url: shown,
			err: fmt.Errorf("Content-Length %d exceeds the limit of %d bytes", resp.ContentLength, c.maxBody)}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBody+1))
	if err != nil {
		return nil, &fault{reason: transportReason(err), url: shown, err: fmt.Errorf("reading body after %d bytes: %w", len(body), err)}
	}
	if int64(len(body)) > c.maxBody {
		return nil, &fault{reason: reasonTooLarge, url: shown, err: fmt.Errorf("body exceeds the limit of %d bytes", c.maxBody)}
	}
	if isHTML(resp.Header.Get("Content-Type"), body) {
		return nil, &fault{reason: reasonHTML, url: shown,
			err: fmt.Errorf("got an HTML page (Content-Type %q), not Spark JSON or text", resp.Header.Get("Content-Type"))}
	}
	return body, nil
}

func statusFault(resp *http.Response, shown string) *fault {
	code := resp.StatusCode
	switch {
	case code >= 200 && code < 300:
		return nil
	case code >= 300 && code < 400:
		where := "nowhere"
		if loc, err := resp.Location(); err == nil {
			where = displayURL(loc)
		}
		return &fault{reason: reasonRedirect, url: shown, err: fmt.Errorf("HTTP %d redirect to %s (login page?); redirects are not followed", code, where)}
	case code == http.StatusNotFound:
		return &fault{reason: reasonNotFound, url: shown, err: errors.New("HTTP 404: endpoint missing (Spark too old, or not a Spark UI)")}
	}
	return &fault{reason: reasonHTTPStatus, url: shown, err: errors.New("HTTP " + strconv.Itoa(code))}
}

// isHTML trusts the Content-Type, and otherwise sniffs a leading '<'
// (neither JSON nor Prometheus text starts with one).
func isHTML(contentType string, body []byte) bool {
	if mt, _, err := mime.ParseMediaType(contentType); err == nil && (mt == "text/html" || mt == "application/xhtml+xml") {
		return true
	}
	trimmed := bytes.TrimLeft(body, " \t\r\n\ufeff")
	return len(trimmed) > 0 && trimmed[0] == '<'
}

// displayURL drops credentials and the query string, for logs and labels.
func displayURL(u *url.URL) string {
	c := *u
	c.User = nil
	c.RawQuery = ""
	c.ForceQuery = false
	c.Fragment = ""
	return c.String()
}

// unwrapURLError removes url.Error's "Get <url>:" prefix (the fault names
// the URL already, without query string).
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
