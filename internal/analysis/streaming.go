package analysis

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sparkglance/sparkglance/internal/sparklog/sparkevent"
)

// Structured Streaming: one model per streaming query (its id, stable
// across restarts from the same checkpoint), fed by the query listener's
// events. Memory is bounded: at most Config.StreamingMaxQueries queries
// per application (later ones are counted in a problem) and the last
// streamingRecentBatches batches of each; everything else is running
// totals.

// ProblemTooManyQueries: an application ran more streaming queries than
// Config.StreamingMaxQueries; the extra queries are not analysed.
const ProblemTooManyQueries ProblemKind = "too-many-streaming-queries"

// ProblemBadTriggerInterval: a TriggerIntervalProperty value is no
// duration; the query is judged by its rates alone.
const ProblemBadTriggerInterval ProblemKind = "bad-trigger-interval"

// DefaultStreamingMaxQueries is Config.StreamingMaxQueries' default.
const DefaultStreamingMaxQueries = 20

// streamingRecentBatches is how many of a query's latest batches the report
// lists (the glance's chart): a day of one-minute triggers is 1440.
const streamingRecentBatches = 240

// TriggerIntervalProperty is the Spark property sparkglance reads a
// query's trigger interval from: Spark logs no query's trigger, so a job
// that wants batch durations compared with it says it at submission
// (--conf spark.sparkglance.streaming.triggerInterval=10s). A property of
// this name followed by "." and the query's name (or id) applies to that
// query only. Values are Spark durations: 500ms, 10s, 10 seconds, 1min.
const TriggerIntervalProperty = "spark.sparkglance.streaming.triggerInterval"

// Query statuses.
const (
	StreamingRunning    = "running"
	StreamingStopped    = "stopped"
	StreamingFailed     = "failed"
	StreamingNoProgress = "unknown" // batches seen without the query's start (a log cut at its start)
)

// StreamingQuery is one streaming query of the application. Durations are
// seconds, rates rows per second, times epoch ms.
type StreamingQuery struct {
	ID        string `json:"id"`
	Name      string `json:"name,omitempty"`
	RunID     string `json:"runId,omitempty"` // the latest run
	Runs      int    `json:"runs"`            // QueryStarted events seen
	Status    string `json:"status"`
	Exception string `json:"exception,omitempty"`
	Start     int64  `json:"start,omitempty"`
	// TriggerIntervalSeconds is the query's processing-time trigger, when
	// the application said it (TriggerIntervalProperty); 0 when unknown.
	TriggerIntervalSeconds float64 `json:"triggerIntervalSeconds,omitempty"`
	Batches                int64   `json:"batches"`
	InputRows              int64   `json:"inputRows"`
	BatchSeconds           float64 `json:"batchSeconds"` // sum of the batches' durations
	// PhaseSeconds sums durationMs per phase (addBatch, getBatch,
	// latestOffset, queryPlanning, walCommit, triggerExecution, …).
	PhaseSeconds map[string]float64 `json:"phaseSeconds"`
	// BehindBatches counts the batches that fell behind (processed rate
	// below the input rate, or longer than the trigger interval);
	// BehindStreak is how many of the latest ones in a row did.
	BehindBatches int64 `json:"behindBatches"`
	BehindStreak  int64 `json:"behindStreak"`
	// Streaks are the runs of at least the finding's batch count of
	// batches that fell behind, the longest first (at most a few kept).
	Streaks []BehindStreak `json:"streaks"`
	// Last is the latest batch; Recent the latest ones, oldest first.
	Last           *StreamingBatch  `json:"last,omitempty"`
	Recent         []StreamingBatch `json:"recent"`
	OmittedBatches int64            `json:"omittedBatches,omitempty"` // batches older than Recent
}

