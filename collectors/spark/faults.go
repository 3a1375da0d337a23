package spark

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"
)

// Reasons a target read fails: the values of spark_target_scrape_errors_total's
// reason label. Every reason is exported at 0 for every target, so that
// rate() works from the first failure on.
const (
	reasonTimeout     = "timeout"      // deadline passed (connect, headers or body)
	reasonRefused     = "refused"      // connection refused
	reasonNetwork     = "network"      // DNS, reset, TLS and other transport errors
	reasonRedirect    = "redirect"     // 3xx, typically to a login page
	reasonNotFound    = "not_found"    // 404: endpoint missing (old Spark, wrong URL)
	reasonHTTPStatus  = "http_status"  // any other non-2xx status
	reasonHTML        = "html"         // an HTML page instead of JSON or text
	reasonInvalidBody = "invalid_body" // truncated or malformed JSON or text
	reasonTooLarge    = "too_large"    // body over --spark.max-body-bytes
)

var allReasons = []string{
	reasonTimeout, reasonRefused, reasonNetwork, reasonRedirect, reasonNotFound,
	reasonHTTPStatus, reasonHTML, reasonInvalidBody, reasonTooLarge,
}

// fault is a failed read of one endpoint of a target, with its reason.
type fault struct {
	reason string
	url    string // without query string or credentials
	err    error
}

func (f *fault) Error() string { return fmt.Sprintf("%s: %s: %v", f.url, f.reason, f.err) }
func (f *fault) Unwrap() error { return f.err }

// transportReason classifies an error from http.Client.Do or a body read.
func transportReason(err error) string {
	var netErr net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return reasonTimeout
	case errors.Is(err, syscall.ECONNREFUSED):
		return reasonRefused
	}
	return reasonNetwork
}
