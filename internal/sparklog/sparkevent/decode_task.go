package sparkevent

// taskEndAlloc puts a TaskEnd and its metrics in one allocation: nearly
// every TaskEnd has metrics, and TaskEnd is most of a log's lines.
type taskEndAlloc struct {
	ev TaskEnd
	m  TaskMetrics
}

func (d *Decoder) taskEnd(more bool) Event {
	d.event = TypeTaskEnd
	a := &taskEndAlloc{}
	ev := &a.ev
	ev.Task.PartitionID = -1
	d.orders.taskEnd.at = 1 // the key Decode read is not predicted
	for ; more; more = d.objectNextAs(&d.orders.taskEnd) {
		switch string(d.key) {
		case "Event":
			d.eventKey()
		case "Stage ID":
			ev.StageID = d.int()
		case "Stage Attempt ID":
			ev.StageAttemptID = d.int()
		case "Task Type":
			ev.TaskType = d.istr()
		case "Task End Reason":
			decodeRepeated(d, &d.repeats.endReason, &ev.Reason, (*Decoder).taskEndReason)
		case "Task Info":
			d.taskInfo(&ev.Task)
		case "Task Executor Metrics":
			// A repeat shares the last TaskEnd's slice: events are read-only.
			decodeRepeated(d, &d.repeats.executorMetrics, &ev.ExecutorMetrics, (*Decoder).namedValuesInto)
		case "Task Metrics":
			if d.null() {
				ev.Metrics = nil
				continue
			}
			ev.Metrics = &a.m
			d.taskMetrics(ev.Metrics)
		default:
			d.skipValue()
		}
	}
	return ev
}

func (d *Decoder) taskStart(more bool) Event {
	d.event = TypeTaskStart
	ev := &TaskStart{}
	ev.Task.PartitionID = -1
	d.orders.taskStart.at = 1 // the key Decode read is not predicted
	for ; more; more = d.objectNextAs(&d.orders.taskStart) {
		switch string(d.key) {
		case "Event":
			d.eventKey()
		case "Stage ID":
			ev.StageID = d.int()
		case "Stage Attempt ID":
			ev.StageAttemptID = d.int()
		case "Task Info":
			d.taskInfo(&ev.Task)
		default:
			d.skipValue()
		}
	}
	return ev
}

func (d *Decoder) taskEndReason(r *TaskEndReason) {
	*r = TaskEndReason{} // a repeated key replaces, as in encoding/json
	for more := d.objectStartAs(&d.orders.endReason); more; more = d.objectNextAs(&d.orders.endReason) {
		switch string(d.key) {
		case "Reason":
			r.Reason = d.istr()
		case "Class Name":
			r.ClassName = d.istr()
		case "Description":
			r.Description = d.text()
		case "Kill Reason":
			r.KillReason = d.text()
		default:
			d.skipValue()
		}
	}
}

// taskInfo decodes "Task Info".
func (d *Decoder) taskInfo(t *TaskInfo) {
	*t = TaskInfo{PartitionID: -1}
	for more := d.objectStartAs(&d.orders.taskInfo); more; more = d.objectNextAs(&d.orders.taskInfo) {
		switch string(d.key) {
		case "Task ID":
			t.TaskID = d.int64()
		case "Index":
			t.Index = d.int()
		case "Attempt":
			t.Attempt = d.int()
		case "Partition ID":
			if !d.null() {
				t.PartitionID = d.int()
			}
		case "Launch Time":
			t.LaunchTime = d.int64()
		case "Executor ID":
			t.ExecutorID = d.istr()
		case "Host":
			t.Host = d.istr()
		case "Locality":
			t.Locality = d.istr()
		case "Speculative":
			t.Speculative = d.boolean()
		case "Getting Result Time":
			t.GettingResultTime = d.int64()
		case "Finish Time":
			t.FinishTime = d.int64()
		case "Failed":
			t.Failed = d.boolean()
		case "Killed":
			t.Killed = d.boolean()
		case "Accumulables":
			t.Accumulables, t.SQLUpdates = d.accumulables()
		default:
			d.skipValue()
		}
	}
}

// accumulables decodes a list into scratch, then copies it out at its exact
// length: one allocation per list. With SQLUpdatesOnly the list is given
// as its SQL updates instead.
func (d *Decoder) accumulables() ([]Accumulable, []SQLUpdate) {
	more := d.arrayStart()
	if !more {
		return nil, nil
	}
	if d.SQLUpdatesOnly {
		return nil, d.sqlUpdates(more)
	}
	start := len(d.accs)
	for k := 0; more; more, k = d.arrayNext(), k+1 {
		d.accs = append(d.accs, Accumulable{})
		d.accumulableAt(k, &d.accs[len(d.accs)-1])
	}
	out := make([]Accumulable, len(d.accs)-start)
	copy(out, d.accs[start:])
	d.accs = d.accs[:start]
	return out, nil
}