// BehindStreak is a run of consecutive batches that fell behind.
type BehindStreak struct {
	FirstBatch int64 `json:"firstBatch"`
	LastBatch  int64 `json:"lastBatch"`
	Batches    int64 `json:"batches"`
	Start      int64 `json:"start"` // the first batch's trigger time
	End        int64 `json:"end"`   // the last batch's end
	Ongoing    bool  `json:"ongoing"`
	// Worst values within the run: the lowest processed/input rate ratio
	// and the longest batch.
	MinRateRatio       *float64 `json:"minRateRatio,omitempty"`
	MaxDurationSeconds float64  `json:"maxDurationSeconds"`
}

// StreamingBatch is one micro-batch. Pointers are nil where Spark reported
// no value (no input rate for a first batch, no watermark, no latest offset).
type StreamingBatch struct {
	BatchID         int64            `json:"batchId"`
	Timestamp       int64            `json:"timestamp"`
	DurationSeconds float64          `json:"durationSeconds"`
	DurationMs      map[string]int64 `json:"durationMs,omitempty"`
	InputRows       int64            `json:"inputRows"`
	// Rates summed over the sources, as Spark sums them for the query.
	InputRowsPerSecond     *float64 `json:"inputRowsPerSecond,omitempty"`
	ProcessedRowsPerSecond *float64 `json:"processedRowsPerSecond,omitempty"`
	StateRows              int64    `json:"stateRows"`
	StateMemoryBytes       int64    `json:"stateMemoryBytes"`
	StateOperators         int      `json:"stateOperators"`
	// WatermarkLagSeconds is the trigger time minus the event-time
	// watermark: how far behind the newest data the query's state is.
	WatermarkLagSeconds *float64 `json:"watermarkLagSeconds,omitempty"`
	// OffsetLag is, over the sources whose offsets are numbers, the latest
	// available offset minus the batch's end offset (Kafka: records not
	// yet read).
	OffsetLag *float64 `json:"offsetLag,omitempty"`
	Behind    bool     `json:"behind"`
}

// maxStreaks bounds BehindStreak lists: the longest are kept.
const maxStreaks = 5

type streamingModel struct {
	queries  map[string]*StreamingQuery
	order    []string // ids, first seen first
	dropped  map[string]bool
	triggers map[string]float64 // property suffix ("" for all queries) → seconds
	// open is the streak each query is in, not yet in its Streaks.
	open map[string]*BehindStreak
}

func (a *App) streamingModel() *streamingModel {
	if a.streaming == nil {
		a.streaming = &streamingModel{queries: map[string]*StreamingQuery{}, dropped: map[string]bool{},
			triggers: map[string]float64{}, open: map[string]*BehindStreak{}}
	}
	return a.streaming
}

// streamingEnvironment picks the trigger intervals out of the Spark
// properties; a value that is no duration is a problem, not a guess.
func (a *App) streamingEnvironment(e *sparkevent.EnvironmentUpdate) {
	for k, v := range e.SparkProperties {
		suffix, ok := strings.CutPrefix(k, TriggerIntervalProperty)
		if !ok || (suffix != "" && !strings.HasPrefix(suffix, ".")) {
			continue
		}
		d, err := parseSparkDuration(v)
		if err != nil {
			a.problem(ProblemBadTriggerInterval, "Spark property %s=%q: %v; the trigger interval is ignored", k, v, err)
			continue
		}
		a.streamingModel().triggers[strings.TrimPrefix(suffix, ".")] = d.Seconds()
	}
}

// parseSparkDuration reads a duration the way Spark's time configurations
// and Trigger.ProcessingTime write them: a number and a unit (ms, s, m,
// min, h, or the words), with or without a space; a bare number is ms, as
// in Spark's time configurations.
func parseSparkDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(strings.ToLower(s))
	t = strings.TrimPrefix(t, "interval ")
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.TrimSpace(t[i:])
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) {
		return 0, errBadDuration
	}
	scale := map[string]time.Duration{
		"": time.Millisecond, "ms": time.Millisecond, "millisecond": time.Millisecond, "milliseconds": time.Millisecond,
		"s": time.Second, "sec": time.Second, "second": time.Second, "seconds": time.Second,
		"m": time.Minute, "min": time.Minute, "minute": time.Minute, "minutes": time.Minute,
		"h": time.Hour, "hour": time.Hour, "hours": time.Hour,
	}[unit]
	if scale == 0 || v*float64(scale) > float64(365*24*time.Hour) {
		return 0, errBadDuration
	}
	return time.Duration(v * float64(scale)), nil
}

