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

	sm "github.com/sparkglance/sparkglance/internal/metricschema"
	"github.com/sparkglance/sparkglance/internal/sparklog"
	"github.com/sparkglance/sparkglance/internal/sparklog/objstore"
)

// Watcher is the event-log collector's model: it watches the directories,
// follows one trackedApp per log, and drops finished ones after the
// retention. Its Update (collect.go) only reads published views.
type Watcher struct {
	cfg     Config
	log     *slog.Logger
	workers chan struct{}
	// catchUp admits as many logs found finished as there are workers to
	// being read at once (trackedApp.enterCatchUp): a big one that yields
	// its worker hands it to a live log or to one of those, never to a
	// log that would make one more analysis.
	catchUp chan struct{}

	mu      sync.Mutex
	apps    map[string]*trackedApp // by Log.Key
	dirErr  map[string]error       // why a directory's last listing failed
	leftOut map[string]bool        // logs not followed for --eventlog.max-apps (counted once)
	started bool
	scanned atomic.Bool // the first listing of every directory is done

	rescan chan struct{}
	notes  *fsnotify.Watcher // nil when polling only; set before the first scan
	// pollOnly disables file-system notifications (tests of the fallback).
	pollOnly bool
	stats    selfStats
	skips    skipState
	claims   *Claims // the applications this collector exports, for the spark collector
	seq      uint64  // admissions so far (under mu)
	// shows indexes the followed logs by the attempt their last view shows
	// (under mu), so that checkDuplicate looks at the logs of one attempt,
	// not at all of them for every publication. Entries of logs no longer
	// followed are pruned when met and at every scan.
	shows map[attemptKey]map[*trackedApp]bool
	// analyses counts the logs holding an analysis (being read, or live)
	// and peakAnalyses its highest value: at most --eventlog.max-apps,
	// and at catch-up about one per worker, as a finished application
	// keeps only its views once read.
	analyses, peakAnalyses atomic.Int64
	// now is the clock of retention and of the clock families: time.Now,
	// or a test's clock, set before Run.
	now func() time.Time
	// scans counts finished directory scans, so that a test can wait for
	// the next ones instead of sleeping.
	scans atomic.Uint64
	// objects holds each object-store location's listing between scans
	// (watcher_objects.go).
	objects map[string]*objectDir
	// workloads keeps each run's summary for the recurring workloads
	// (workloads.go).
	workloads *workloads
}

// selfStats are the exporter's own counters.
type selfStats struct {
	// since is when the counters began: their created timestamp, which
	// the OTLP push sends as their start time.
	since         time.Time
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
	if err := cfg.resolveShard(os.Hostname); err != nil {
		return nil, err
	}
	var err error
	if cfg.Analysis.Energy, err = cfg.energyModel(); err != nil {
		return nil, err
	}
	if cfg.Analysis.Workload, err = cfg.Workload.Resolve(); err != nil {
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
		if objstore.IsURL(d) {
			canon, err := sparklog.ResolveLocation(d)
			if err != nil {
				return nil, fmt.Errorf("--eventlog.dir %s: %w", d, err)
			}
			dirs = append(dirs, canon)
			continue
		}
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("--eventlog.dir %s: %w", d, err)
		}
		dirs = append(dirs, abs)
	}
	cfg.Dirs = dirs
	w := &Watcher{
		cfg: cfg, log: logger, workers: make(chan struct{}, cfg.Workers), catchUp: make(chan struct{}, cfg.Workers),
		apps: map[string]*trackedApp{}, dirErr: map[string]error{}, leftOut: map[string]bool{},
		shows:   map[attemptKey]map[*trackedApp]bool{},
		rescan:  make(chan struct{}, 1),
		stats:   selfStats{since: time.Now(), errors: map[string]float64{}},
		objects: map[string]*objectDir{},
		claims:  claims,
		now:     time.Now,
	}
	w.workloads = newWorkloads(cfg.workloadOptions(), w.caughtUp)
	return w, nil
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

// appFinished asks for a scan at once when a's end may matter before the
// next poll: it ended longer ago than the retention, or logs wait for room
// under --eventlog.max-apps. Otherwise the next poll's retention check is
// soon enough, and catching up on thousands of finished logs does not list
// the directories again after each one.
func (w *Watcher) appFinished(a *trackedApp) {
	w.mu.Lock()
	waiting := len(w.leftOut) > 0
	w.mu.Unlock()
	if waiting || w.now().Sub(time.Unix(0, a.finAt.Load())) > w.cfg.Retention {
		w.requestScan()
	}
}

