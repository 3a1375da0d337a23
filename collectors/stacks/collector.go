package stacks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/internal/jvm/attach"
	"github.com/sparkglance/sparkglance/internal/jvm/discovery"
	"github.com/sparkglance/sparkglance/internal/jvm/threaddump"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
	"github.com/sparkglance/sparkglance/internal/profiles"
)

// Options configure a Collector; zero fields take the defaults.
type Options struct {
	Interval time.Duration // --stacks.interval; default 1s
	Window   time.Duration // --stacks.window; default 1m
	// Timeout bounds one dump (default 10s); a target that takes longer
	// is counted as an error and backed off.
	Timeout time.Duration
	// Workers bounds concurrent dumps (default 4): each dump stops one JVM
	// at a safepoint and costs the node a little CPU.
	Workers int
	// MaxBackoff caps the wait before retrying a failing target (default 2m).
	MaxBackoff time.Duration
	Rules      []Rule   // nil: DefaultRules
	SparkUIs   []string // --stacks.spark-ui
	// Listers find the targets; nil: the JVMs of Discovery plus the Spark
	// UIs.
	Listers []Lister
	// Discovery is the node's JVM discovery, shared with the process
	// collector; nil: one of this collector's own, with default options.
	Discovery *discovery.Service
	Attach    *attach.Client
	HTTP      *http.Client

	// Profiling enables the profiles API (--profiling.enabled).
	Profiling        bool
	ProfilingOptions profiles.Options
}

func (o Options) withDefaults() Options {
	if o.Interval <= 0 {
		o.Interval = time.Second
	}
	if o.Window <= 0 {
		o.Window = DefaultWindow
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 2 * time.Minute
	}
	return o
}

// Collector samples JVM stacks in the background (Run) and exports the
// latest snapshot (Update). With Profiling it also serves the profiles API.
type Collector struct {
	opts     Options
	log      *slog.Logger
	sampler  *Sampler
	dumper   Dumper
	rest     *RESTSource
	profiles *profiles.Manager

	listersOnce sync.Once
	listers     []Lister
	// life bounds background work the collector starts itself (the
	// discovery's scans, when no process collector runs them): it ends with Run, never with the request that
	// happened to trigger it.
	life    context.Context
	endLife context.CancelFunc

	mu      sync.Mutex
	targets map[string]*targetState
	lastErr map[string]string // per target key: last error logged

	snap  atomic.Pointer[Snapshot]
	slots chan struct{} // worker pool semaphore
	wg    sync.WaitGroup
}

// targetState is the model of one target.
type targetState struct {
	target    Target
	firstSeen time.Time // its counters' start (created timestamp)
	lastSeen  time.Time
	inFlight  bool
	failures  int // in a row
	nextTry   time.Time
	errors    map[string]uint64
	durations histogram
}

// NewCollector checks the rules and builds a collector.
func NewCollector(opts Options, logger *slog.Logger) (*Collector, error) {
	opts = opts.withDefaults()
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	rules := opts.Rules
	if rules == nil {
		rules = DefaultRules()
	}
	cl, err := NewClassifier(rules)
	if err != nil {
		return nil, err
	}
	c := &Collector{opts: opts, log: logger, sampler: NewSampler(cl, opts.Window),
		targets: map[string]*targetState{}, lastErr: map[string]string{},
		slots: make(chan struct{}, opts.Workers)}
	c.life, c.endLife = context.WithCancel(context.Background())
	if len(opts.SparkUIs) > 0 {
		c.rest = &RESTSource{UIs: opts.SparkUIs, Client: opts.HTTP}
	}
	// Any UI target can be dumped, whichever Lister found it.
	c.dumper = RoutingDumper{Attach: AttachDumper{Client: opts.Attach}, REST: &RESTSource{Client: opts.HTTP}}
	if opts.Profiling {
		c.profiles = profiles.NewManager(profileSource{c: c, resolved: &sync.Map{}}, opts.ProfilingOptions, logger.With("api", "profiles"))
	}
	return c, nil
}