type durationError struct{}

func (durationError) Error() string {
	return "not a duration such as 500ms, 10s, 10 seconds or 1min (at most a year)"
}

var errBadDuration error = durationError{}

// query returns the model of id, creating it within the bound; nil when
// the bound is reached (the first refusal of each id is a problem).
func (a *App) query(id, name string) *StreamingQuery {
	m := a.streamingModel()
	if q := m.queries[id]; q != nil {
		if name != "" {
			q.Name = name
		}
		return q
	}
	limit := a.cfg.StreamingMaxQueries
	if limit <= 0 {
		limit = DefaultStreamingMaxQueries
	}
	if len(m.order) >= limit {
		if !m.dropped[id] {
			m.dropped[id] = true
			a.problem(ProblemTooManyQueries, "streaming query %s (%q): more than %d queries in this application; it is not analysed (--streaming.max-queries)", id, name, limit)
		}
		return nil
	}
	q := &StreamingQuery{ID: id, Name: name, Status: StreamingNoProgress, PhaseSeconds: map[string]float64{}}
	m.queries[id] = q
	m.order = append(m.order, id)
	return q
}

func (a *App) streamingEvent(ev sparkevent.Event) {
	switch e := ev.(type) {
	case *sparkevent.StreamingQueryStarted:
		a.seen(e.Timestamp)
		if q := a.query(e.ID, e.Name); q != nil {
			q.RunID, q.Status, q.Exception = e.RunID, StreamingRunning, ""
			q.Runs++
			if q.Start == 0 {
				q.Start = e.Timestamp
			}
			a.closeStreak(q)
			q.BehindStreak = 0
		}
	case *sparkevent.StreamingQueryTerminated:
		if q := a.query(e.ID, ""); q != nil {
			q.Status, q.Exception = StreamingStopped, e.Exception
			if e.Exception != "" {
				q.Status = StreamingFailed
			}
			a.closeStreak(q)
		}
	case *sparkevent.StreamingQueryProgress:
		a.seen(e.Timestamp)
		if q := a.query(e.ID, e.Name); q != nil {
			if q.Status == StreamingNoProgress || q.Status == "" {
				q.Status = StreamingRunning
			}
			if q.RunID == "" {
				q.RunID = e.RunID
			}
			b := a.batch(q, e)
			if end := e.Timestamp + int64(b.DurationSeconds*1e3); e.Timestamp > 0 {
				a.seen(end)
			}
			a.addBatch(q, b)
		}
	}
}

