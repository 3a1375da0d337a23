package spark

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"
)

// reader reads one target: its REST API (unless metrics-only), then its
// metrics endpoint.
type reader struct {
	client      *client
	maxApps     int
	metricsPath string        // relative to a UI target's base
	timeout     time.Duration // per target, when the caller sets no deadline
	logger      *slog.Logger
}

// targetResult is one read of one target. On a fault it carries no data.
type targetResult struct {
	name     string
	fault    *fault
	duration time.Duration
	apps     []appState
	samples  []sample
}

// read reads t within ctx, keeping a margin before ctx's deadline so that
// a slow target fails on its own while the scrape still has time to answer.
func (r *reader) read(ctx context.Context, t target) targetResult {
	ctx, cancel := r.targetContext(ctx)
	defer cancel()
	start := time.Now()
	res := targetResult{name: t.name()}
	err := r.readInto(ctx, t, &res)
	res.duration = time.Since(start)
	if err != nil {
		var f *fault
		if !errors.As(err, &f) {
			f = &fault{reason: reasonNetwork, url: res.name, err: err}
		}
		res.fault, res.apps, res.samples = f, nil, nil
	}
	return res
}

func (r *reader) targetContext(ctx context.Context) (context.Context, context.CancelFunc) {
	timeout := r.timeout
	if dl, ok := ctx.Deadline(); ok {
		remaining := time.Until(dl)
		timeout = min(timeout, remaining-max(remaining/10, 20*time.Millisecond))
	}
	return context.WithTimeout(ctx, timeout)
}

func (r *reader) readInto(ctx context.Context, t target, res *targetResult) error {
	metricsURL := t.base
	var appIDs []string
	if !t.metricsOnly {
		apps, err := r.readREST(ctx, t.base)
		if err != nil {
			return err
		}
		res.apps = apps
		for _, a := range apps {
			appIDs = append(appIDs, a.app.ID)
		}
		metricsURL = endpoint(t.base, r.metricsPath, nil)
	}
	body, err := r.client.get(ctx, metricsURL)
	if err != nil {
		var f *fault
		if !t.metricsOnly && errors.As(err, &f) && f.reason == reasonNotFound {
			// A History Server has no metrics servlet: its REST API is enough.
			r.logger.Debug("no metrics endpoint on target; REST API only", "url", displayURL(metricsURL))
			return nil
		}
		return err
	}
	if strings.HasSuffix(strings.TrimSuffix(metricsURL.Path, "/"), "/prometheus") {
		res.samples, err = parseServletText(body, appIDs)
	} else {
		res.samples, err = parseMetricsJSON(body, r.logger)
	}
	if err != nil {
		return &fault{reason: reasonInvalidBody, url: displayURL(metricsURL), err: err}
	}
	return nil
}
