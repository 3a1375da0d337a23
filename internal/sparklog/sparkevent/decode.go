package sparkevent

import (
	"bytes"
	"sync"
)

// DecodeLine decodes one event-log line (without its trailing newline;
// trailing '\r' and spaces are allowed) into a typed event. Lines of types
// the analysis does not need become *Other. The returned event does not
// alias line. Errors are *DecodeError values giving the byte column.
//
// Rules, chosen to fit what Spark's JsonProtocol writes:
//   - unknown keys are skipped (new Spark versions add keys), but a known
//     key holding the wrong JSON type is an error, never a silent zero;
//   - null reads as absent for every known key (Spark omits absent values);
//   - integer fields also take a string holding a decimal integer (old
//     logs quote some numbers); fractions and out-of-range values are
//     errors. Accumulable values take any JSON (see Accumulable);
//   - a repeated key replaces the earlier value, as in encoding/json,
//     except "Event": a second one is an error;
//   - empty or absent lists and maps decode as nil;
//   - strings are copied byte for byte without checking UTF-8 (logs before
//     Spark 3.0 used the driver's charset); a lone \u surrogate becomes
//     U+FFFD;
//   - nesting deeper than 1000 levels is an error (Jackson's own limit).
//
// It is safe for concurrent use; a goroutine decoding a whole log saves a
// little by keeping its own Decoder.
func DecodeLine(line []byte) (Event, error) {
	return decodePooled(line, false)
}

// DecodeLineSQLUpdates decodes like DecodeLine but gives every Accumulables
// list as its SQL updates (see Decoder.SQLUpdatesOnly).
func DecodeLineSQLUpdates(line []byte) (Event, error) {
	return decodePooled(line, true)
}

// decodePooled decodes line on a pooled Decoder, giving Accumulables lists
// as their SQL updates if sqlOnly.
func decodePooled(line []byte, sqlOnly bool) (Event, error) {
	d := decoderPool.Get().(*Decoder)
	d.SQLUpdatesOnly = sqlOnly
	ev, err := d.Decode(line)
	decoderPool.Put(d)
	return ev, err
}

var decoderPool = sync.Pool{New: func() any { return NewDecoder() }}

// Decoder decodes event-log lines, reusing its scratch space and string
// table across lines. Its memory is bounded whatever the log's size. A
// Decoder must not be used by two goroutines at once.
type Decoder struct {
	scanner
	intern *internTable
	// accNames caches accumulator names by ID (see accumulableFast).
	accNames *[accNameSlots]accName
	// accShapes are the entries of the last Accumulables list (accShape).
	accShapes []accShape
	// repeats are the task sub-objects last decoded (see repeat).
	repeats struct {
		endReason       repeat[TaskEndReason]
		executorMetrics repeat[[]NamedValue]
		shuffleRead     repeat[ShuffleReadMetrics]
		shuffleWrite    repeat[ShuffleWriteMetrics]
		input           repeat[InputMetrics]
		output          repeat[OutputMetrics]
	}
	// orders predict the keys of the objects every task line repeats.
	orders struct {
		taskEnd, taskStart, taskInfo, taskMetrics, endReason   keyOrder
		shuffleRead, shuffleWrite, inputMetrics, outputMetrics keyOrder
	}
	// eventAt is where the value of the "Event" key read by the slow path
	// starts, -1 on the fast path; any other "Event" key is a duplicate.
	eventAt int
	accs    []Accumulable // scratch for Accumulables lists
	updates []SQLUpdate   // scratch for them as SQL updates
	named   []NamedValue  // scratch for metric maps
	// lastNames are the distinct names of the last metric map, in order.
	lastNames []string
	// planNodes counts the plan nodes built for the current line.
	planNodes int
	// SQLUpdatesOnly gives Accumulables lists as their SQL updates
	// (sparklog.Options.SQLUpdatesOnly says why).
	SQLUpdatesOnly bool
}

// NewDecoder returns a Decoder with an empty string table.
func NewDecoder() *Decoder {
	return &Decoder{intern: newInternTable(), accNames: new([accNameSlots]accName)}
}

// scratchLimit caps the scratch kept between lines (in elements), so one
// huge line does not pin its buffers for the life of the decoder.
const scratchLimit = 1 << 16

// eventPrefix is how Spark starts every line: the type comes first.
var eventPrefix = []byte(`{"Event":"`)

// Decode decodes one line like DecodeLine.
//
// The type is read first; for *Other the rest of the line is still
// validated (skipped without building anything), so a corrupt line of an
// untyped event is reported rather than counted. Validating runs at about
// 1.4 GB/s, and untyped events are a small share of a log's bytes.
func (d *Decoder) Decode(line []byte) (Event, error) {
	d.reset(line)
	d.planNodes = 0
	var typ []byte
	var more bool
	d.eventAt = -1
	if bytes.HasPrefix(line, eventPrefix) {
		d.pos = len(eventPrefix) - 1
		d.depth = 1
		d.containers[0] = 1
		typ = d.rawString()
		more = d.objectNext()
	} else {
		typ = d.findEventType()
		if d.err != nil {
			return nil, d.finish()
		}
		// Decode from the start; the decoders skip the "Event" key.
		d.pos, d.depth = 0, 0
		d.ws()
		more = d.objectStart()
	}
	ev := d.decodeTyped(typ, more)
	if d.err != nil {
		return nil, d.finish()
	}
	d.end()
	if err := d.finish(); err != nil {
		return nil, err
	}
	return ev, nil
}

