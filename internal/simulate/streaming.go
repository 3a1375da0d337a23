package simulate

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// Streaming mode: Config.StreamingBatches > 0 adds two Structured
// Streaming queries after the batch scenario, as Spark's query listener
// logs them (QueryStarted, one QueryProgress per micro-batch,
// QueryTerminated when the application finishes):
//
//   - "orders_enriched" falls behind: from its fourth batch on, it
//     processes rows slower than they arrive and its batches outlast the
//     5 s trigger, so its Kafka backlog and watermark lag grow;
//   - "clicks_per_minute" keeps up: short batches, processing faster than
//     the input arrives, a steady watermark lag and state.
//
// The trigger interval is written as sparkglance's Spark property (Spark
// logs no query's trigger), so batch durations can be judged against it.

// MaxStreamingBatches bounds Config.StreamingBatches.
const MaxStreamingBatches = 100_000

// StreamingTrigger is the simulated queries' processing-time trigger.
const StreamingTrigger = 5 * time.Second

// Names and ids of the simulated queries.
const (
	StreamingSlowQuery    = "orders_enriched"
	StreamingHealthyQuery = "clicks_per_minute"
	streamingSlowID       = "5f1c2e7a-0d4b-4e8e-9a31-6c0b7e2d9f10"
	streamingHealthyID    = "a93d6b0e-27c4-4f55-8e0a-1d2f3c4b5a60"
)

// streamingBehindFrom is the first batch of the slow query that falls
// behind.
const streamingBehindFrom = 3

// streamingProperty is the Spark property naming the trigger interval
// (analysis.TriggerIntervalProperty, spelled out: simulate does not
// depend on the analysis).
const streamingProperty = `"spark.sparkglance.streaming.triggerInterval":"5s"`

type streamQuery struct {
	id, name, run, topic string
	offset               int64 // Kafka end offset of partition 0 so far
	latest               int64 // newest offset available in the topic
	next                 int64 // when the next batch may start (epoch ms)
	stateRows            int64
}

// streaming writes the two queries' events after the batch jobs,
// interleaved in time order.
func (s *writer) streaming() {
	n := s.cfg.StreamingBatches
	if n <= 0 {
		return
	}
	qs := s.startQueries(s.now + 1000)
	trigger := StreamingTrigger.Milliseconds()
	for b := range n {
		s.batch(qs[0], int64(b), trigger, b >= streamingBehindFrom, s.rng)
		s.batch(qs[1], int64(b), trigger, false, s.rng)
	}
	s.terminateQueries(qs)
	s.settle()
}

// startQueries queues the two queries' start events from start on.
func (s *writer) startQueries(start int64) []*streamQuery {
	qs := []*streamQuery{
		{id: streamingSlowID, name: StreamingSlowQuery, run: "0b6a8f52-3c1e-4d7a-b9e0-5a4c3d2e1f00", topic: "orders", offset: 1_000_000, latest: 1_000_000},
		{id: streamingHealthyID, name: StreamingHealthyQuery, run: "7c8d9e0f-1a2b-4c3d-8e4f-5a6b7c8d9e01", topic: "clicks", offset: 5_000_000, latest: 5_000_000},
	}
	for i, q := range qs {
		at := start + int64(i)*300
		q.next = at + 200
		s.queueStreaming(at, fmt.Sprintf(`{"Event":"org.apache.spark.sql.streaming.StreamingQueryListener$QueryStartedEvent","id":%q,"runId":%q,"name":%q,"timestamp":%q}`,
			q.id, q.run, q.name, isoMillis(at)))
	}
	return qs
}

// terminateQueries queues the queries' ends, after their last batch, when
// the application finishes.
func (s *writer) terminateQueries(qs []*streamQuery) {
	if s.cfg.Live {
		return
	}
	for _, q := range qs {
		s.queueStreaming(q.next, fmt.Sprintf(`{"Event":"org.apache.spark.sql.streaming.StreamingQueryListener$QueryTerminatedEvent","id":%q,"runId":%q,"exception":null}`, q.id, q.run))
	}
}