// sqlUpdates decodes the rest of a list whose first entry is at the
// cursor, keeping the SQL updates of its entries.
func (d *Decoder) sqlUpdates(more bool) []SQLUpdate {
	start := len(d.updates)
	for k := 0; more; more, k = d.arrayNext(), k+1 {
		var a Accumulable
		d.accumulableAt(k, &a)
		if u, ok := a.SQLUpdate(); ok {
			d.updates = append(d.updates, u)
		}
	}
	if len(d.updates) == start {
		return nil
	}
	out := make([]SQLUpdate, len(d.updates)-start)
	copy(out, d.updates[start:])
	d.updates = d.updates[:start]
	return out
}

func (d *Decoder) accumulable(a *Accumulable) {
	var updNum, valNum, hasVal bool
	for more := d.objectStart(); more; more = d.objectNext() {
		switch string(d.key) {
		case "ID":
			a.ID = d.int64()
		case "Name":
			a.Name = d.istr()
		case "Update":
			a.Update, updNum, a.HasUpdate = d.flexInt()
		case "Value":
			a.Value, valNum, hasVal = d.flexInt()
		case "Internal":
			a.Internal = d.boolean()
		case "Count Failed Values":
			a.CountFailedValues = d.boolean()
		case "Metadata":
			a.Metadata = d.metadata()
		default:
			d.skipValue()
		}
	}
	// Numeric when every value present is an integer.
	a.Numeric = (a.HasUpdate || hasVal) && (!a.HasUpdate || updNum) && (!hasVal || valNum)
	if !a.Numeric {
		a.Update, a.Value = 0, 0
	}
}

func (d *Decoder) namedValuesInto(v *[]NamedValue) { *v = d.namedValues() }

// namedValues decodes an object of name → integer (peak executor metrics).
// Spark writes the same names in the same order on every line, so the
// names of the last object are tried first, position by position: while
// they match, a name needs neither the intern table nor the search for a
// repeated key (the last object's names are distinct).
func (d *Decoder) namedValues() []NamedValue {
	if out, ok := d.namedValuesAsLast(); ok {
		return out
	}
	more := d.objectStart()
	if !more {
		return nil
	}
	start := len(d.named)
	known := d.lastNames
	for ; more; more = d.objectNext() {
		if known != nil {
			if k := len(d.named) - start; k < len(known) && string(d.key) == known[k] {
				d.named = append(d.named, NamedValue{Name: known[k], Value: d.int64()})
				continue
			}
			known = nil // from here on, names are looked up
		}
		nv := NamedValue{Name: d.intern.get(d.key), Value: d.int64()}
		if i := indexName(d.named[start:], nv.Name); i >= 0 {
			d.named[start+i] = nv // a repeated key replaces, as in encoding/json
			continue
		}
		d.named = append(d.named, nv)
	}
	out := make([]NamedValue, len(d.named)-start)
	copy(out, d.named[start:])
	d.named = d.named[:start]
	if known == nil && d.err == nil && len(out) <= maxKnownNames {
		d.lastNames = d.lastNames[:0]
		for _, nv := range out {
			d.lastNames = append(d.lastNames, nv.Name)
		}
	}
	return out
}

// namedValuesAsLast reads, in place, a metric map written exactly as the
// last one was: the same names in the same order, no whitespace, integer
// values. Matching each name's bytes where it must stand skips reading the
// key, looking it up and searching for a repeat; at the first other byte it
// gives up, with the cursor unmoved, and namedValues reads the map.
func (d *Decoder) namedValuesAsLast() ([]NamedValue, bool) {
	known := d.lastNames
	b, p := d.buf, d.pos
	if len(known) == 0 || p >= len(b) || b[p] != '{' {
		return nil, false
	}
	start := len(d.named)
	for i, name := range known {
		// p is at the '{' before the first name, at the ',' before the others.
		if i > 0 && b[p] != ',' {
			break
		}
		q := p + 1
		end := q + 1 + len(name)
		if end+1 >= len(b) || b[q] != '"' || string(b[q+1:end]) != name || b[end] != '"' || b[end+1] != ':' {
			break
		}
		v, next, ok := plainInt(b, end+2)
		if !ok || next >= len(b) {
			break
		}
		d.named = append(d.named, NamedValue{Name: name, Value: v})
		p = next
	}
	if len(d.named)-start != len(known) || b[p] != '}' {
		d.named = d.named[:start]
		return nil, false
	}
	out := make([]NamedValue, len(known))
	copy(out, d.named[start:])
	d.named = d.named[:start]
	d.pos = p + 1
	return out, true
}

// maxKnownNames bounds the names namedValues remembers from one object.
const maxKnownNames = 256

