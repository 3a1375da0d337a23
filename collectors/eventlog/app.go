package eventlog

import (
	"context"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/analysis/sqlops"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
	"github.com/sparkglance/sparkglance/internal/sparklog"
	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// snapshotEvery bounds how often a busy log's snapshot is rebuilt; a log
// that is caught up gets one after every poll that brought events.
const snapshotEvery = 200 * time.Millisecond

// refreshEvery rebuilds a quiet live application's snapshot now and then,
// so that intervals past the settle timeout get published.
const refreshEvery = 5 * time.Second

// trackedApp follows one application attempt's log in its own goroutine.
// Only that goroutine touches the follower, the analysis and the totals;
// others read the published view.
type trackedApp struct {
	key     string
	rolling bool // a rolling directory (eventlog_v2_…)
	w       *Watcher
	log     *slog.Logger
	wake    chan struct{} // a notification for this log
	cancel  context.CancelFunc
	done    chan struct{}
	view    atomic.Pointer[appView]
	caught  atomic.Bool  // read to the end at least once
	finAt   atomic.Int64 // unix ns when the application ended (applicationEnd), 0 while running
	// finMTime is the log's modification time (unix ns) when found
	// finished, to recognise it unchanged after retention dropped it.
	finMTime atomic.Int64
	// finBytes is the size of a single-file log when it was read to its
	// end (-1 for other layouts): a finished log that then changes size
	// was still being written (copied in with cp, say) and is read again.
	finBytes   atomic.Int64
	admittedAt time.Time              // when the watcher started following it (set before run)
	running    atomic.Bool            // the log is still being written
	foundDone  bool                   // the log was finished when found: read under Watcher.catchUp
	seq        uint64                 // admission order: of two logs of one attempt, the first is exported
	retired    bool                   // an application its log no longer shows (rewritten as another); set before publication
	dupOf      atomic.Pointer[string] // the log already showing this attempt, if any
	shows      *attemptKey            // the attempt the last view showed (under w.mu, see Watcher.shows)

	// Owned by the goroutine.
	ctx       context.Context
	holding   bool // has a worker token
	catching  bool // has a Watcher.catchUp place
	follower  *sparklog.Follower
	analysis  *analysis.App // made when the log first gets a worker, dropped once finished
	user      string
	started   bool // ApplicationStart seen
	dirty     bool // events arrived since the last view
	settled   settledTotals
	shaper    executorShaper // --eventlog.executor-metrics and max-executors-per-app
	prev      *appView
	lastBuild time.Time
	slice     time.Time // when this log took its worker
	events    int64     // since the last yield
	failing   bool      // the last poll failed
	bytesSeen int64

	docs liveDocs // the latest analysis document, for the live pages
	// replaced is the view of the generation before the log was rewritten,
	// until the new generation shows which application it is.
	replaced *appView

	// measured is the node agents' energy divided among the stages
	// (measured.go).
	measured measuredSplit
	// summarizedAt is when the run's workload summary was last taken.
	summarizedAt time.Time
	// workloadDropped: the run's workload was one too many, counted once.
	workloadDropped bool
}

func newTrackedApp(w *Watcher, l sparklog.Log) *trackedApp {
	a := &trackedApp{
		key: l.Key, rolling: l.Layout == sparklog.LayoutRolling, w: w, log: w.log.With("log", l.Key),
		wake: make(chan struct{}, 1), done: make(chan struct{}),
	}
	a.running.Store(l.InProgress)
	a.foundDone = !l.InProgress
	a.follower = sparklog.NewFollower(l, a, sparklog.Options{SQLUpdatesOnly: true})
	return a
}

// enterCatchUp waits, for a log found finished, until fewer finished logs
// than workers are being read; false when ctx ends first.
func (a *trackedApp) enterCatchUp(ctx context.Context) bool {
	if !a.foundDone || a.catching {
		return true
	}
	select {
	case a.w.catchUp <- struct{}{}:
		a.catching = true
		return true
	case <-ctx.Done():
		return false
	}
}

// leaveCatchUp gives the place back: the log is finished, or its poll did
// not get to the end (a broken log must not keep others from being read).
func (a *trackedApp) leaveCatchUp() {
	if a.catching {
		<-a.w.catchUp
		a.catching = false
	}
}

// startAnalysis gives the log a fresh analysis. It is made only once the
// log holds a worker: thousands of finished logs found at start-up then
// wait with no analysis, and each one read drops its own (finish), so at
// catch-up about one analysis per worker is alive, not one per log.
func (a *trackedApp) startAnalysis() {
	a.dropAnalysis()
	a.analysis = analysis.New(a.w.analysisConfig())
	a.w.analysisStarted()
}

func (a *trackedApp) dropAnalysis() {
	if a.analysis != nil {
		a.analysis = nil
		a.w.analysisDropped()
	}
}

// analysisConfig is the configuration of each application's analysis.
func (w *Watcher) analysisConfig() analysis.Config {
	cfg := w.cfg.Analysis
	if cfg.ExactQuantileTasks == 0 { // a Config built by hand, as in tests
		cfg = analysis.DefaultConfig()
	}
	cfg.Interval, cfg.StageBorders = w.cfg.Interval, false
	return cfg
}

// notify asks for a poll soon; it never blocks.
func (a *trackedApp) notify() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// run polls until the log is finished and read, or ctx ends.
func (a *trackedApp) run(ctx context.Context) {
	defer close(a.done)
	defer a.leaveCatchUp()
	defer a.dropAnalysis() // stopped before the end: dropped with the goroutine
	a.ctx = ctx
	ticker := time.NewTicker(a.w.pollInterval(a.key))
	defer ticker.Stop()
	for {
		if finished := a.pollOnce(ctx); finished {
			return
		}
		var throttled <-chan time.Time
		if a.dirty { // events not yet in a view: rebuild once the throttle allows
			throttled = time.After(snapshotEvery - time.Since(a.lastBuild))
		}
		select {
		case <-ctx.Done():
			return
		case <-a.wake:
		case <-ticker.C:
		case <-throttled:
		}
	}
}

// pollOnce reads what is new under a worker token and publishes a view;
// a finished log is then reduced to its views (finish).
func (a *trackedApp) pollOnce(ctx context.Context) bool {
	if !a.enterCatchUp(ctx) || !a.w.acquire(ctx) {
		return false
	}
	a.holding = true
	// The worker is kept until the view is published and a finished log's
	// analysis dropped, so that the workers bound the analyses alive (and
	// the CPU publishing takes), not only the reading.
	defer func() {
		if a.holding {
			a.w.release()
			a.holding = false
		}
	}()
	a.slice, a.events = time.Now(), 0
	if a.analysis == nil {
		a.startAnalysis()
	}
	res, err := a.follower.PollContext(ctx)
	if ctx.Err() != nil {
		return false
	}
	a.account()
	if res.Rewritten != "" {
		a.restart(res.Rewritten) // read again at once, in the same place
		return false
	}
	if err != nil {
		if !a.failing {
			a.failing = true
			a.w.countError(string(sm.EventlogErrorOpenFailed))
			a.log.Warn("cannot read event log; will retry", "err", err)
		}
	} else {
		a.failing = false
	}
	finished := err == nil && res.Finished
	if res.Events > 0 {
		a.dirty = true
	}
	since := time.Since(a.lastBuild)
	if finished || !a.caught.Load() || (a.dirty && since >= snapshotEvery) || since >= refreshEvery {
		a.publish(finished)
	}
	a.running.Store(!a.follower.Finished())
	if finished {
		// Caught up only once reduced to its views, so that a ready
		// collector holds no analysis of a finished log.
		a.finish()
		return true
	}
	a.caught.Store(true) // also after a failure: readiness must not wait on a broken log
	a.leaveCatchUp()
	return false
}

// account adds the bytes read since the last call to the exporter's total.
func (a *trackedApp) account() {
	in := a.follower.Stats().BytesIn
	if d := in - a.bytesSeen; d > 0 {
		a.w.stats.bytes.Add(d)
	}
	a.bytesSeen = in
}

// publish builds a fresh view, never letting a counter go backwards.
func (a *trackedApp) publish(finished bool) {
	if !a.started {
		a.lastBuild, a.dirty = time.Now(), false
		// Not an application (yet). Also, analysis.Report before any
		// timestamped event anchors the timeline at the epoch, and the
		// next task then grows it to billions of intervals.
		return
	}
	r := a.analysis.Report()
	a.lastBuild, a.dirty = time.Now(), false
	v := buildView(&r, a.user, !finished, a.w.cfg.SettleTimeout, a.lastBuild)
	v.sql = sqlops.Summarize(r.SQL, a.w.cfg.SQLMaxOperators)
	v.stages = buildStagesView(&r, a.w.cfg.MaxStages)
	if r.Energy != nil && a.measured.update(&r, a.w.cfg.Measured) {
		v.stages.applyMeasured(&a.measured)
	}
	a.settled.add(&r)
	// A running application's settled counters are born at 0 when it is
	// followed from before its first interval ended (else Prometheus may
	// have seen them from an earlier run of the exporter), and so is the
	// spill of an executor first listed now; what this view holds back,
	// the next one, published as soon as the throttle allows, shows.
	holdApp := a.prev == nil && !finished && len(r.Intervals) > 0 && a.admittedAt.UnixMilli() < r.Intervals[0].End
	var listed map[string]bool
	if a.prev != nil {
		listed = make(map[string]bool, len(a.prev.executors))
		for _, e := range a.prev.executors {
			listed[e.id] = true
		}
	}
	var held bool
	v.settled, held = a.settled.exported(holdApp, func(id string) bool {
		return !finished && listed != nil && !listed[exporter.LabelValue(id)]
	})
	if held {
		a.dirty = true
	}
	if p := a.prev; p != nil {
		v.coreSeconds = max(v.coreSeconds, p.coreSeconds)
		for i := range v.tasks {
			v.tasks[i] = max(v.tasks[i], p.tasks[i])
		}
	}
	a.prev = v
	if old := a.replaced; old != nil {
		a.replaced = nil
		if old.appID != v.appID || old.attemptID != v.attemptID {
			a.w.retireReplaced(a, old)
		}
	}
	a.w.checkDuplicate(a, v)
	a.store(a.shaper.shape(v, a.w.cfg.ExecutorMetrics, a.w.cfg.MaxExecutorsPerApp))
	a.docs.publish(&r, a.follower)
	a.observeWorkload(&r)
	a.w.claim(v.appID, a.key)
}

// store publishes v, unless the published view holds the same data (an
// application with no news, republished so that a settled interval gets
// out): that one is kept with its parts and text, and the next scrape
// costs nothing for it. A view that replaces one a scrape used has its
// parts built and encoded here, on this goroutine, off the scrape's path;
// the next view waits for a scrape to ask again, so that an application
// publishing every snapshotEvery is encoded about once per scrape, as
// when the scrape encoded it, and not five times a second.
func (a *trackedApp) store(v *appView) {
	old := a.view.Load()
	if old != nil && old.sameData(v) {
		return
	}
	a.view.Store(v)
	if old != nil && old.scraped.Load() {
		v.encode()
	}
}

// restart reads a rewritten log again from its start as a new generation:
// counters start again from zero (a counter reset, as Prometheus expects),
// gauges take the new values. The old view stays until the new one is
// published; if the log then shows another application, the old one ends.
func (a *trackedApp) restart(why string) {
	a.w.countError(string(sm.EventlogErrorLogRewritten))
	a.log.Warn("event log rewritten; reading it again from its start", "reason", why)
	if v := a.view.Load(); v != nil && a.replaced == nil {
		a.replaced = v
	}
	l := a.follower.Log()
	a.follower = sparklog.NewFollower(l, a, sparklog.Options{SQLUpdatesOnly: true})
	a.startAnalysis()
	a.user, a.started, a.prev, a.bytesSeen = "", false, nil, 0
	a.notify()
}

// finish records when the application ended (its ApplicationEnd or last
// event: the retention counts from there, not from the file's mtime, which
// a copy of an old History Server directory renews) and frees everything
// but the last view.
func (a *trackedApp) finish() {
	mtime := a.w.now()
	if m, ok := logMTime(a.follower.Log()); ok {
		mtime = m
	}
	a.finMTime.Store(mtime.UnixNano())
	a.finBytes.Store(-1)
	if l := a.follower.Log(); len(l.Files) == 1 && l.Files[0].Member == "" {
		a.finBytes.Store(a.bytesSeen)
	}
	a.finAt.Store(applicationEnd(a.view.Load(), mtime).UnixNano())
	a.running.Store(false)
	a.dropAnalysis()
	a.leaveCatchUp()
	a.follower, a.prev = nil, nil
	a.caught.Store(true)
	a.w.appFinished(a)
}

// Event implements sparklog.Handler.
func (a *trackedApp) Event(_ sparklog.Position, ev sparkevent.Event) error {
	a.w.stats.events.Add(1)
	switch e := ev.(type) {
	case *sparkevent.ApplicationStart:
		a.user, a.started = e.User, true
	}
	a.analysis.Add(ev)
	a.events++
	if a.events&1023 == 0 && time.Since(a.slice) >= a.w.cfg.SliceTime {
		return a.yield()
	}
	return nil
}

// yield lets waiting logs have the worker, publishing progress first
// (once the application was shown whole). It
// fails only when the collector stops, which ends this poll for good.
func (a *trackedApp) yield() error {
	a.account()
	// Not before the log was read to its end once: a view of part of it
	// holds counters below those a Prometheus scraped from the whole log
	// before a restart, which it would take for a reset.
	if a.caught.Load() && time.Since(a.lastBuild) >= time.Second {
		a.publish(false)
	}
	a.w.release()
	a.holding = false
	if !a.w.acquire(a.ctx) {
		return a.ctx.Err()
	}
	a.holding = true
	a.slice = time.Now()
	return nil
}

// Problem implements sparklog.Handler.
func (a *trackedApp) Problem(p sparklog.Problem) {
	a.docs.keep(p)
	a.w.countError(string(p.Kind))
	a.log.Debug("event-log problem", "problem", p.String())
}

// stop ends the goroutine and waits for it.
func (a *trackedApp) stop() {
	a.cancel()
	<-a.done
}

var _ sparklog.Handler = (*trackedApp)(nil)

// logMTime is the newest modification time of a log's files.
func logMTime(l sparklog.Log) (time.Time, bool) {
	var newest time.Time
	ok := false
	for _, f := range l.Files {
		if !f.ModTime.IsZero() { // an object, as listed
			if !ok || f.ModTime.After(newest) {
				newest, ok = f.ModTime, true
			}
			continue
		}
		info, err := os.Stat(f.Path)
		if err != nil {
			continue
		}
		if m := info.ModTime(); !ok || m.After(newest) {
			newest, ok = m, true
		}
	}
	if !ok {
		if info, err := os.Stat(l.Path); err == nil {
			return info.ModTime(), true
		}
	}
	return newest, ok
}