// queueStreaming queues a query listener event for emit to write in time
// order, marked as running beside the batch jobs when it does.
func (s *writer) queueStreaming(at int64, line string) {
	s.pending = append(s.pending, event{time: at, seq: s.seq, line: line, beside: s.stream != nil})
	s.seq++
}

// alongside is the state of the streaming queries running beside the
// batch jobs (Config.StreamingAlongside). Their batches are made as the
// writer's clock reaches them, with a random source of their own, so the
// batch jobs draw the same numbers as without them.
type alongside struct {
	qs      []*streamQuery
	batches []int // batches queued so far, per query
	rng     *rand.Rand
	ended   bool // the batch jobs ended: no more batches
}

// startAlongside starts the queries a second after the executors.
func (s *writer) startAlongside() {
	if s.cfg.StreamingBatches <= 0 {
		return
	}
	seed := s.cfg.Seed ^ 0x57ea
	s.stream = &alongside{rng: rand.New(rand.NewPCG(seed, seed^0x5eed))}
	s.stream.qs = s.startQueries(s.now + 1000)
	s.stream.batches = make([]int, len(s.stream.qs))
}

// streamUntil queues the batches of the queries beside the jobs that are
// triggered by until.
func (s *writer) streamUntil(until int64) {
	st := s.stream
	if st == nil || st.ended {
		return
	}
	for i, q := range st.qs {
		for q.next <= until {
			s.nextBatch(i)
		}
	}
}

// nextBatch queues the next batch of the i-th query beside the jobs; the
// first (the slow one) falls behind from streamingBehindFrom on.
func (s *writer) nextBatch(i int) {
	st := s.stream
	b := st.batches[i]
	s.batch(st.qs[i], int64(b), StreamingTrigger.Milliseconds(), i == 0 && b >= streamingBehindFrom, st.rng)
	st.batches[i]++
}

// endAlongside ends the queries with the batch jobs, once each ran
// StreamingBatches batches, and writes what is queued.
func (s *writer) endAlongside() {
	st := s.stream
	for i := range st.qs {
		for st.batches[i] < s.cfg.StreamingBatches {
			s.nextBatch(i)
		}
	}
	st.ended = true
	s.terminateQueries(st.qs)
	for _, e := range s.pending {
		s.now = max(s.now, e.time)
	}
	s.emitPending(s.now)
}