// Profiles returns the profiles manager, nil unless Options.Profiling.
func (c *Collector) Profiles() *profiles.Manager { return c.profiles }

// Routes implements exporter.RouteProvider: the profiles API when enabled.
func (c *Collector) Routes() []exporter.Route {
	if c.profiles == nil {
		return nil
	}
	h := c.profiles.Handler()
	return []exporter.Route{
		{Pattern: profiles.CollectionPath, Handler: h, Text: "Profiles",
			Description: "JVM flame graphs on demand: POST a target, download pprof, folded or SVG", Privileged: "--profiling.enabled"},
		{Pattern: profiles.ItemPrefix, Handler: h, Privileged: "--profiling.enabled"},
	}
}

// resolveListers picks the discovery once Run starts, when every factory
// has run and the process collector (if enabled) has taken the discovery over.
func (c *Collector) resolveListers(ctx context.Context) []Lister {
	c.listersOnce.Do(func() {
		if c.opts.Listers != nil {
			c.listers = c.opts.Listers
			return
		}
		d := c.opts.Discovery
		if d == nil {
			d = discovery.NewService()
		}
		runs := !d.Sampled()
		scanner, err := d.Scanner(c.log)
		switch {
		case err != nil:
			c.log.Error("process discovery unavailable; only --stacks.spark-ui targets will be sampled", "err", err)
			scanner = nil
		case runs:
			c.wg.Go(func() { scanner.Run(c.life) })
			c.log.Info("process collector off: the stack sampler runs the node's one JVM discovery itself")
		default:
			c.log.Info("stack sampler shares the process collector's JVM discovery")
		}
		if scanner != nil {
			c.listers = append(c.listers, ProcessLister(scanner))
		}
		if c.rest != nil {
			c.listers = append(c.listers, c.rest)
		}
	})
	return c.listers
}