func (d *Decoder) taskMetrics(m *TaskMetrics) {
	*m = TaskMetrics{}
	for more := d.objectStartAs(&d.orders.taskMetrics); more; more = d.objectNextAs(&d.orders.taskMetrics) {
		switch string(d.key) {
		case "Executor Deserialize Time":
			m.ExecutorDeserializeTime = d.int64()
		case "Executor Deserialize CPU Time":
			m.ExecutorDeserializeCPUTime = d.int64()
		case "Executor Run Time":
			m.ExecutorRunTime = d.int64()
		case "Executor CPU Time":
			if !d.null() {
				m.ExecutorCPUTime = d.int64()
				m.HasExecutorCPUTime = true
			}
		case "Peak Execution Memory":
			m.PeakExecutionMemory = d.int64()
		case "Result Size":
			m.ResultSize = d.int64()
		case "JVM GC Time":
			m.JVMGCTime = d.int64()
		case "Result Serialization Time":
			m.ResultSerializationTime = d.int64()
		case "Memory Bytes Spilled":
			m.MemoryBytesSpilled = d.int64()
		case "Disk Bytes Spilled":
			m.DiskBytesSpilled = d.int64()
		case "Shuffle Read Metrics":
			decodeRepeated(d, &d.repeats.shuffleRead, &m.ShuffleRead, (*Decoder).shuffleRead)
		case "Shuffle Write Metrics":
			decodeRepeated(d, &d.repeats.shuffleWrite, &m.ShuffleWrite, (*Decoder).shuffleWrite)
		case "Input Metrics":
			decodeRepeated(d, &d.repeats.input, &m.Input, (*Decoder).inputMetrics)
		case "Output Metrics":
			decodeRepeated(d, &d.repeats.output, &m.Output, (*Decoder).outputMetrics)
		default: // "Updated Blocks", "Host Name", push-based shuffle, …
			d.skipValue()
		}
	}
}

func (d *Decoder) shuffleRead(r *ShuffleReadMetrics) {
	*r = ShuffleReadMetrics{}
	for more := d.objectStartAs(&d.orders.shuffleRead); more; more = d.objectNextAs(&d.orders.shuffleRead) {
		switch string(d.key) {
		case "Remote Blocks Fetched":
			r.RemoteBlocksFetched = d.int64()
		case "Local Blocks Fetched":
			r.LocalBlocksFetched = d.int64()
		case "Fetch Wait Time":
			r.FetchWaitTime = d.int64()
		case "Remote Bytes Read":
			r.RemoteBytesRead = d.int64()
		case "Remote Bytes Read To Disk":
			r.RemoteBytesReadToDisk = d.int64()
		case "Local Bytes Read":
			r.LocalBytesRead = d.int64()
		case "Total Records Read":
			r.TotalRecordsRead = d.int64()
		case "Remote Requests Duration":
			r.RemoteRequestsDuration = d.int64()
		default:
			d.skipValue()
		}
	}
}

func (d *Decoder) shuffleWrite(w *ShuffleWriteMetrics) {
	*w = ShuffleWriteMetrics{}
	for more := d.objectStartAs(&d.orders.shuffleWrite); more; more = d.objectNextAs(&d.orders.shuffleWrite) {
		switch string(d.key) {
		case "Shuffle Bytes Written":
			w.BytesWritten = d.int64()
		case "Shuffle Write Time":
			w.WriteTime = d.int64()
		case "Shuffle Records Written":
			w.RecordsWritten = d.int64()
		default:
			d.skipValue()
		}
	}
}

func (d *Decoder) inputMetrics(in *InputMetrics) {
	*in = InputMetrics{}
	for more := d.objectStartAs(&d.orders.inputMetrics); more; more = d.objectNextAs(&d.orders.inputMetrics) {
		switch string(d.key) {
		case "Bytes Read":
			in.BytesRead = d.int64()
		case "Records Read":
			in.RecordsRead = d.int64()
		default:
			d.skipValue()
		}
	}
}

func (d *Decoder) outputMetrics(out *OutputMetrics) {
	*out = OutputMetrics{}
	for more := d.objectStartAs(&d.orders.outputMetrics); more; more = d.objectNextAs(&d.orders.outputMetrics) {
		switch string(d.key) {
		case "Bytes Written":
			out.BytesWritten = d.int64()
		case "Records Written":
			out.RecordsWritten = d.int64()
		default:
			d.skipValue()
		}
	}
}

// indexName finds name in a short list (peak metrics number about 30).
func indexName(list []NamedValue, name string) int {
	for i := range list {
		if list[i].Name == name {
			return i
		}
	}
	return -1
}

// metadata reads an accumulable's "Metadata", nearly always "sql", without
// a trip through the intern table.
func (d *Decoder) metadata() string {
	b := d.str()
	if string(b) == "sql" {
		return "sql"
	}
	return d.intern.get(b)
}