// findEventType scans the top-level object for the "Event" key, validating
// every member; it is the slow path for lines that do not start with it.
func (d *Decoder) findEventType() []byte {
	if d.peek() != '{' {
		d.syntaxErr(", expected '{' starting an event object")
		return nil
	}
	var typ []byte
	found := false
	for more := d.objectStart(); more; more = d.objectNext() {
		if string(d.key) != "Event" {
			d.skipValue()
			continue
		}
		if found {
			d.eventKey()
			return nil
		}
		d.eventAt = d.pos
		if d.peek() != '"' {
			d.shapeErr("string")
			return nil
		}
		// Copy: the bytes may live in strBuf, reused by later strings.
		typ = append(typ[:0], d.rawString()...)
		found = true
	}
	d.end()
	if d.err == nil && !found {
		d.fail(0, false, `no "Event" key in the JSON object`)
	}
	return typ
}

// decodeTyped dispatches on the event type. more reports whether the
// top-level object has members left to read.
func (d *Decoder) decodeTyped(typ []byte, more bool) Event {
	switch string(typ) {
	case TypeTaskEnd:
		return d.taskEnd(more)
	case TypeTaskStart:
		return d.taskStart(more)
	case TypeStageSubmitted:
		return d.stageSubmitted(more)
	case TypeStageCompleted:
		return d.stageCompleted(more)
	case TypeJobStart:
		return d.jobStart(more)
	case TypeJobEnd:
		return d.jobEnd(more)
	case TypeStageExecutorMetrics:
		return d.stageExecutorMetrics(more)
	case TypeExecutorAdded:
		return d.executorAdded(more)
	case TypeExecutorRemoved:
		return d.executorRemoved(more)
	case TypeBlockManagerAdded:
		return d.blockManagerAdded(more)
	case TypeBlockManagerRemoved:
		return d.blockManagerRemoved(more)
	case TypeLogStart:
		return d.logStart(more)
	case TypeDatabricksMetadata:
		return d.databricksMetadata(more)
	case TypeApplicationStart:
		return d.applicationStart(more)
	case TypeApplicationEnd:
		return d.applicationEnd(more)
	case TypeEnvironmentUpdate:
		return d.environmentUpdate(more)
	case TypeResourceProfileAdded:
		return d.resourceProfileAdded(more)
	case TypeSQLExecutionStart:
		return d.sqlExecutionStart(more)
	case TypeSQLExecutionEnd:
		return d.sqlExecutionEnd(more)
	case TypeSQLAdaptiveExecutionUpdate:
		return d.sqlAdaptiveExecutionUpdate(more)
	case TypeDriverAccumUpdates:
		return d.driverAccumUpdates(more)
	case TypeExecutorExcludedForStage, TypeExecutorBlacklistedForStage:
		return d.executorExcludedForStage(more, string(typ) == TypeExecutorBlacklistedForStage)
	case TypeNodeExcludedForStage, TypeNodeBlacklistedForStage:
		return d.nodeExcludedForStage(more, string(typ) == TypeNodeBlacklistedForStage)
	case TypeStreamingQueryProgress:
		return d.streamingQueryProgress(more)
	case TypeStreamingQueryStarted:
		return d.streamingQueryStarted(more)
	case TypeStreamingQueryTerminated:
		return d.streamingQueryTerminated(more)
	}
	ev := &Other{Type: d.intern.get(typ)}
	for ; more; more = d.objectNext() {
		if string(d.key) == "Event" {
			d.eventKey()
		} else {
			d.skipValue()
		}
	}
	return ev
}

// eventKey handles an "Event" key met at the top level: the slow path
// meets again the one it read first; any other is a second, conflicting
// type, which is an error.
func (d *Decoder) eventKey() {
	if d.pos != d.eventAt {
		d.fail(d.pos, false, `duplicate "Event" key`)
		return
	}
	d.skipValue()
}

// finish returns the error, if any, and trims scratch grown by a huge line.
func (d *Decoder) finish() error {
	if cap(d.accs) > scratchLimit {
		d.accs = nil
	}
	if cap(d.named) > scratchLimit {
		d.named = nil
	}
	if cap(d.updates) > scratchLimit {
		d.updates = nil
	}
	if cap(d.strBuf) > scratchLimit*16 {
		d.strBuf = nil
	}
	if cap(d.keyBuf) > scratchLimit {
		d.keyBuf = nil
	}
	d.buf, d.key = nil, nil // do not pin the caller's buffer
	if d.err != nil {
		return d.err
	}
	return nil
}

// istr reads a string value through the intern table.
func (d *Decoder) istr() string { return d.intern.get(d.str()) }

// text reads a string value that is rarely repeated (descriptions, plans).
func (d *Decoder) text() string { return string(d.str()) }
