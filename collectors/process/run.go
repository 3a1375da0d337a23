package process

import (
	"context"
	"time"
)

// Run discovers every Options.DiscoveryInterval and samples every interval
// (Options.Interval when interval ≤ 0) until ctx is done. It discovers and
// samples once at once, so the first snapshot exists right away.
func (a *Agent) Run(ctx context.Context, interval time.Duration) error {
	if interval <= 0 {
		interval = a.opts.Interval
	}
	discover := func(now time.Time) {
		if err := a.Discover(now); err != nil {
			a.log.Warn("process discovery failed", "err", err)
		}
	}
	sample := func(now time.Time) {
		// Sample logs its own problems, once per kind.
		_ = a.Sample(now)
	}
	now := time.Now()
	discover(now)
	sample(now)
	discoverTick := time.NewTicker(a.opts.DiscoveryInterval)
	defer discoverTick.Stop()
	sampleTick := time.NewTicker(interval)
	defer sampleTick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-discoverTick.C:
			discover(time.Now())
		case <-sampleTick.C:
			sample(time.Now())
		}
	}
}
