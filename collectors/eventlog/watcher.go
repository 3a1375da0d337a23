package eventlog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/sparkglance/sparkglance/internal/sparklog"
)

// Watcher is the event-log collector's model: it watches the directories,
// follows one trackedApp per log, and drops finished ones after the
// retention. Its Update (collect.go) only reads published views.
type Watcher struct {
	cfg     Config
	log     *slog.Logger
	workers chan struct{}

	mu      sync.Mutex
	apps    map[string]*trackedApp // by Log.Key
	dirErr  map[string]bool        // directories whose last listing failed
	leftOut map[string]bool        // logs not followed for --eventlog.max-apps (counted once)
	started bool
	scanned atomic.Bool // the first listing of every directory is done

	rescan chan struct{}
	stats  selfStats
	claims *Claims // the applications this collector exports, for the spark collector
}

// selfStats are the exporter's own counters.
type selfStats struct {
	bytes, events atomic.Int64
	mu            sync.Mutex
	errors        map[string]float64
}

// New returns the collector for cfg; nothing is read before Run.
func New(cfg Config, logger *slog.Logger) (*Watcher, error) {
	return newWatcher(cfg, logger, NewClaims())
}

// newWatcher is New recording its applications in claims.
func newWatcher(cfg Config, logger *slog.Logger, claims *Claims) (*Watcher, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultConfig().Workers
	}
	if cfg.SliceTime <= 0 {
		cfg.SliceTime = DefaultConfig().SliceTime
	}
	dirs := make([]string, 0, len(cfg.Dirs))
	for _, d := range cfg.Dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("--eventlog.dir %s: %w", d, err)
		}
		dirs = append(dirs, abs)
	}
	cfg.Dirs = dirs
	return &Watcher{
		cfg: cfg, log: logger, workers: make(chan struct{}, cfg.Workers),
		apps: map[string]*trackedApp{}, dirErr: map[string]bool{}, leftOut: map[string]bool{},
		rescan: make(chan struct{}, 1),
		stats:  selfStats{errors: map[string]float64{}},
		claims: claims,
	}, nil
}

func (w *Watcher) acquire(ctx context.Context) bool {
	select {
	case w.workers <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

func (w *Watcher) release() { <-w.workers }

func (w *Watcher) countError(reason string) {
	w.stats.mu.Lock()
	w.stats.errors[reason]++
	w.stats.mu.Unlock()
}

// appFinished asks for a retention check soon.
func (w *Watcher) appFinished() { w.requestScan() }

func (w *Watcher) requestScan() {
	select {
	case w.rescan <- struct{}{}:
	default:
	}
}

// Ready reports whether every directory was listed once and every log
// found then was read to its end once.
func (w *Watcher) Ready() error {
	if !w.scanned.Load() {
		return errors.New("event-log directories not listed yet")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	pending := 0
	for _, a := range w.apps {
		if !a.caught.Load() {
			pending++
		}
	}
	if pending > 0 {
		return fmt.Errorf("%d event logs not read to their end yet", pending)
	}
	return nil
}

// Run watches until ctx ends, then stops every follower.
func (w *Watcher) Run(ctx context.Context) error {
	w.mu.Lock()
	if w.started {
		w.mu.Unlock()
		return errors.New("eventlog collector: Run called twice")
	}
	w.started = true
	w.mu.Unlock()

	notes := w.startNotify()
	if notes != nil {
		defer notes.Close()
	}
	defer w.stopAll()
	ticker := time.NewTicker(w.cfg.PollInterval)
	defer ticker.Stop()
	for {
		w.scan(ctx, notes)
		w.scanned.Store(true)
		var events <-chan fsnotify.Event
		var errs <-chan error
		if notes != nil {
			events, errs = notes.Events, notes.Errors
		}
	wait:
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-ticker.C:
				break wait
			case <-w.rescan:
				break wait
			case ev, ok := <-events:
				if !ok {
					events = nil
					continue
				}
				if w.route(ev) {
					break wait
				}
			case err, ok := <-errs:
				if !ok {
					errs = nil
					continue
				}
				w.log.Warn("file-system notifications failed; polling goes on", "err", err)
			}
		}
	}
}

// startNotify watches the directories with fsnotify; polling alone
// remains when that is impossible (no inotify, limits reached).
func (w *Watcher) startNotify() *fsnotify.Watcher {
	nw, err := fsnotify.NewWatcher()
	if err != nil {
		w.log.Info("no file-system notifications; polling only", "err", err, "poll_interval", w.cfg.PollInterval)
		return nil
	}
	return nw
}

// watchDirs (re)adds every directory that exists: a directory that
// vanished and came back must be watched again.
func (w *Watcher) watchDirs(nw *fsnotify.Watcher) {
	if nw == nil {
		return
	}
	watched := nw.WatchList()
	for _, d := range w.cfg.Dirs {
		if slices.Contains(watched, d) {
			continue
		}
		if info, err := os.Stat(d); err == nil && info.IsDir() {
			if err := nw.Add(d); err != nil {
				w.log.Debug("cannot watch directory; polling it", "dir", d, "err", err)
			}
		}
	}
}

// route wakes the follower of the log an event names and reports whether
// the directories need listing again (a file appeared or went).
func (w *Watcher) route(ev fsnotify.Event) bool {
	key := strings.TrimSuffix(ev.Name, ".inprogress")
	w.mu.Lock()
	a := w.apps[key]
	w.mu.Unlock()
	if a != nil {
		a.notify()
	}
	// Only a file appearing or going changes the listing: writes to a log
	// nobody follows (left out by --eventlog.max-apps, say) must not cause
	// a rescan each.
	return ev.Has(fsnotify.Create) || ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)
}