// batch turns a progress event into a batch, deciding whether it fell
// behind.
func (a *App) batch(q *StreamingQuery, e *sparkevent.StreamingQueryProgress) StreamingBatch {
	b := StreamingBatch{BatchID: e.BatchID, Timestamp: e.Timestamp}
	if len(e.DurationMs) > 0 {
		b.DurationMs = make(map[string]int64, len(e.DurationMs))
	}
	for _, nv := range e.DurationMs {
		b.DurationMs[nv.Name] = nv.Value
	}
	// batchDuration (Spark 3.1+), else the trigger's whole execution.
	ms := e.BatchDuration
	if ms <= 0 {
		ms = b.DurationMs["triggerExecution"]
	}
	b.DurationSeconds = float64(max(ms, 0)) / 1e3
	var in, processed float64
	inKnown, processedKnown := false, false
	var lag float64
	lagKnown := false
	for _, s := range e.Sources {
		b.InputRows += max(s.NumInputRows, 0)
		if !math.IsNaN(s.InputRowsPerSecond) {
			in, inKnown = in+s.InputRowsPerSecond, true
		}
		if !math.IsNaN(s.ProcessedRowsPerSecond) {
			processed, processedKnown = processed+s.ProcessedRowsPerSecond, true
		}
		if l, ok := offsetLag(s.EndOffset, s.LatestOffset); ok {
			lag, lagKnown = lag+l, true
		}
	}
	if inKnown {
		b.InputRowsPerSecond = &in
	}
	if processedKnown {
		b.ProcessedRowsPerSecond = &processed
	}
	if lagKnown {
		b.OffsetLag = &lag
	}
	for _, op := range e.StateOperators {
		b.StateRows += op.NumRowsTotal
		b.StateMemoryBytes += op.MemoryUsedBytes
		b.StateOperators++
	}
	// A watermark at the epoch is Spark's "none yet" (before the first
	// batch with event times).
	if e.HasWatermark && e.Watermark > 0 && e.Timestamp > 0 {
		l := float64(e.Timestamp-e.Watermark) / 1e3
		b.WatermarkLagSeconds = &l
	}
	q.TriggerIntervalSeconds = a.triggerInterval(q)
	slowRate := inKnown && processedKnown && in > 0 && processed < in
	slowBatch := q.TriggerIntervalSeconds > 0 && b.DurationSeconds > q.TriggerIntervalSeconds
	b.Behind = slowRate || slowBatch
	return b
}

// triggerInterval is the query's own property (by name, then id), else
// the application-wide one, else 0.
func (a *App) triggerInterval(q *StreamingQuery) float64 {
	t := a.streamingModel().triggers
	if v, ok := t[q.Name]; ok && q.Name != "" {
		return v
	}
	if v, ok := t[q.ID]; ok {
		return v
	}
	return t[""]
}

func (a *App) addBatch(q *StreamingQuery, b StreamingBatch) {
	q.Batches++
	q.InputRows += b.InputRows
	q.BatchSeconds += b.DurationSeconds
	for k, v := range b.DurationMs {
		q.PhaseSeconds[k] += float64(max(v, 0)) / 1e3
	}
	m := a.streamingModel()
	if b.Behind {
		q.BehindBatches++
		q.BehindStreak++
		s := m.open[q.ID]
		if s == nil {
			s = &BehindStreak{FirstBatch: b.BatchID, Start: b.Timestamp}
			m.open[q.ID] = s
		}
		s.LastBatch, s.Batches = b.BatchID, s.Batches+1
		s.End = b.Timestamp + int64(b.DurationSeconds*1e3)
		s.MaxDurationSeconds = max(s.MaxDurationSeconds, b.DurationSeconds)
		if b.InputRowsPerSecond != nil && b.ProcessedRowsPerSecond != nil && *b.InputRowsPerSecond > 0 {
			// A new value each time: reports share the old one.
			r := *b.ProcessedRowsPerSecond / *b.InputRowsPerSecond
			if s.MinRateRatio != nil {
				r = min(r, *s.MinRateRatio)
			}
			s.MinRateRatio = &r
		}
	} else {
		q.BehindStreak = 0
		a.closeStreak(q)
	}
	bb := b
	q.Last = &bb
	if len(q.Recent) >= streamingRecentBatches {
		copy(q.Recent, q.Recent[1:])
		q.Recent = q.Recent[:len(q.Recent)-1]
		q.OmittedBatches++
	}
	q.Recent = append(q.Recent, b)
}

// closeStreak files q's open streak among its Streaks when it is long
// enough to matter (the finding's batch count), keeping the longest.
func (a *App) closeStreak(q *StreamingQuery) {
	m := a.streamingModel()
	s := m.open[q.ID]
	if s == nil {
		return
	}
	delete(m.open, q.ID)
	if s.Batches >= int64(a.cfg.Thresholds.StreamingBehindBatches) {
		q.Streaks = fileStreak(q.Streaks, *s)
	}
}

