package profiles

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/sparkglance/sparkglance/internal/jvm/threaddump"
)

// Defaults of the --profiling.* flags and request fields.
const (
	DefaultMaxDuration = 300 * time.Second
	DefaultHistorySize = 10
	DefaultIntervalMS  = 50
	MinIntervalMS      = 10
	MaxIntervalMS      = 60_000
	// dumpTimeout bounds one dump of a profile.
	dumpTimeout = 10 * time.Second
	// maxConsecutiveErrors ends a profile whose target stopped answering.
	maxConsecutiveErrors = 3
)

// Options configure a Manager; zero fields take the defaults.
type Options struct {
	MaxDuration time.Duration // --profiling.max-duration
	HistorySize int           // --profiling.history-size
}

// Target is a resolved JVM. Key identifies it for the one-profile-per-
// target rule.
type Target struct {
	Key        string
	AppID      string
	ExecutorID string
	Framework  string
	PID        int
}

// Request names a target: AppID and ExecutorID, or PID.
type Request struct {
	AppID      string
	ExecutorID string
	PID        int
}

// ErrUnknownTarget is returned by a Source that cannot find the target.
var ErrUnknownTarget = errors.New("unknown target")

// Source resolves targets and dumps them; the stack collector provides it.
type Source interface {
	Resolve(ctx context.Context, req Request) (Target, error)
	Dump(ctx context.Context, t Target) (*threaddump.Dump, error)
	// TaskThread reports whether a thread name is a Spark/Flink task thread.
	TaskThread(name string) bool
}

// Errors of Create, mapped to HTTP statuses by the handler.
var (
	ErrInvalid = errors.New("invalid request")               // 400
	ErrBusy    = errors.New("target already profiled")       // 409
	ErrFull    = errors.New("every history slot is running") // 503
)

// Manager runs and keeps profiles. It is safe for concurrent use.
type Manager struct {
	src  Source
	opts Options
	log  *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	profiles []*Profile // oldest first
	byID     map[string]*Profile
	running  map[string]string // target key → profile id
}

