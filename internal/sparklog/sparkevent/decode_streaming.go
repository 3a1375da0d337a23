package sparkevent

import (
	"math"
	"slices"
	"strconv"
	"time"
)

// Structured Streaming's listener events. Spark writes them with Jackson
// straight from the event classes, so their keys are the Scala field names
// (camelCase), timestamps are ISO-8601 strings in UTC, offsets are JSON
// texts inside strings, and a rate that is not a number is the string
// "NaN" (the first batch has no input rate).
const (
	TypeStreamingQueryStarted    = "org.apache.spark.sql.streaming.StreamingQueryListener$QueryStartedEvent"
	TypeStreamingQueryProgress   = "org.apache.spark.sql.streaming.StreamingQueryListener$QueryProgressEvent"
	TypeStreamingQueryTerminated = "org.apache.spark.sql.streaming.StreamingQueryListener$QueryTerminatedEvent"
)

// StreamingQueryStarted starts one run of a streaming query. ID stays the
// same across restarts from the same checkpoint; RunID is new each time.
type StreamingQueryStarted struct {
	ID, RunID string
	Name      string // "" when the query has no name (null in the log)
	Timestamp int64  // epoch ms, 0 when absent
}

// StreamingQueryTerminated ends a run; Exception is "" when it stopped
// cleanly.
type StreamingQueryTerminated struct {
	ID, RunID string
	Exception string
}

// StreamingQueryProgress is one micro-batch's "progress" object.
// Durations are milliseconds; rates are rows per second and NaN when Spark
// had none to report.
type StreamingQueryProgress struct {
	ID, RunID string
	Name      string
	Timestamp int64 // epoch ms: when the trigger fired
	BatchID   int64
	// BatchDuration is the batch's wall time in ms (Spark 3.1+); 0 when
	// absent, then durationMs' triggerExecution is the nearest.
	BatchDuration int64
	// DurationMs are the phases of the trigger (addBatch, getBatch,
	// latestOffset, queryPlanning, walCommit, triggerExecution, …) in log
	// order.
	DurationMs []NamedValue
	// Watermark is eventTime.watermark in epoch ms, valid when HasWatermark
	// (only queries that declare a watermark report one).
	Watermark      int64
	HasWatermark   bool
	StateOperators []StateOperatorProgress
	Sources        []SourceProgress
	SinkOutputRows int64 // sink.numOutputRows; -1 when the sink cannot tell
}

// StateOperatorProgress is one stateful operator's entry of a progress.
type StateOperatorProgress struct {
	OperatorName    string // Spark 3.2+; "" before
	NumRowsTotal    int64
	NumRowsUpdated  int64
	MemoryUsedBytes int64
}

// SourceProgress is one source's entry of a progress. Offsets are kept as
// the JSON text the source wrote ("" when null); what they mean depends on
// the source (Kafka: topic → partition → offset).
type SourceProgress struct {
	Description                          string
	StartOffset, EndOffset, LatestOffset string
	NumInputRows                         int64
	InputRowsPerSecond                   float64 // NaN when absent
	ProcessedRowsPerSecond               float64 // NaN when absent
}

func (*StreamingQueryStarted) EventType() string    { return TypeStreamingQueryStarted }
func (*StreamingQueryTerminated) EventType() string { return TypeStreamingQueryTerminated }
func (*StreamingQueryProgress) EventType() string   { return TypeStreamingQueryProgress }

func (d *Decoder) streamingQueryStarted(more bool) Event {
	d.event = TypeStreamingQueryStarted
	ev := &StreamingQueryStarted{}
	for ; more; more = d.objectNext() {
		switch string(d.key) {
		case "Event":
			d.eventKey()
		case "id":
			ev.ID = d.istr()
		case "runId":
			ev.RunID = d.istr()
		case "name":
			ev.Name = d.istr()
		case "timestamp":
			ev.Timestamp = d.isoTime()
		default:
			d.skipValue()
		}
	}
	return ev
}

func (d *Decoder) streamingQueryTerminated(more bool) Event {
	d.event = TypeStreamingQueryTerminated
	ev := &StreamingQueryTerminated{}
	for ; more; more = d.objectNext() {
		switch string(d.key) {
		case "Event":
			d.eventKey()
		case "id":
			ev.ID = d.istr()
		case "runId":
			ev.RunID = d.istr()
		case "exception":
			ev.Exception = d.text()
		default:
			d.skipValue()
		}
	}
	return ev
}

func (d *Decoder) streamingQueryProgress(more bool) Event {
	d.event = TypeStreamingQueryProgress
	ev := &StreamingQueryProgress{}
	for ; more; more = d.objectNext() {
		switch string(d.key) {
		case "Event":
			d.eventKey()
		case "progress":
			*ev = StreamingQueryProgress{}
			d.progress(ev)
		default:
			d.skipValue()
		}
	}
	return ev
}