// scan lists every directory, starts followers for new logs, stops those
// whose log is gone, and applies retention and max-apps.
func (w *Watcher) scan(ctx context.Context, nw *fsnotify.Watcher) {
	w.watchDirs(nw)
	now := time.Now()
	var found []sparklog.Log
	listed := map[string]bool{} // keys seen in a directory that could be listed
	okDirs := map[string]bool{}
	for _, d := range w.cfg.Dirs {
		logs, err := sparklog.Discover(d)
		w.mu.Lock()
		wasBad := w.dirErr[d]
		w.dirErr[d] = err != nil
		w.mu.Unlock()
		if err != nil {
			if !wasBad {
				w.countError("dir-unreadable")
				w.log.Warn("cannot list event-log directory; keeping its applications", "dir", d, "err", err)
			}
			continue
		}
		okDirs[d] = true
		for _, l := range logs {
			listed[l.Key] = true
		}
		found = append(found, logs...)
	}

	w.mu.Lock()
	var gone []*trackedApp
	for key, a := range w.apps {
		if !listed[key] && underAny(key, okDirs) {
			gone = append(gone, a)
			delete(w.apps, key)
		}
	}
	for _, a := range gone {
		w.unclaim(a.key)
	}
	w.mu.Unlock()
	for _, a := range gone {
		w.countError("log-vanished")
		w.log.Info("event log removed; dropping its application", "log", a.key)
		a.stop()
	}

	w.admit(ctx, found, now)
	w.expire(now)
}

// underAny reports whether key lies in one of dirs (or is one of them).
func underAny(key string, dirs map[string]bool) bool {
	for d := range dirs {
		if key == d || strings.HasPrefix(key, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// candidate is a log not followed yet.
type candidate struct {
	log   sparklog.Log
	mtime time.Time
}

// admit starts followers for new logs, newest first, skipping finished logs
// older than the retention without reading them.
func (w *Watcher) admit(ctx context.Context, found []sparklog.Log, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var cands []candidate
	for _, l := range found {
		if _, ok := w.apps[l.Key]; ok {
			continue
		}
		m, ok := logMTime(l)
		if !l.InProgress && ok && now.Sub(m) > w.cfg.Retention {
			continue // finished long ago: not worth decoding
		}
		cands = append(cands, candidate{l, m})
	}
	slices.SortFunc(cands, func(a, b candidate) int { return b.mtime.Compare(a.mtime) })
	for _, c := range cands {
		if len(w.apps) >= w.cfg.MaxApps && !w.makeRoomLocked(c) {
			if !w.leftOut[c.log.Key] {
				w.leftOut[c.log.Key] = true
				w.countError("max-apps")
				w.log.Warn("--eventlog.max-apps reached; not following log", "log", c.log.Key, "max_apps", w.cfg.MaxApps)
			}
			continue
		}
		delete(w.leftOut, c.log.Key)
		a := newTrackedApp(w, c.log)
		actx, cancel := context.WithCancel(ctx)
		a.cancel = cancel
		w.apps[c.log.Key] = a
		go a.run(actx)
	}
}

// makeRoomLocked drops the finished application that ended first to make
// room for c, unless c is itself a finished log no newer than that one
// (keeping the newest, and not swapping the same logs in and out).
func (w *Watcher) makeRoomLocked(c candidate) bool {
	var oldest *trackedApp
	for _, a := range w.apps {
		if at := a.finAt.Load(); at != 0 && (oldest == nil || at < oldest.finAt.Load()) {
			oldest = a
		}
	}
	if oldest == nil || (!c.log.InProgress && c.mtime.UnixNano() <= oldest.finAt.Load()) {
		return false
	}
	delete(w.apps, oldest.key)
	w.unclaim(oldest.key)
	oldest.cancel() // already finished: its goroutine has returned
	return true
}

// expire drops finished applications past the retention.
func (w *Watcher) expire(now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for key, a := range w.apps {
		if at := a.finAt.Load(); at != 0 && now.Sub(time.Unix(0, at)) > w.cfg.Retention {
			delete(w.apps, key)
			w.unclaim(key)
			a.cancel()
		}
	}
}

func (w *Watcher) stopAll() {
	w.mu.Lock()
	apps := make([]*trackedApp, 0, len(w.apps))
	for _, a := range w.apps {
		apps = append(apps, a)
	}
	w.mu.Unlock()
	for _, a := range apps {
		a.stop()
	}
}

// snapshot returns the followed applications.
func (w *Watcher) snapshot() []*trackedApp {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]*trackedApp, 0, len(w.apps))
	for _, a := range w.apps {
		out = append(out, a)
	}
	return out
}