// NewManager returns a Manager; Close stops its running profiles.
func NewManager(src Source, opts Options, logger *slog.Logger) *Manager {
	if opts.MaxDuration <= 0 {
		opts.MaxDuration = DefaultMaxDuration
	}
	if opts.HistorySize <= 0 {
		opts.HistorySize = DefaultHistorySize
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Manager{src: src, opts: opts, log: logger, ctx: ctx, cancel: cancel,
		byID: map[string]*Profile{}, running: map[string]string{}}
}

// Close cancels running profiles (they end as failed) and waits for them.
func (m *Manager) Close() {
	m.cancel()
	m.wg.Wait()
}

// Options returns the options in effect.
func (m *Manager) Options() Options { return m.opts }

// CreateRequest is the body of POST /api/v1/profiles.
type CreateRequest struct {
	AppID      string  `json:"app_id"`
	ExecutorID string  `json:"executor_id"`
	PID        int     `json:"pid"`
	Duration   float64 `json:"duration"`    // seconds
	IntervalMS *int    `json:"interval_ms"` // default 50
	Threads    string  `json:"threads"`     // "all" (default) or "task"
}

func (m *Manager) validate(r *CreateRequest) error {
	byID := r.AppID != "" || r.ExecutorID != ""
	switch {
	case byID && r.PID != 0:
		return fmt.Errorf("%w: give either app_id and executor_id, or pid, not both", ErrInvalid)
	case byID && (r.AppID == "" || r.ExecutorID == ""):
		return fmt.Errorf("%w: app_id and executor_id go together", ErrInvalid)
	case !byID && r.PID <= 0:
		return fmt.Errorf("%w: name the target with app_id and executor_id, or a positive pid", ErrInvalid)
	case !(r.Duration > 0) || r.Duration > m.opts.MaxDuration.Seconds():
		return fmt.Errorf("%w: duration %v s out of range (0, %v]", ErrInvalid, r.Duration, m.opts.MaxDuration.Seconds())
	}
	if r.IntervalMS == nil {
		v := DefaultIntervalMS
		r.IntervalMS = &v
	}
	if iv := *r.IntervalMS; iv < MinIntervalMS || iv > MaxIntervalMS {
		return fmt.Errorf("%w: interval_ms %d out of range [%d, %d]", ErrInvalid, iv, MinIntervalMS, MaxIntervalMS)
	}
	switch r.Threads {
	case "":
		r.Threads = "all"
	case "all", "task":
	default:
		return fmt.Errorf("%w: threads %q: want \"all\" or \"task\"", ErrInvalid, r.Threads)
	}
	return nil
}

// Create validates a request, resolves its target and starts profiling in
// the background. Errors wrap ErrInvalid, ErrUnknownTarget, ErrBusy or
// ErrFull.
func (m *Manager) Create(ctx context.Context, r CreateRequest) (Info, error) {
	if err := m.validate(&r); err != nil {
		return Info{}, err
	}
	t, err := m.src.Resolve(ctx, Request{AppID: r.AppID, ExecutorID: r.ExecutorID, PID: r.PID})
	if err != nil {
		return Info{}, err
	}
	id, err := newID()
	if err != nil {
		return Info{}, err
	}
	now := time.Now()
	p := &Profile{stacks: map[string]*Stack{}, start: now, done: make(chan struct{}), info: Info{
		ID: id, Status: StatusRunning, AppID: t.AppID, ExecutorID: t.ExecutorID, Framework: t.Framework, PID: t.PID,
		Threads: r.Threads, Duration: r.Duration, IntervalMS: *r.IntervalMS, Created: now,
	}}
	m.mu.Lock()
	if other, busy := m.running[t.Key]; busy {
		m.mu.Unlock()
		return Info{}, fmt.Errorf("%w: profile %s of this target is running", ErrBusy, other)
	}
	if err := m.makeRoom(); err != nil {
		m.mu.Unlock()
		return Info{}, err
	}
	ctx, cancel := context.WithCancel(m.ctx)
	p.cancel = cancel
	m.profiles = append(m.profiles, p)
	m.byID[id] = p
	m.running[t.Key] = id
	m.wg.Add(1)
	m.mu.Unlock()

	go func() {
		defer m.wg.Done()
		defer cancel()
		m.run(ctx, p, t, time.Duration(r.Duration*float64(time.Second)))
		m.mu.Lock()
		delete(m.running, t.Key)
		m.mu.Unlock()
		close(p.done)
	}()
	m.log.Info("profile started", "id", id, "target", t.Key, "duration_s", r.Duration, "interval_ms", *r.IntervalMS)
	return p.Info(), nil
}

// makeRoom deletes the oldest finished profiles so that one more fits in
// the history. Called with m.mu held.
func (m *Manager) makeRoom() error {
	for len(m.profiles) >= m.opts.HistorySize {
		i := slices.IndexFunc(m.profiles, func(p *Profile) bool { return p.Info().Status != StatusRunning })
		if i < 0 {
			return fmt.Errorf("%w: %d profiles are running (--profiling.history-size); retry when one ends", ErrFull, len(m.profiles))
		}
		delete(m.byID, m.profiles[i].Info().ID)
		m.profiles = slices.Delete(m.profiles, i, i+1)
	}
	return nil
}

// run samples t until the duration has passed, the context ends or the
// target stops answering.
func (m *Manager) run(ctx context.Context, p *Profile, t Target, duration time.Duration) {
	interval := time.Duration(p.info.IntervalMS) * time.Millisecond
	var keep func(*threaddump.Thread) bool
	if p.info.Threads == "task" {
		keep = func(th *threaddump.Thread) bool { return m.src.TaskThread(th.Name) }
	}
	deadline := p.start.Add(duration)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	consecutive := 0
	var failure error
	for time.Now().Before(deadline) {
		dctx, cancel := context.WithTimeout(ctx, dumpTimeout)
		d, err := m.src.Dump(dctx, t)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				failure = errors.New("stopped: exporter shutting down")
				break
			}
			p.mu.Lock()
			p.info.Errors++
			p.mu.Unlock()
			consecutive++
			if consecutive >= maxConsecutiveErrors {
				failure = fmt.Errorf("%d dumps in a row failed, last: %w", consecutive, err)
				break
			}
		} else {
			consecutive = 0
			p.add(d, keep)
		}
		select {
		case <-ctx.Done():
		case <-tick.C:
		case <-time.After(time.Until(deadline)):
		}
		if ctx.Err() != nil {
			failure = errors.New("stopped: exporter shutting down")
			break
		}
	}
	p.mu.Lock()
	p.end = time.Now()
	p.info.Finished = p.end
	p.info.Status = StatusFinished
	if failure != nil {
		p.info.Status, p.info.Message = StatusFailed, failure.Error()
	}
	info := p.info
	p.mu.Unlock()
	m.log.Info("profile ended", "id", info.ID, "status", info.Status, "dumps", info.Dumps, "samples", info.Samples, "errors", info.Errors, "message", info.Message)
}

// List returns every kept profile, newest first.
func (m *Manager) List() []Info {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Info, 0, len(m.profiles))
	for i := len(m.profiles) - 1; i >= 0; i-- {
		out = append(out, m.profiles[i].Info())
	}
	return out
}

// Get returns a kept profile.
func (m *Manager) Get(id string) (*Profile, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.byID[id]
	return p, ok
}

// newID makes a random 16-hex-digit id: server-made, never a path.
func newID() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("profile id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}
