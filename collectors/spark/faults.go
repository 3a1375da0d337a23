package spark

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"

	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// Reasons a target read fails: the values of spark_target_scrape_errors_total's
// reason label, declared in the metric schema. Every reason is exported at
// 0 for every target, so that rate() works from the first failure on.
const (
	reasonTimeout     = string(sm.TargetErrorTimeout)
	reasonRefused     = string(sm.TargetErrorRefused)
	reasonNetwork     = string(sm.TargetErrorNetwork)
	reasonRedirect    = string(sm.TargetErrorRedirect)
	reasonNotFound    = string(sm.TargetErrorNotFound)
	reasonHTTPStatus  = string(sm.TargetErrorHTTPStatus)
	reasonHTML        = string(sm.TargetErrorHTML)
	reasonInvalidBody = string(sm.TargetErrorInvalidBody)
	reasonTooLarge    = string(sm.TargetErrorTooLarge)
)

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
