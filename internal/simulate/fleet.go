package simulate

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"
)

// FleetConfig shapes a directory of many applications, as one History
// Server bucket of a platform with many clusters holds: mostly small
// applications, some medium, a few huge.
type FleetConfig struct {
	Finished, Live int // applications that have ended, and still-running ones (.inprogress, no end)
	// Big of the finished applications have BigExecutors executors and
	// about BigTasks tasks; Medium have 16 to 64 executors and a few
	// thousand tasks; the rest have 1 to 4 executors and a few dozen.
	Big, Medium  int
	BigExecutors int
	BigTasks     int
	// Now anchors the applications' times: finished ones started within
	// the 30 minutes before it, live ones within the 10 minutes before.
	Now  time.Time
	Seed uint64
	// Workers writing at once (0: GOMAXPROCS).
	Workers int
}

// DefaultFleetConfig is the scale test's fleet: 10,000 finished
// applications, 3 of them with 500 executors and 100,000 tasks, and 200
// live ones.
func DefaultFleetConfig(now time.Time) FleetConfig {
	return FleetConfig{Finished: 10_000, Live: 200, Big: 3, Medium: 100, BigExecutors: 500, BigTasks: 100_000, Now: now, Seed: 1}
}

// FleetApp is one application of a generated fleet.
type FleetApp struct {
	ID, Path string
	Live     bool
	Big      bool
	Bytes    int64 // as stored (zstd)
}

// scenarioStages turns a task total into tasks per stage: a pass of the
// scenario runs 7 stages of TasksPerStage tasks (and a single-task one).
const scenarioStages = 7

// fleetApps plans the fleet: ids, names and shapes.
func fleetApps(c FleetConfig) []Config {
	rng := rand.New(rand.NewPCG(c.Seed, c.Seed^0xf1ee7))
	out := make([]Config, 0, c.Finished+c.Live)
	for i := range c.Finished + c.Live {
		cfg := DefaultConfig()
		cfg.Seed = c.Seed + uint64(i)
		cfg.Live = i >= c.Finished
		// Two id styles: YARN clusters and standalone/Kubernetes ones.
		if i%2 == 0 {
			cfg.AppID = fmt.Sprintf("application_%d_%04d", 1764547200000+int64(i/10000), i%10000)
		} else {
			cfg.AppID = fmt.Sprintf("app-20261201%06d-%04d", i/2, i%10000)
		}
		cfg.AppName = fmt.Sprintf("fleet job %d", i%500)
		switch {
		case i < c.Big:
			cfg.Executors, cfg.CoresPerExecutor = c.BigExecutors, 4
			cfg.TasksPerStage = max(1, c.BigTasks/scenarioStages)
		case i < c.Big+c.Medium:
			cfg.Executors, cfg.CoresPerExecutor = 16+rng.IntN(49), 4
			cfg.TasksPerStage = 64 + rng.IntN(449)
		default:
			cfg.Executors, cfg.CoresPerExecutor = 1+rng.IntN(4), 1+rng.IntN(2)
			cfg.TasksPerStage = 1 + rng.IntN(4)
		}
		if cfg.Live {
			cfg.Start = c.Now.Add(-time.Duration(rng.IntN(600)) * time.Second)
		} else {
			cfg.Start = c.Now.Add(-time.Duration(600+rng.IntN(1200)) * time.Second)
		}
		out = append(out, cfg)
	}
	return out
}

// GenerateFleet writes the fleet into dir, one zstd log per application
// (<id>.zstd, <id>.zstd.inprogress for live ones), on all cores, and
// returns the applications in the order planned.
func GenerateFleet(ctx context.Context, dir string, c FleetConfig) ([]FleetApp, error) {
	if c.Big+c.Medium > c.Finished || c.Finished < 0 || c.Live < 0 {
		return nil, fmt.Errorf("simulate: fleet of %d finished applications cannot hold %d big and %d medium ones", c.Finished, c.Big, c.Medium)
	}
	plans := fleetApps(c)
	apps := make([]FleetApp, len(plans))
	workers := c.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	next := make(chan int)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
			if err != nil {
				errs[w] = err
				for range next {
				}
				return
			}
			defer enc.Close()
			for i := range next {
				if errs[w] != nil {
					continue
				}
				apps[i], errs[w] = writeFleetApp(dir, plans[i], enc, i < c.Big)
			}
		})
	}
feed:
	for i := range plans {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := errors.Join(append(errs, ctx.Err())...); err != nil {
		return nil, err
	}
	return apps, nil
}

// writeFleetApp writes one application's zstd log.
func writeFleetApp(dir string, cfg Config, enc *zstd.Encoder, big bool) (FleetApp, error) {
	name := cfg.AppID + ".zstd"
	if cfg.Live {
		name += ".inprogress"
	}
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		return FleetApp{}, err
	}
	enc.Reset(f)
	bw := bufio.NewWriterSize(enc, 1<<16)
	_, err = Generate(cfg, writerSink{bw})
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = enc.Close()
	}
	var size int64
	if info, serr := f.Stat(); serr == nil {
		size = info.Size()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return FleetApp{}, fmt.Errorf("simulate: %s: %w", path, err)
	}
	return FleetApp{ID: cfg.AppID, Path: path, Live: cfg.Live, Big: big, Bytes: size}, nil
}