// analysisStarted and analysisDropped count the analyses held.
func (w *Watcher) analysisStarted() {
	n := w.analyses.Add(1)
	for p := w.peakAnalyses.Load(); n > p && !w.peakAnalyses.CompareAndSwap(p, n); p = w.peakAnalyses.Load() {
	}
}

func (w *Watcher) analysisDropped() { w.analyses.Add(-1) }

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
	if err := w.dirsErr(); err != nil {
		return err
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

// caughtUp reports whether every directory was listed once and every log
// found then was read to its end once (Ready, whatever the directories'
// errors since).
func (w *Watcher) caughtUp() bool {
	if !w.scanned.Load() {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, a := range w.apps {
		if !a.caught.Load() {
			return false
		}
	}
	return true
}

// dirsErr names every --eventlog.dir whose last listing failed, and why:
// until it can be listed, the collector is neither ready nor successful.
func (w *Watcher) dirsErr() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	var errs []error
	for _, d := range w.cfg.Dirs {
		if err := w.dirErr[d]; err != nil {
			errs = append(errs, fmt.Errorf("--eventlog.dir %s cannot be listed: %w", d, err))
		}
	}
	return errors.Join(errs...)
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
	w.mu.Lock()
	w.notes = notes
	w.mu.Unlock()
	defer w.stopAll()
	next := time.NewTimer(w.cfg.PollInterval)
	defer next.Stop()
	start, caughtUp := time.Now(), false
	for {
		began := time.Now()
		w.scan(ctx, notes)
		next.Reset(scanWait(w.cfg.PollInterval, time.Since(began)))
		w.scanned.Store(true)
		if !caughtUp && w.caughtUp() {
			caughtUp = true
			w.logCaughtUp(time.Since(start))
		}
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
			case <-next.C:
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

// scanCostRatio paces the polls' directory scans: the next one waits at
// least this many times as long as the last took, so that listing a
// directory of 10,000 logs (tens of ms, more with stats of the finished
// ones) takes about 2 % of a core, not 5 % or more, while a catch-up of
// minutes would otherwise pay it every --eventlog.poll-interval. Logs that
// appear or go are seen at once all the same (notifications and
// requestScan do not wait).
const scanCostRatio = 50

// scanWait is how long the next poll waits after a scan that took took.
func scanWait(poll, took time.Duration) time.Duration {
	return max(poll, scanCostRatio*took)
}

// logCaughtUp says once, at the first scan that finds every log found at
// start read to its end, how long the catch-up took and how many analyses
// it held at once: what start-up costs, in the operator's log (and the
// figure the catch-up benchmarks read from the binary).
func (w *Watcher) logCaughtUp(took time.Duration) {
	w.mu.Lock()
	apps := len(w.apps)
	w.mu.Unlock()
	w.log.Info("event logs caught up", "applications", apps, "took", took.Round(time.Millisecond),
		"peak_analyses", w.peakAnalyses.Load())
}

// startNotify watches the directories with fsnotify; polling alone
// remains when that is impossible (no inotify, limits reached).
func (w *Watcher) startNotify() *fsnotify.Watcher {
	if w.pollOnly {
		return nil
	}
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
	inRolling := false
	if a == nil {
		// A file in a followed rolling directory (watched too): its next
		// events file or the appstatus rename. The listing is unchanged.
		if ra := w.apps[filepath.Dir(ev.Name)]; ra != nil && ra.rolling {
			a, inRolling = ra, true
		}
	}
	w.mu.Unlock()
	if a != nil {
		a.notify()
	}
	if inRolling {
		return false
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
	now := w.now()
	var found []sparklog.Log
	listed := map[string]bool{} // keys seen in a directory that could be listed
	okDirs := map[string]bool{}
	for _, d := range w.cfg.Dirs {
		logs, due, err := w.discover(d, now)
		if !due {
			// An object-store location between its scans: its
			// applications stay as they are.
			for _, l := range logs {
				listed[l.Key] = true
			}
			continue
		}
		w.mu.Lock()
		wasBad := w.dirErr[d] != nil
		if err != nil {
			w.dirErr[d] = err
		} else {
			delete(w.dirErr, d)
		}
		w.mu.Unlock()
		if err != nil {
			if !wasBad {
				w.countError(string(sm.EventlogErrorDirUnreadable))
				w.log.Warn("cannot list event-log directory; keeping its applications", "dir", d, "err", err)
			}
			continue
		}
		okDirs[d] = true
		logs = w.cfg.Shard.owned(logs) // another shard's logs are never opened
		for _, l := range logs {
			listed[l.Key] = true
		}
		found = append(found, logs...)
	}

	w.mu.Lock()
	var gone []*trackedApp
	for key, a := range w.apps {
		if !listed[key] && underAny(key, okDirs) && !a.retired {
			gone = append(gone, a)
			delete(w.apps, key)
		}
	}
	for _, a := range gone {
		w.unclaim(a.key)
	}
	w.mu.Unlock()
	w.forgetUnlisted(listed, okDirs)
	for _, a := range gone {
		w.countError(string(sm.EventlogErrorLogVanished))
		w.log.Info("event log removed; dropping its application", "log", a.key)
		a.stop()
	}

	w.rereadChanged(found)
	w.admit(ctx, found, now)
	w.expire(now)
	w.reportSkipped()
	w.scans.Add(1)
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
		if !l.InProgress && ok && w.retiredUnchanged(l.Key, m) {
			continue // shown for its retention already, or found too old when read
		}
		// A finished application ends no later than its log's last write:
		// a log untouched for longer than the retention is not worth
		// decoding. Counted, so that it is never left out silently.
		if !l.InProgress && ok && now.Sub(m) > w.cfg.Retention {
			w.skip(l.Key, skipRetention)
			continue
		}
		cands = append(cands, candidate{l, m})
	}
	slices.SortFunc(cands, func(a, b candidate) int { return b.mtime.Compare(a.mtime) })
	for _, c := range cands {
		if len(w.apps) >= w.cfg.MaxApps && !w.makeRoomLocked(c) {
			if !w.leftOut[c.log.Key] {
				w.leftOut[c.log.Key] = true
				w.countError(string(sm.EventlogErrorMaxApps))
				w.skip(c.log.Key, skipMaxApps)
				w.log.Warn("--eventlog.max-apps reached; not following log", "log", c.log.Key, "max_apps", w.cfg.MaxApps)
			}
			continue
		}
		delete(w.leftOut, c.log.Key)
		w.admitted(c.log.Key)
		a := newTrackedApp(w, c.log)
		a.admittedAt = now
		w.seq++
		a.seq = w.seq
		actx, cancel := context.WithCancel(ctx)
		a.cancel = cancel
		w.apps[c.log.Key] = a
		if a.rolling && c.log.InProgress && w.notes != nil && !objstore.IsURL(c.log.Path) {
			// Spark adds a live rolling log's events files later; without
			// this watch they are seen only at the next poll.
			if err := w.notes.Add(c.log.Path); err != nil {
				w.log.Debug("cannot watch rolling log directory; polling it", "dir", c.log.Path, "err", err)
			}
		}
		go a.run(actx)
	}
}

// makeRoomLocked drops the finished application that ended first to make
// room for c, unless c is itself a finished log no newer than that one
// (keeping the newest, and not swapping the same logs in and out).
func (w *Watcher) makeRoomLocked(c candidate) bool {
	var oldest *trackedApp
	// Compared by their logs' modification times, like with like.
	for _, a := range w.apps {
		if at := a.finMTime.Load(); at != 0 && (oldest == nil || at < oldest.finMTime.Load()) {
			oldest = a
		}
	}
	if oldest == nil || (!c.log.InProgress && c.mtime.UnixNano() <= oldest.finMTime.Load()) {
		return false
	}
	delete(w.apps, oldest.key)
	w.unclaim(oldest.key)
	oldest.cancel() // already finished: its goroutine has returned
	return true
}

// rereadChanged drops finished single-file applications whose file no
// longer has the size it had when read to its end, so that admit follows
// them again from the start: a log that appeared before its writer was done
// (copied into the directory, say) is read whole, never left cut short.
func (w *Watcher) rereadChanged(found []sparklog.Log) {
	var changed []*trackedApp
	w.mu.Lock()
	for _, l := range found {
		a, ok := w.apps[l.Key]
		if !ok || a.retired || a.running.Load() || l.InProgress || len(l.Files) != 1 || l.Files[0].Member != "" {
			continue
		}
		read := a.finBytes.Load()
		if a.finMTime.Load() == 0 || read < 0 {
			continue
		}
		if size, ok := listedSize(l.Files[0]); ok {
			if size == read {
				continue
			}
		} else if info, err := os.Stat(l.Files[0].Path); err != nil || info.Size() == read {
			continue
		}
		changed = append(changed, a)
		delete(w.apps, l.Key)
	}
	for _, a := range changed {
		w.unclaim(a.key)
	}
	w.mu.Unlock()
	for _, a := range changed {
		w.countError(string(sm.EventlogErrorLogRewritten))
		w.log.Info("finished event log changed after it was read; reading it again", "log", a.key)
		a.stop()
	}
}

// expire drops finished applications whose end is older than the
// retention. One that had ended longer ago when it was found (an old log
// copied with a fresh modification time) counts as skipped.
func (w *Watcher) expire(now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	defer w.pruneShowsLocked()
	for key, a := range w.apps {
		at := a.finAt.Load()
		if at == 0 || now.Sub(time.Unix(0, at)) <= w.cfg.Retention {
			continue
		}
		if a.admittedAt.Sub(time.Unix(0, at)) > w.cfg.Retention {
			w.skip(key, skipRetention)
		}
		w.retire(key, a.finMTime.Load())
		delete(w.apps, key)
		w.unclaim(key)
		a.cancel()
	}
}

// retireReplaced keeps the last view of the application a rewritten log showed
// before it became another application: that one has ended as far as the
// collector can tell, and is dropped like any finished application.
func (w *Watcher) retireReplaced(a *trackedApp, old *appView) {
	r := &trackedApp{key: a.key + "\x00" + old.appID + "\x00" + old.attemptID, w: w, log: a.log,
		seq: a.seq, retired: true, cancel: func() {}, done: make(chan struct{})}
	close(r.done)
	r.view.Store(old.asEnded())
	r.caught.Store(true)
	r.finAt.Store(w.now().UnixNano())
	a.log.Info("rewritten event log shows another application; the previous one ended",
		"previous_app_id", old.appID, "previous_attempt_id", old.attemptID)
	w.mu.Lock()
	w.apps[r.key] = r
	w.showsLocked(r, attemptKey{old.appID, old.attemptID})
	w.mu.Unlock()
	w.claim(old.appID, r.key) // unclaimed when the retired view is dropped
}

// checkDuplicate reports, once, a log that shows an application attempt
// another log admitted earlier already shows: only the first is exported
// (latestAttempts), so the second never silently replaces its series.
func (w *Watcher) checkDuplicate(a *trackedApp, v *appView) {
	k := attemptKey{v.appID, v.attemptID}
	w.mu.Lock()
	w.showsLocked(a, k)
	var first *trackedApp
	for o := range w.shows[k] {
		if w.apps[o.key] != o { // no longer followed
			delete(w.shows[k], o)
			continue
		}
		if o == a || o.seq > a.seq {
			continue
		}
		if first == nil || o.seq < first.seq {
			first = o
		}
	}
	w.mu.Unlock()
	if first == nil {
		if a.dupOf.Swap(nil) != nil {
			w.admitted(a.key) // the first is gone: this one is shown now
		}
		return
	}
	if prev := a.dupOf.Swap(&first.key); prev == nil || *prev != first.key {
		w.countError(string(sm.EventlogErrorDuplicateApp))
		w.skip(a.key, skipDuplicate)
		a.log.Warn("event log shows an application attempt another log already shows; not exported",
			"app_id", v.appID, "attempt_id", v.attemptID, "first_log", first.key)
	}
}

// attemptKey is an application attempt as views name it.
type attemptKey struct{ appID, attemptID string }

// showsLocked records that a's view now shows attempt k.
func (w *Watcher) showsLocked(a *trackedApp, k attemptKey) {
	if a.shows != nil && *a.shows != k {
		w.forgetShowLocked(a, *a.shows)
	}
	a.shows = &k
	set := w.shows[k]
	if set == nil {
		set = map[*trackedApp]bool{}
		w.shows[k] = set
	}
	set[a] = true
}

func (w *Watcher) forgetShowLocked(a *trackedApp, k attemptKey) {
	if set := w.shows[k]; set != nil {
		delete(set, a)
		if len(set) == 0 {
			delete(w.shows, k)
		}
	}
}

// pruneShowsLocked forgets the logs no longer followed.
func (w *Watcher) pruneShowsLocked() {
	for k, set := range w.shows {
		for o := range set {
			if w.apps[o.key] != o {
				delete(set, o)
			}
		}
		if len(set) == 0 {
			delete(w.shows, k)
		}
	}
}

// stopAll stops every follower and waits for them, at most stopWait: a
// reader blocked where no cancellation reaches (a store's SDK, a file
// system that hangs) must not keep the process from exiting.
func (w *Watcher) stopAll() {
	w.mu.Lock()
	apps := make([]*trackedApp, 0, len(w.apps))
	for _, a := range w.apps {
		apps = append(apps, a)
	}
	w.mu.Unlock()
	for _, a := range apps {
		a.cancel()
	}
	deadline := time.NewTimer(stopWait)
	defer deadline.Stop()
	for i, a := range apps {
		select {
		case <-a.done:
		case <-deadline.C:
			w.log.Warn("event-log readers still busy at shutdown; not waiting for them", "readers", len(apps)-i, "waited", stopWait)
			return
		}
	}
}

// stopWait bounds stopAll: below the exporter's 5 s shutdown grace.
var stopWait = 4 * time.Second

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