// batch queues one micro-batch of q. A processing-time trigger starts a
// batch at the next multiple of the interval, or at once when the last
// one overran it; the progress event is posted when the batch ends.
func (s *writer) batch(q *streamQuery, id, trigger int64, behind bool, rng *rand.Rand) {
	at := q.next
	// Rows arrive at about 200/s (orders) or 1000/s (clicks), jittered.
	inRate := 200.0
	if q.name == StreamingHealthyQuery {
		inRate = 1000
	}
	inRate *= 0.9 + 0.2*rng.Float64()
	var dur int64
	var rows int64
	switch {
	case behind:
		// Slower than the input: a batch takes ~1.5 triggers and reads a
		// capped amount (maxOffsetsPerTrigger), so the backlog grows.
		dur = trigger*3/2 + rng.Int64N(1500)
		rows = 900 + rng.Int64N(100)
	case q.name == StreamingSlowQuery:
		dur = 1800 + rng.Int64N(600)
		rows = int64(inRate * float64(trigger) / 1e3)
	default:
		dur = 800 + rng.Int64N(400)
		rows = int64(inRate * float64(trigger) / 1e3)
	}
	// Offsets: what arrived since the previous batch started is available;
	// the batch reads rows of it.
	q.latest += int64(inRate * float64(max(dur, trigger)) / 1e3)
	startOffset := q.offset
	q.offset = min(q.offset+rows, q.latest)
	rows = q.offset - startOffset
	processed := float64(rows) / (float64(dur) / 1e3)
	q.stateRows += rows / 10
	addBatch := dur * 7 / 10
	latestOffset := dur / 20
	planning := dur / 20
	walCommit := dur / 10
	getBatch := dur - addBatch - latestOffset - planning - walCommit - 5
	// Event time runs a little behind the trigger; the watermark (10 s
	// delay) lags by the backlog's age when the query falls behind.
	lagMs := int64(10_000)
	if behind {
		lagMs += (q.latest - q.offset) * 1000 / int64(max(inRate, 1))
	}
	startOffsetText := "null"
	if id > 0 {
		startOffsetText = offsetJSON(q.topic, startOffset)
	}
	inRateText := "\"NaN\""
	if id > 0 {
		inRateText = strconv.FormatFloat(inRate, 'g', -1, 64)
	}
	line := fmt.Sprintf(`{"Event":"org.apache.spark.sql.streaming.StreamingQueryListener$QueryProgressEvent","progress":{"id":%q,"runId":%q,"name":%q,"timestamp":%q,"batchId":%d,"batchDuration":%d,`+
		`"durationMs":{"triggerExecution":%d,"queryPlanning":%d,"getBatch":%d,"latestOffset":%d,"addBatch":%d,"walCommit":%d},`+
		`"eventTime":{"avg":%q,"max":%q,"min":%q,"watermark":%q},`+
		`"stateOperators":[{"operatorName":"stateStoreSave","numRowsTotal":%d,"numRowsUpdated":%d,"allUpdatesTimeMs":%d,"numRowsRemoved":0,"allRemovalsTimeMs":0,"commitTimeMs":%d,"memoryUsedBytes":%d,"numRowsDroppedByWatermark":0,"numShufflePartitions":200,"numStateStoreInstances":200,"customMetrics":{}}],`+
		`"sources":[{"description":"KafkaV2[Subscribe[%s]]","startOffset":%s,"endOffset":%s,"latestOffset":%s,"numInputRows":%d,"inputRowsPerSecond":%s,"processedRowsPerSecond":%s,"metrics":{}}],`+
		`"sink":{"description":"DeltaSink[s3://warehouse/%s]","numOutputRows":%d},"observedMetrics":{}}}`,
		streamingIDs[q.name], q.run, q.name, isoMillis(at), id, dur,
		dur, planning, getBatch, latestOffset, addBatch, walCommit,
		isoMillis(at-lagMs/2), isoMillis(at-2000), isoMillis(at-lagMs), isoMillis(at-lagMs),
		q.stateRows, rows/10, addBatch/4, walCommit/2, 4096+q.stateRows*120,
		q.topic, startOffsetText, offsetJSON(q.topic, q.offset), offsetJSON(q.topic, q.latest), rows, inRateText,
		strconv.FormatFloat(processed, 'g', -1, 64), q.topic, rows)
	s.queueStreaming(at+dur, line)
	// The next trigger: the next multiple of the interval after the start,
	// or at once after an overrun.
	q.next = max(at+trigger, at+dur+10)
}

var streamingIDs = map[string]string{StreamingSlowQuery: streamingSlowID, StreamingHealthyQuery: streamingHealthyID}

// offsetJSON is a Kafka offset as the source writes it, inside a string.
func offsetJSON(topic string, offset int64) string {
	return strconv.Quote(fmt.Sprintf(`{"%s":{"0":%d}}`, topic, offset))
}

// isoMillis formats epoch ms as Spark's progress timestamps.
func isoMillis(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}

// streamingEvent tells whether a line is a query listener event, which
// Spark's event logger flushes after (as every "other" event).
func streamingEvent(line string) bool {
	return strings.HasPrefix(line, `{"Event":"org.apache.spark.sql.streaming.StreamingQueryListener$`)
}

// streamingProperties adds the trigger interval to the Spark properties of
// a streaming application.
func (s *writer) streamingProperties() string {
	if s.cfg.StreamingBatches <= 0 {
		return ""
	}
	return "," + streamingProperty
}