// Run samples every Interval until ctx is done, then waits for dumps in
// flight and stops running profiles.
func (c *Collector) Run(ctx context.Context) error {
	stop := context.AfterFunc(ctx, c.endLife)
	defer func() {
		stop()
		c.endLife()
		c.wg.Wait()
		if c.profiles != nil {
			c.profiles.Close()
		}
	}()
	c.resolveListers(ctx)
	tick := time.NewTicker(c.opts.Interval)
	defer tick.Stop()
	rotate := 0
	for {
		c.Tick(ctx, time.Now(), rotate)
		rotate++
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// Tick lists the targets and starts a dump of every due one for which a
// worker is free; it does not wait for the dumps. rotate shifts the start
// so that, when workers are short, every target gets its turn.
func (c *Collector) Tick(ctx context.Context, now time.Time, rotate int) {
	targets := c.list(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range targets {
		st := c.targets[t.Key()]
		if st == nil {
			st = &targetState{errors: map[string]uint64{}, firstSeen: now}
			c.targets[t.Key()] = st
		}
		st.target, st.lastSeen = t, now
	}
	c.forgetVanished(now)
	for i := range targets {
		t := targets[(i+rotate)%len(targets)]
		st := c.targets[t.Key()]
		if st.inFlight || now.Before(st.nextTry) {
			continue
		}
		select {
		case c.slots <- struct{}{}:
		default:
			c.publishLocked(now)
			return // every worker busy: the rest wait for the next tick
		}
		st.inFlight = true
		c.wg.Go(func() {
			defer func() { <-c.slots }()
			c.sample(ctx, t)
		})
	}
	c.publishLocked(now)
}

func (c *Collector) list(ctx context.Context) []Target {
	var out []Target
	seen := map[string]bool{}
	for _, l := range c.resolveListers(ctx) {
		ts, err := l.Targets(ctx)
		if err != nil {
			c.logOnce("discovery", "listing targets failed", err)
		}
		for _, t := range ts {
			if !seen[t.Key()] {
				seen[t.Key()] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// forgetVanished drops targets unseen for a whole window: their series end.
func (c *Collector) forgetVanished(now time.Time) {
	for key, st := range c.targets {
		if !st.inFlight && now.Sub(st.lastSeen) > c.opts.Window {
			delete(c.targets, key)
			delete(c.lastErr, key)
			c.sampler.Forget(key)
		}
	}
}

// sample takes and records one dump of t.
func (c *Collector) sample(ctx context.Context, t Target) {
	dctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	start := time.Now()
	d, err := c.dumper.Dump(dctx, t)
	took := time.Since(start)
	cancel()
	now := time.Now()
	key := t.Key()
	if err == nil {
		c.sampler.Observe(key, now, d)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.targets[key]
	if st == nil { // forgotten meanwhile
		return
	}
	st.inFlight = false
	switch {
	case err == nil:
		st.failures, st.nextTry = 0, time.Time{}
		st.durations.observe(took.Seconds())
		delete(c.lastErr, key)
	case ctx.Err() != nil:
		// Shutting down: not the target's fault.
	default:
		reason := ErrorReason(err)
		st.errors[reason]++
		st.failures++
		st.nextTry = now.Add(c.backoff(st.failures))
		if msg := reason + ": " + err.Error(); c.lastErr[key] != msg {
			c.lastErr[key] = msg
			c.log.Warn("thread dump failed", "target", t.String(), "reason", reason, "err", err,
				"retry_in", st.nextTry.Sub(now).Round(time.Millisecond))
		}
	}
	c.publishLocked(now)
}

// backoff doubles the wait from one interval per consecutive failure, up
// to MaxBackoff.
func (c *Collector) backoff(failures int) time.Duration {
	d := c.opts.Interval
	for i := 1; i < failures && d < c.opts.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, c.opts.MaxBackoff)
}

func (c *Collector) logOnce(key, msg string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := err.Error(); c.lastErr[key] != s {
		c.lastErr[key] = s
		c.log.Warn(msg, "err", err)
	}
}

// Ready reports an error until the first tick has published a snapshot.
func (c *Collector) Ready() error {
	if c.snap.Load() == nil {
		return errors.New("stacks: no sampling round yet")
	}
	return nil
}

// profileSource lets the profiles API use the collector's targets and
// dumpers. It remembers what it resolved, since a profile outlives changes
// of the target list.
type profileSource struct {
	c        *Collector
	resolved *sync.Map // key → Target
}

func (s profileSource) Resolve(ctx context.Context, req profiles.Request) (profiles.Target, error) {
	for _, t := range s.c.list(ctx) {
		if (req.PID > 0 && t.PID == req.PID) ||
			(req.PID == 0 && t.AppID == req.AppID && t.ExecutorID == req.ExecutorID) {
			s.resolved.Store(t.Key(), t)
			return profiles.Target{Key: t.Key(), AppID: t.AppID, ExecutorID: t.ExecutorID, Framework: t.Framework, PID: t.PID}, nil
		}
	}
	if req.PID > 0 {
		return profiles.Target{}, fmt.Errorf("%w: pid %d is not a discovered Spark or Flink JVM", profiles.ErrUnknownTarget, req.PID)
	}
	return profiles.Target{}, fmt.Errorf("%w: no executor %q of application %q found", profiles.ErrUnknownTarget, req.ExecutorID, req.AppID)
}

func (s profileSource) Dump(ctx context.Context, pt profiles.Target) (*threaddump.Dump, error) {
	t, ok := s.resolved.Load(pt.Key)
	if !ok {
		return nil, &SampleError{Reason: string(sm.StacksErrorNoSource), Err: errors.New("profile target " + pt.Key + " was never resolved")}
	}
	return s.c.dumper.Dump(ctx, t.(Target))
}

func (s profileSource) TaskThread(name string) bool {
	_, ok := TaskThreadOf(name)
	return ok
}