func fileStreak(list []BehindStreak, s BehindStreak) []BehindStreak {
	list = append(list, s)
	slices.SortStableFunc(list, func(x, y BehindStreak) int {
		if x.Batches != y.Batches {
			return int(y.Batches - x.Batches)
		}
		return int(x.FirstBatch - y.FirstBatch)
	})
	return list[:min(len(list), maxStreaks)]
}

// offsetLag is latest − end summed over the numbers both offsets hold at
// the same place (Kafka: topic → partition → offset). ok is false when
// either is absent or they share no number.
func offsetLag(end, latest string) (float64, bool) {
	if end == "" || latest == "" {
		return 0, false
	}
	e, l := map[string]float64{}, map[string]float64{}
	if !numericLeaves(end, e) || !numericLeaves(latest, l) {
		return 0, false
	}
	sum, any := 0.0, false
	for k, lv := range l {
		if ev, ok := e[k]; ok {
			sum += lv - ev
			any = true
		}
	}
	return sum, any
}

// numericLeaves flattens a JSON text's numbers into path → value.
func numericLeaves(text string, out map[string]float64) bool {
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return false
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				walk(path+"/"+k, c)
			}
		case []any:
			for i, c := range x {
				walk(path+"/"+strconv.Itoa(i), c)
			}
		case json.Number:
			if f, err := x.Float64(); err == nil {
				out[path] = f
			}
		}
	}
	walk("", v)
	return len(out) > 0
}

// streamingReport copies the queries, first seen first, with their open
// streaks filed as ongoing.
func (a *App) streamingReport() []StreamingQuery {
	out := []StreamingQuery{}
	m := a.streaming
	if m == nil {
		return out
	}
	for _, id := range m.order {
		q := *m.queries[id]
		q.PhaseSeconds = maps.Clone(q.PhaseSeconds)
		q.Streaks = slices.Clone(q.Streaks)
		if s := m.open[id]; s != nil && s.Batches >= int64(a.cfg.Thresholds.StreamingBehindBatches) {
			o := *s
			o.Ongoing = true
			q.Streaks = fileStreak(q.Streaks, o)
		}
		if q.Streaks == nil {
			q.Streaks = []BehindStreak{}
		}
		q.Recent = slices.Clone(q.Recent)
		for i := range q.Recent {
			q.Recent[i] = q.Recent[i].clone()
		}
		if q.Recent == nil {
			q.Recent = []StreamingBatch{}
		}
		if q.Last != nil {
			l := q.Last.clone()
			q.Last = &l
		}
		out = append(out, q)
	}
	return out
}

func (b StreamingBatch) clone() StreamingBatch {
	b.DurationMs = maps.Clone(b.DurationMs)
	for _, p := range []**float64{&b.InputRowsPerSecond, &b.ProcessedRowsPerSecond, &b.WatermarkLagSeconds, &b.OffsetLag} {
		if *p != nil {
			v := **p
			*p = &v
		}
	}
	return b
}

// streamingFindings reports every kept streak of at least the threshold's
// batches (an ongoing one included).
func streamingFindings(r *Report, th Thresholds) []Finding {
	var out []Finding
	for _, q := range r.Streaming {
		for _, s := range q.Streaks {
			if s.Batches < int64(max(th.StreamingBehindBatches, 1)) {
				continue
			}
			n := map[string]float64{"batches": float64(s.Batches), "firstBatch": float64(s.FirstBatch),
				"lastBatch": float64(s.LastBatch), "maxBatchSeconds": s.MaxDurationSeconds}
			if s.MinRateRatio != nil {
				n["minProcessedToInputRatio"] = *s.MinRateRatio
			}
			if q.TriggerIntervalSeconds > 0 {
				n["triggerIntervalSeconds"] = q.TriggerIntervalSeconds
			}
			if s.Ongoing {
				n["ongoing"] = 1
			}
			out = append(out, Finding{QueryID: q.ID, QueryName: q.Name, Start: s.Start, End: s.End, Numbers: n})
		}
	}
	return out
}
