package sparkevent

func (d *Decoder) logStart(more bool) Event {
	d.event = TypeLogStart
	ev := &LogStart{}
	for ; more; more = d.objectNext() {
		switch string(d.key) {
		case "Event":
			d.eventKey()
		case "Spark Version":
			ev.SparkVersion = d.istr()
		default:
			d.skipValue()
		}
	}
	return ev
}

func (d *Decoder) databricksMetadata(more bool) Event {
	d.event = TypeDatabricksMetadata
	ev := &DatabricksMetadata{}
	for ; more; more = d.objectNext() {
		switch string(d.key) {
		case "Event":
			d.eventKey()
		case "Spark Version":
			ev.SparkVersion = d.istr()
		case "Timestamp":
			ev.Timestamp = d.int64()
		case "Rollover Number":
			ev.RolloverNumber = int(d.int64())
		default:
			d.skipValue()
		}
	}
	return ev
}

func (d *Decoder) applicationStart(more bool) Event {
	d.event = TypeApplicationStart
	ev := &ApplicationStart{}
	for ; more; more = d.objectNext() {
		switch string(d.key) {
		case "Event":
			d.eventKey()
		case "App Name":
			ev.AppName = d.text()
		case "App ID":
			ev.AppID = d.text()
		case "App Attempt ID":
			ev.AttemptID = d.text()
		case "User":
			ev.User = d.text()
		case "Timestamp":
			ev.Timestamp = d.int64()
		default:
			d.skipValue()
		}
	}
	return ev
}

func (d *Decoder) applicationEnd(more bool) Event {
	d.event = TypeApplicationEnd
	ev := &ApplicationEnd{}
	for ; more; more = d.objectNext() {
		switch string(d.key) {
		case "Event":
			d.eventKey()
		case "Timestamp":
			ev.Timestamp = d.int64()
		case "ExitCode":
			if !d.null() {
				ev.ExitCode = d.int()
				ev.HasExitCode = true
			}
		default:
			d.skipValue()
		}
	}
	return ev
}

// environmentUpdate keeps the maps the analysis reads; "Classpath
// Entries", "Hadoop Properties" and the rest are skipped.
func (d *Decoder) environmentUpdate(more bool) Event {
	d.event = TypeEnvironmentUpdate
	ev := &EnvironmentUpdate{}
	for ; more; more = d.objectNext() {
		switch string(d.key) {
		case "Event":
			d.eventKey()
		case "JVM Information":
			ev.JVMInformation = d.stringMap()
		case "Spark Properties":
			ev.SparkProperties = d.stringMap()
		case "System Properties":
			ev.SystemProperties = d.stringMap()
		default:
			d.skipValue()
		}
	}
	return ev
}

func (d *Decoder) resourceProfileAdded(more bool) Event {
	d.event = TypeResourceProfileAdded
	ev := &ResourceProfileAdded{}
	for ; more; more = d.objectNext() {
		switch string(d.key) {
		case "Event":
			d.eventKey()
		case "Resource Profile Id":
			ev.ID = d.int()
		case "Executor Resource Requests":
			ev.ExecutorResources = nil
			for more := d.objectStart(); more; more = d.objectNext() {
				name := d.intern.get(d.key)
				var req ResourceRequest
				for more := d.objectStart(); more; more = d.objectNext() {
					if string(d.key) == "Amount" {
						req.Amount = d.int64()
					} else {
						d.skipValue()
					}
				}
				if ev.ExecutorResources == nil {
					ev.ExecutorResources = make(map[string]ResourceRequest)
				}
				ev.ExecutorResources[name] = req
			}
		case "Task Resource Requests":
			ev.TaskResources = nil
			for more := d.objectStart(); more; more = d.objectNext() {
				name := d.intern.get(d.key)
				var amount float64
				for more := d.objectStart(); more; more = d.objectNext() {
					if string(d.key) == "Amount" {
						amount = d.float64()
					} else {
						d.skipValue()
					}
				}
				if ev.TaskResources == nil {
					ev.TaskResources = make(map[string]float64)
				}
				ev.TaskResources[name] = amount
			}
		default:
			d.skipValue()
		}
	}
	return ev
}