func (d *Decoder) progress(ev *StreamingQueryProgress) {
	for more := d.objectStart(); more; more = d.objectNext() {
		switch string(d.key) {
		case "id":
			ev.ID = d.istr()
		case "runId":
			ev.RunID = d.istr()
		case "name":
			ev.Name = d.istr()
		case "timestamp":
			ev.Timestamp = d.isoTime()
		case "batchId":
			ev.BatchID = d.int64()
		case "batchDuration":
			ev.BatchDuration = d.int64()
		case "durationMs":
			ev.DurationMs = d.durations()
		case "eventTime":
			ev.Watermark, ev.HasWatermark = 0, false
			for more := d.objectStart(); more; more = d.objectNext() {
				if string(d.key) != "watermark" || d.null() {
					d.skipValue()
					continue
				}
				ev.Watermark, ev.HasWatermark = d.isoTime(), true
			}
		case "stateOperators":
			ev.StateOperators = nil
			for more := d.arrayStart(); more; more = d.arrayNext() {
				ev.StateOperators = append(ev.StateOperators, d.stateOperator())
			}
		case "sources":
			ev.Sources = nil
			for more := d.arrayStart(); more; more = d.arrayNext() {
				ev.Sources = append(ev.Sources, d.sourceProgress())
			}
		case "sink":
			ev.SinkOutputRows = 0
			for more := d.objectStart(); more; more = d.objectNext() {
				if string(d.key) == "numOutputRows" {
					ev.SinkOutputRows = d.int64()
				} else {
					d.skipValue()
				}
			}
		default:
			d.skipValue()
		}
	}
}

func (d *Decoder) stateOperator() StateOperatorProgress {
	var op StateOperatorProgress
	for more := d.objectStart(); more; more = d.objectNext() {
		switch string(d.key) {
		case "operatorName":
			op.OperatorName = d.istr()
		case "numRowsTotal":
			op.NumRowsTotal = d.int64()
		case "numRowsUpdated":
			op.NumRowsUpdated = d.int64()
		case "memoryUsedBytes":
			op.MemoryUsedBytes = d.int64()
		default:
			d.skipValue()
		}
	}
	return op
}

func (d *Decoder) sourceProgress() SourceProgress {
	s := SourceProgress{InputRowsPerSecond: math.NaN(), ProcessedRowsPerSecond: math.NaN()}
	for more := d.objectStart(); more; more = d.objectNext() {
		switch string(d.key) {
		case "description":
			s.Description = d.istr()
		case "startOffset":
			s.StartOffset = d.offset()
		case "endOffset":
			s.EndOffset = d.offset()
		case "latestOffset":
			s.LatestOffset = d.offset()
		case "numInputRows":
			s.NumInputRows = d.int64()
		case "inputRowsPerSecond":
			s.InputRowsPerSecond = d.rate()
		case "processedRowsPerSecond":
			s.ProcessedRowsPerSecond = d.rate()
		default:
			d.skipValue()
		}
	}
	return s
}

// durations decodes durationMs, a phase → milliseconds object.
func (d *Decoder) durations() []NamedValue {
	var out []NamedValue
	for more := d.objectStart(); more; more = d.objectNext() {
		nv := NamedValue{Name: d.intern.get(d.key), Value: d.int64()}
		if i := slices.IndexFunc(out, func(o NamedValue) bool { return o.Name == nv.Name }); i >= 0 {
			out[i] = nv // a repeated key replaces, as in encoding/json
			continue
		}
		out = append(out, nv)
	}
	return out
}

// offset reads a source offset: a string holding the source's JSON (what
// event logs carry), or that JSON itself (other writers of progress JSON),
// kept as text. null gives "".
func (d *Decoder) offset() string {
	switch d.peek() {
	case '"':
		return d.text()
	case 'n':
		d.literal("null")
		return ""
	}
	at := d.pos
	d.skipValue()
	if d.err != nil {
		return ""
	}
	return string(d.buf[at:d.pos])
}

// rate reads a rows-per-second double: a number, or the strings Jackson
// writes for the values JSON cannot hold ("NaN", "Infinity", "-Infinity");
// all of those, and null, read as NaN (no rate).
func (d *Decoder) rate() float64 {
	switch d.peek() {
	case '"':
		at := d.pos
		switch s := d.rawString(); string(s) {
		case "NaN", "Infinity", "-Infinity":
			return math.NaN()
		default:
			if !isJSONNumber(s) {
				d.shapeErrAt(at, "number or \"NaN\"")
				return 0
			}
			f, err := strconv.ParseFloat(string(s), 64)
			if err != nil {
				d.shapeErrAt(at, "number within float64 range")
				return 0
			}
			return f
		}
	case 'n':
		d.literal("null")
		return math.NaN()
	}
	return d.float64()
}

// isoTime reads an ISO-8601 timestamp string ("2020-07-29T10:56:56.015Z",
// as Spark formats them) into epoch ms; null reads as 0. Any other text is
// a shape error naming the key.
func (d *Decoder) isoTime() int64 {
	if d.null() {
		return 0
	}
	if d.peek() != '"' {
		d.shapeErr("ISO-8601 timestamp string")
		return 0
	}
	at := d.pos
	t, err := time.Parse(time.RFC3339Nano, string(d.rawString()))
	if err != nil {
		d.shapeErrAt(at, "ISO-8601 timestamp string")
		return 0
	}
	return t.UnixMilli()
}
