package sparkevent

func (d *Decoder) stageSubmitted(more bool) Event {
	d.event = TypeStageSubmitted
	ev := &StageSubmitted{}
	for ; more; more = d.objectNext() {
		switch string(d.key) {
		case "Event":
			d.eventKey()
		case "Stage Info":
			d.stageInfo(&ev.Stage)
		case "Properties":
			ev.Properties = d.stringMap()
		default:
			d.skipValue()
		}
	}
	return ev
}

func (d *Decoder) stageCompleted(more bool) Event {
	d.event = TypeStageCompleted
	ev := &StageCompleted{}
	for ; more; more = d.objectNext() {
		switch string(d.key) {
		case "Event":
			d.eventKey()
		case "Stage Info":
			d.stageInfo(&ev.Stage)
		default:
			d.skipValue()
		}
	}
	return ev
}

// stageInfo decodes a "Stage Info" object; "RDD Info" is skipped.
func (d *Decoder) stageInfo(st *StageInfo) {
	*st = StageInfo{}
	for more := d.objectStart(); more; more = d.objectNext() {
		switch string(d.key) {
		case "Stage ID":
			st.StageID = d.int()
		case "Stage Attempt ID":
			st.AttemptID = d.int()
		case "Stage Name":
			st.Name = d.istr()
		case "Number of Tasks":
			st.NumTasks = d.int()
		case "Parent IDs":
			st.ParentIDs = d.intList()
		case "Details":
			st.Details = d.text()
		case "Submission Time":
			st.SubmissionTime = d.int64()
		case "Completion Time":
			st.CompletionTime = d.int64()
		case "Failure Reason":
			st.FailureReason = d.text()
		case "Resource Profile Id":
			st.ResourceProfileID = d.int()
		case "Accumulables":
			st.Accumulables, st.SQLUpdates = d.accumulables()
		default:
			d.skipValue()
		}
	}
}

func (d *Decoder) jobStart(more bool) Event {
	d.event = TypeJobStart
	ev := &JobStart{}
	for ; more; more = d.objectNext() {
		switch string(d.key) {
		case "Event":
			d.eventKey()
		case "Job ID":
			ev.JobID = d.int()
		case "Submission Time":
			ev.SubmissionTime = d.int64()
		case "Stage Infos":
			ev.StageInfos = nil
			for more := d.arrayStart(); more; more = d.arrayNext() {
				ev.StageInfos = append(ev.StageInfos, StageInfo{})
				d.stageInfo(&ev.StageInfos[len(ev.StageInfos)-1])
			}
		case "Stage IDs":
			ev.StageIDs = d.intList()
		case "Properties":
			ev.Properties = d.stringMap()
		default:
			d.skipValue()
		}
	}
	return ev
}

func (d *Decoder) jobEnd(more bool) Event {
	d.event = TypeJobEnd
	ev := &JobEnd{}
	for ; more; more = d.objectNext() {
		switch string(d.key) {
		case "Event":
			d.eventKey()
		case "Job ID":
			ev.JobID = d.int()
		case "Completion Time":
			ev.CompletionTime = d.int64()
		case "Job Result":
			ev.Result = ""
			for more := d.objectStart(); more; more = d.objectNext() {
				if string(d.key) == "Result" {
					ev.Result = d.istr()
				} else {
					d.skipValue()
				}
			}
		default:
			d.skipValue()
		}
	}
	return ev
}

func (d *Decoder) stageExecutorMetrics(more bool) Event {
	d.event = TypeStageExecutorMetrics
	ev := &StageExecutorMetrics{}
	for ; more; more = d.objectNext() {
		switch string(d.key) {
		case "Event":
			d.eventKey()
		case "Executor ID":
			ev.ExecutorID = d.istr()
		case "Stage ID":
			ev.StageID = d.int()
		case "Stage Attempt ID":
			ev.StageAttemptID = d.int()
		case "Executor Metrics":
			ev.Metrics = d.namedValues()
		default:
			d.skipValue()
		}
	}
	return ev
}