func (d *Decoder) executorAdded(more bool) Event {
	d.event = TypeExecutorAdded
	ev := &ExecutorAdded{}
	for ; more; more = d.objectNext() {
		switch string(d.key) {
		case "Event":
			d.eventKey()
		case "Timestamp":
			ev.Timestamp = d.int64()
		case "Executor ID":
			ev.ExecutorID = d.istr()
		case "Executor Info":
			ev.Host, ev.TotalCores, ev.ResourceProfileID = "", 0, 0
			for more := d.objectStart(); more; more = d.objectNext() {
				switch string(d.key) {
				case "Host":
					ev.Host = d.istr()
				case "Total Cores":
					ev.TotalCores = d.int()
				case "Resource Profile Id":
					ev.ResourceProfileID = d.int()
				default:
					d.skipValue()
				}
			}
		default:
			d.skipValue()
		}
	}
	return ev
}

func (d *Decoder) executorRemoved(more bool) Event {
	d.event = TypeExecutorRemoved
	ev := &ExecutorRemoved{}
	for ; more; more = d.objectNext() {
		switch string(d.key) {
		case "Event":
			d.eventKey()
		case "Timestamp":
			ev.Timestamp = d.int64()
		case "Executor ID":
			ev.ExecutorID = d.istr()
		case "Removed Reason":
			ev.Reason = d.text()
		default:
			d.skipValue()
		}
	}
	return ev
}

func (d *Decoder) blockManagerAdded(more bool) Event {
	d.event = TypeBlockManagerAdded
	ev := &BlockManagerAdded{}
	for ; more; more = d.objectNext() {
		switch string(d.key) {
		case "Event":
			d.eventKey()
		case "Timestamp":
			ev.Timestamp = d.int64()
		case "Block Manager ID":
			d.blockManagerID(&ev.ExecutorID, &ev.Host, &ev.Port)
		case "Maximum Memory":
			ev.MaxMem = d.int64()
		case "Maximum Onheap Memory":
			ev.MaxOnHeapMem = d.int64()
		case "Maximum Offheap Memory":
			ev.MaxOffHeapMem = d.int64()
		default:
			d.skipValue()
		}
	}
	return ev
}

func (d *Decoder) blockManagerRemoved(more bool) Event {
	d.event = TypeBlockManagerRemoved
	ev := &BlockManagerRemoved{}
	for ; more; more = d.objectNext() {
		switch string(d.key) {
		case "Event":
			d.eventKey()
		case "Timestamp":
			ev.Timestamp = d.int64()
		case "Block Manager ID":
			d.blockManagerID(&ev.ExecutorID, &ev.Host, &ev.Port)
		default:
			d.skipValue()
		}
	}
	return ev
}

func (d *Decoder) blockManagerID(executorID, host *string, port *int) {
	*executorID, *host, *port = "", "", 0
	for more := d.objectStart(); more; more = d.objectNext() {
		switch string(d.key) {
		case "Executor ID":
			*executorID = d.istr()
		case "Host":
			*host = d.istr()
		case "Port":
			*port = d.int()
		default:
			d.skipValue()
		}
	}
}

// executorExcludedForStage and nodeExcludedForStage read events Spark
// writes with Jackson's defaults: camelCase keys.
func (d *Decoder) executorExcludedForStage(more, legacy bool) Event {
	ev := &ExecutorExcludedForStage{Legacy: legacy}
	d.event = ev.EventType()
	for ; more; more = d.objectNext() {
		switch string(d.key) {
		case "Event":
			d.eventKey()
		case "time":
			ev.Time = d.int64()
		case "executorId":
			ev.ExecutorID = d.istr()
		case "taskFailures":
			ev.TaskFailures = d.int()
		case "stageId":
			ev.StageID = d.int()
		case "stageAttemptId":
			ev.StageAttemptID = d.int()
		default:
			d.skipValue()
		}
	}
	return ev
}

func (d *Decoder) nodeExcludedForStage(more, legacy bool) Event {
	ev := &NodeExcludedForStage{Legacy: legacy}
	d.event = ev.EventType()
	for ; more; more = d.objectNext() {
		switch string(d.key) {
		case "Event":
			d.eventKey()
		case "time":
			ev.Time = d.int64()
		case "hostId":
			ev.Host = d.istr()
		case "executorFailures":
			ev.ExecutorFailures = d.int()
		case "stageId":
			ev.StageID = d.int()
		case "stageAttemptId":
			ev.StageAttemptID = d.int()
		default:
			d.skipValue()
		}
	}
	return ev
}
