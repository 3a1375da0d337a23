package sparkevent

func (d *Decoder) sqlExecutionStart(more bool) Event {
	d.event = TypeSQLExecutionStart
	ev := &SQLExecutionStart{RootExecutionID: -1}
	for ; more; more = d.objectNext() {
		switch string(d.key) {
		case "Event":
			d.eventKey()
		case "executionId":
			ev.ExecutionID = d.int64()
		case "rootExecutionId":
			if !d.null() {
				ev.RootExecutionID = d.int64()
			}
		case "description":
			ev.Description = d.text()
		case "details":
			ev.Details = d.text()
		case "physicalPlanDescription":
			ev.PhysicalPlanDescription = d.text()
		case "sparkPlanInfo":
			ev.Plan = d.planNode()
		case "time":
			ev.Time = d.int64()
		default:
			d.skipValue()
		}
	}
	return ev
}

func (d *Decoder) sqlExecutionEnd(more bool) Event {
	d.event = TypeSQLExecutionEnd
	ev := &SQLExecutionEnd{}
	for ; more; more = d.objectNext() {
		switch string(d.key) {
		case "Event":
			d.eventKey()
		case "executionId":
			ev.ExecutionID = d.int64()
		case "time":
			ev.Time = d.int64()
		case "errorMessage":
			ev.ErrorMessage = d.text()
		default:
			d.skipValue()
		}
	}
	return ev
}

func (d *Decoder) sqlAdaptiveExecutionUpdate(more bool) Event {
	d.event = TypeSQLAdaptiveExecutionUpdate
	ev := &SQLAdaptiveExecutionUpdate{}
	for ; more; more = d.objectNext() {
		switch string(d.key) {
		case "Event":
			d.eventKey()
		case "executionId":
			ev.ExecutionID = d.int64()
		case "physicalPlanDescription":
			ev.PhysicalPlanDescription = d.text()
		case "sparkPlanInfo":
			ev.Plan = d.planNode()
		default:
			d.skipValue()
		}
	}
	return ev
}

// MaxDecodedPlanNodes bounds the plan nodes built for one line, ten times
// sqlops' default cap: nodes past it (in pre-order) are validated and
// skipped without being built, so a generated plan of millions of nodes
// never exists in memory whole before the analysis cuts it.
const MaxDecodedPlanNodes = 100_000

// planNode decodes a "sparkPlanInfo" tree; null, or a node past
// MaxDecodedPlanNodes, gives nil. Recursion is bounded by maxDepth,
// checked when each object is entered.
func (d *Decoder) planNode() *PlanNode {
	if d.null() {
		return nil
	}
	if d.planNodes >= MaxDecodedPlanNodes {
		d.skipValue()
		return nil
	}
	d.planNodes++
	n := &PlanNode{}
	for more := d.objectStart(); more; more = d.objectNext() {
		switch string(d.key) {
		case "nodeName":
			n.NodeName = d.istr()
		case "simpleString":
			n.SimpleString = d.istr()
		case "children":
			n.Children = nil
			for more := d.arrayStart(); more; more = d.arrayNext() {
				if d.planNodes >= MaxDecodedPlanNodes {
					d.skipValue()
					continue
				}
				n.Children = append(n.Children, d.planNode())
			}
		case "metadata":
			n.Metadata = d.stringMap()
		case "metrics":
			n.Metrics = nil
			for more := d.arrayStart(); more; more = d.arrayNext() {
				n.Metrics = append(n.Metrics, d.planMetric())
			}
		default:
			d.skipValue()
		}
	}
	return n
}

func (d *Decoder) planMetric() PlanMetric {
	var m PlanMetric
	for more := d.objectStart(); more; more = d.objectNext() {
		switch string(d.key) {
		case "name":
			m.Name = d.istr()
		case "accumulatorId":
			m.AccumulatorID = d.int64()
		case "metricType":
			m.MetricType = d.istr()
		default:
			d.skipValue()
		}
	}
	return m
}

func (d *Decoder) driverAccumUpdates(more bool) Event {
	d.event = TypeDriverAccumUpdates
	ev := &DriverAccumUpdates{}
	for ; more; more = d.objectNext() {
		switch string(d.key) {
		case "Event":
			d.eventKey()
		case "executionId":
			ev.ExecutionID = d.int64()
		case "accumUpdates":
			ev.Updates = nil
			for more := d.arrayStart(); more; more = d.arrayNext() {
				ev.Updates = append(ev.Updates, d.accumUpdate())
			}
		default:
			d.skipValue()
		}
	}
	return ev
}

// accumUpdate decodes one [id, value] pair.
func (d *Decoder) accumUpdate() AccumUpdate {
	d.ws()
	at := d.pos
	var u AccumUpdate
	if d.arrayStart() {
		u.ID = d.int64()
		if d.arrayNext() {
			u.Value = d.int64()
			if !d.arrayNext() {
				return u
			}
		}
	}
	if d.err == nil {
		d.fail(at, false, TypeDriverAccumUpdates+`: key "accumUpdates": expected an [id, value] pair of integers`)
	}
	return u
}
