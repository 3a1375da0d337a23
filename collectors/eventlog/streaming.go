package eventlog

import (
	"slices"
	"strings"
	"time"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/internal/analysis"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// streamingView is one Structured Streaming query of an application view:
// its totals and latest batch, ready to be exported.
type streamingView struct {
	id, name                 string
	batches, inputRows       float64
	duration, trigger        float64
	phases                   []phaseSeconds // sorted by name
	inputRate, processedRate *float64
	stateRows, stateMemory   float64
	hasState                 bool
	watermarkLag, offsetLag  *float64
	behind                   float64
	hasLast                  bool
}

// maxPhases bounds the phase label's values per query.
const maxPhases = 16

type phaseSeconds struct {
	name    string
	seconds float64
}

// streamingViews turns the report's queries into views, sorted by id (the
// order the registry sorts their series in).
func streamingViews(qs []analysis.StreamingQuery) []streamingView {
	out := make([]streamingView, 0, len(qs))
	for _, q := range qs {
		v := streamingView{id: exporter.LabelValue(q.ID), name: exporter.LabelValue(q.Name), batches: float64(q.Batches),
			inputRows: float64(q.InputRows), trigger: q.TriggerIntervalSeconds, behind: float64(q.BehindStreak)}
		if b := q.Last; b != nil {
			v.hasLast = true
			v.duration = b.DurationSeconds
			v.inputRate, v.processedRate = b.InputRowsPerSecond, b.ProcessedRowsPerSecond
			v.stateRows, v.stateMemory, v.hasState = float64(b.StateRows), float64(b.StateMemoryBytes), b.StateOperators > 0
			v.watermarkLag, v.offsetLag = b.WatermarkLagSeconds, b.OffsetLag
			for name, ms := range b.DurationMs {
				v.phases = append(v.phases, phaseSeconds{exporter.LabelValue(name), float64(max(ms, 0)) / 1e3})
			}
			slices.SortFunc(v.phases, func(x, y phaseSeconds) int { return strings.Compare(x.name, y.name) })
			// Spark names about eight phases; a log naming more must not
			// make series without bound.
			v.phases = v.phases[:min(len(v.phases), maxPhases)]
		}
		out = append(out, v)
	}
	slices.SortFunc(out, func(x, y streamingView) int { return strings.Compare(x.id, y.id) })
	return out
}

var (
	streamingBatches       = of(sm.StreamingBatches)
	streamingInputRows     = of(sm.StreamingInputRows)
	streamingDuration      = of(sm.StreamingBatchDuration)
	streamingPhase         = of(sm.StreamingBatchPhase)
	streamingTrigger       = of(sm.StreamingTriggerInterval)
	streamingInputRate     = of(sm.StreamingInputRate)
	streamingProcessedRate = of(sm.StreamingProcessedRate)
	streamingStateRows     = of(sm.StreamingStateRows)
	streamingStateMemory   = of(sm.StreamingStateMemory)
	streamingWatermarkLag  = of(sm.StreamingWatermarkLag)
	streamingOffsetLag     = of(sm.StreamingOffsetLag)
	streamingBehind        = of(sm.StreamingBehindBatches)
)

// streamingFamily emits m for every query for which value says so.
func streamingFamily(m *Metric, value func(*streamingView) (float64, bool)) family {
	return family{m: m, emit: func(ch sink, p *appPairs, _ time.Time) {
		for i := range p.v.streaming {
			q := &p.v.streaming[i]
			if v, ok := value(q); ok {
				p.send(m, v, p.pair("query_id", q.id), p.pair("query_name", q.name))
			}
		}
	}}
}

func present(p *float64) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return *p, true
}

// streamingFamilies are the per-query families, appended to families.
var streamingFamilies = []family{
	streamingFamily(streamingBatches, func(q *streamingView) (float64, bool) { return q.batches, true }),
	streamingFamily(streamingInputRows, func(q *streamingView) (float64, bool) { return q.inputRows, true }),
	streamingFamily(streamingDuration, func(q *streamingView) (float64, bool) { return q.duration, q.hasLast }),
	{m: streamingPhase, emit: func(ch sink, p *appPairs, _ time.Time) {
		for i := range p.v.streaming {
			q := &p.v.streaming[i]
			id, name := p.pair("query_id", q.id), p.pair("query_name", q.name)
			for _, ph := range q.phases {
				p.send(streamingPhase, ph.seconds, id, name, p.pair("phase", ph.name))
			}
		}
	}},
	streamingFamily(streamingTrigger, func(q *streamingView) (float64, bool) { return q.trigger, q.trigger > 0 }),
	streamingFamily(streamingInputRate, func(q *streamingView) (float64, bool) { return present(q.inputRate) }),
	streamingFamily(streamingProcessedRate, func(q *streamingView) (float64, bool) { return present(q.processedRate) }),
	streamingFamily(streamingStateRows, func(q *streamingView) (float64, bool) { return q.stateRows, q.hasState }),
	streamingFamily(streamingStateMemory, func(q *streamingView) (float64, bool) { return q.stateMemory, q.hasState }),
	streamingFamily(streamingWatermarkLag, func(q *streamingView) (float64, bool) { return present(q.watermarkLag) }),
	streamingFamily(streamingOffsetLag, func(q *streamingView) (float64, bool) { return present(q.offsetLag) }),
	streamingFamily(streamingBehind, func(q *streamingView) (float64, bool) { return q.behind, q.hasLast }),
}
